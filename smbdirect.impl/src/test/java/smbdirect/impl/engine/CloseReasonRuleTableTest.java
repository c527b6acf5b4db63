package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;

/**
 * The table of rule IDs a close reason can carry ({@code docs/close-reason-rules.md}, and its copy in
 * the API's javadoc, {@code smbdirect/api/doc-files/close-reason-rules.html}, linked from
 * {@code CloseReason.rule()}) is complete: every rule ID the transport's code names as a string
 * (a {@code CloseReason}'s or a wire check's {@code Violation}'s) has a row with its sentence and what
 * each RDMA provider reports, no row names an ID the code no longer emits, and both copies say the same.
 */
class CloseReasonRuleTableTest {

    private static final Path MARKDOWN = Path.of("..", "docs", "close-reason-rules.md");
    private static final Path JAVADOC = Path.of("..", "smbdirect.api", "src", "main", "java", "smbdirect", "api",
            "doc-files", "close-reason-rules.html");
    /** A string literal that is exactly a rule ID. */
    private static final Pattern ID_LITERAL = Pattern.compile("\"(R-\\d+(?:\\.\\d+)*-\\d+|A-\\d+)\"");
    private static final Pattern MD_ROW = Pattern.compile("^\\| ([RA]-[0-9.]+(?:-\\d+)?) \\|(.*)\\|$", Pattern.MULTILINE);
    private static final Pattern HTML_ROW = Pattern.compile("<tr>((?:<td>.*?</td>)+)</tr>");
    private static final Pattern HTML_CELL = Pattern.compile("<td>(.*?)</td>");
    /** {@code new CloseReason(CloseReason.Kind.X, "ID"}: a reason made with its rule in one place. */
    private static final Pattern REASON_WITH_RULE = Pattern.compile(
            "CloseReason\\.Kind\\.(\\w+),\\s*\"(R-\\d+(?:\\.\\d+)*-\\d+|A-\\d+)\"");

    @Test
    void everyRuleIdTheCodeEmitsHasARowAndEveryRowAnIdTheCodeEmits() throws IOException {
        Map<String, List<String>> table = markdownRows();
        TreeSet<String> emitted = new TreeSet<>();
        String sources = mainSources();
        Matcher m = ID_LITERAL.matcher(sources);
        while (m.find()) {
            emitted.add(m.group(1));
        }
        assertTrue(emitted.size() >= 25, "the code names its rules: " + emitted);
        List<String> problems = new ArrayList<>();
        for (String id : emitted) {
            if (!table.containsKey(id)) {
                problems.add(id + ": emitted by the code, missing from " + MARKDOWN);
            }
        }
        for (String id : table.keySet()) {
            if (!emitted.contains(id)) {
                problems.add(id + ": in " + MARKDOWN + ", but no code emits it any more");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void everyRowSaysWhatItsIdStandsForAndNamesTheKindTheCodeClosesWith() throws IOException {
        Map<String, List<String>> table = markdownRows();
        Matcher m = REASON_WITH_RULE.matcher(mainSources());
        Map<String, String> kindInCode = new TreeMap<>();
        while (m.find()) {
            kindInCode.put(m.group(2), m.group(1));
        }
        assertTrue(kindInCode.containsKey("A-21") && kindInCode.containsKey("R-3.1.6.1-01"), kindInCode.toString());
        for (Map.Entry<String, List<String>> row : table.entrySet()) {
            List<String> cells = row.getValue();
            String sentence = cells.get(cells.size() - 1);
            assertTrue(sentence.length() > 40 && sentence.endsWith("."), row.getKey() + ": a sentence: " + sentence);
            if (cells.size() > 1) { // the close-reason table: kind, what each provider reports, sentence
                assertEquals(3, cells.size(), row.getKey() + ": kind, what each provider reports, sentence");
                String providers = cells.get(1);
                assertTrue(providers.length() > 40 && providers.endsWith("."),
                        row.getKey() + ": says what each provider reports: " + providers);
                CloseReason.Kind kind = CloseReason.Kind.valueOf(cells.get(0));
                String inCode = kindInCode.get(row.getKey());
                if (inCode != null) {
                    assertEquals(inCode, kind.name(), row.getKey() + ": the kind the code closes with");
                }
            }
        }
    }

    @Test
    void theJavadocCopyOfTheTableSaysWhatTheDocumentSays() throws IOException {
        Map<String, List<String>> markdown = markdownRows();
        Map<String, List<String>> javadoc = new TreeMap<>();
        Matcher row = HTML_ROW.matcher(Files.readString(JAVADOC));
        while (row.find()) {
            List<String> cells = new ArrayList<>();
            Matcher cell = HTML_CELL.matcher(row.group(1));
            while (cell.find()) {
                cells.add(plain(cell.group(1)));
            }
            javadoc.put(cells.get(0), cells.subList(1, cells.size()));
        }
        TreeSet<String> ids = new TreeSet<>(markdown.keySet());
        ids.addAll(javadoc.keySet());
        List<String> differ = new ArrayList<>();
        for (String id : ids) {
            if (!java.util.Objects.equals(markdown.get(id), javadoc.get(id))) {
                differ.add(id + ": " + markdown.get(id) + " / " + javadoc.get(id));
            }
        }
        assertTrue(differ.isEmpty(), JAVADOC + " differs from " + MARKDOWN
                + " (copy the rows over: the same ID, kind and sentence):\n" + String.join("\n", differ));
    }

    /** ID to the cells after it (kind and sentence, or sentence), in the document's order. */
    private static Map<String, List<String>> markdownRows() throws IOException {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        Matcher m = MD_ROW.matcher(Files.readString(MARKDOWN));
        while (m.find()) {
            List<String> cells = new ArrayList<>();
            for (String c : m.group(2).split("\\|")) {
                cells.add(plain(c));
            }
            assertTrue(rows.put(m.group(1), cells) == null, m.group(1) + " has two rows");
        }
        return rows;
    }

    /** Text without markup: code spans and HTML tags dropped, entities resolved, blanks trimmed. */
    private static String plain(String s) {
        return s.replace("`", "").replaceAll("<[^>]+>", "").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&").strip();
    }

    private static String mainSources() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                all.append(Files.readString(p)).append('\n');
            }
        }
        return all.toString();
    }
}
