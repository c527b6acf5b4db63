package smbdirect.testreport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * What one module's tests did in this build: its surefire and failsafe XML reports
 * ({@code target/surefire-reports}, {@code target/failsafe-reports}) and the skip records of
 * smbdirect.testsupport ({@code target/skip-reasons}), those written since the build started only;
 * and the test classes its sources say should have run. Immutable.
 *
 * @param module the module's directory name
 * @param outcomes every test (and every class that ran no test) of this build's reports
 * @param reported the test classes with a report from this build
 * @param expected the test classes that should have a report: surefire's and failsafe's default
 *     names ({@code *Test}, {@code Test*}, {@code *Tests}, {@code *TestCase}; {@code *IT},
 *     {@code IT*}, {@code *ITCase}) under {@code src/test/java}, abstract classes left out
 * @param stale reports left over from an earlier build (ignored)
 */
record ModuleReports(String module, List<Outcome> outcomes, Set<String> reported, Set<String> expected, int stale) {

    private static final Pattern TEST_CLASS = Pattern.compile("(Test\\w*|\\w+Test|\\w+Tests|\\w+TestCase|IT\\w*|\\w+IT"
            + "|\\w+ITCase)\\.java");
    /** What surefire writes before the message of a skipped test whose stack trace it keeps. */
    private static final Pattern THROWABLE_PREFIX = Pattern.compile("^[\\w.$]+(Exception|Error): ");

    /** Reads the module in {@code dir}; reports older than {@code since} are counted as stale, not read. */
    static ModuleReports read(Path dir, Instant since) throws IOException {
        String module = dir.getFileName().toString();
        Map<String, String> classSkips = classSkips(dir.resolve("target/skip-reasons"), since);
        List<Outcome> outcomes = new ArrayList<>();
        Set<String> reported = new LinkedHashSet<>();
        int stale = 0;
        for (String reports : List.of("target/surefire-reports", "target/failsafe-reports")) {
            for (Path xml : files(dir.resolve(reports), "TEST-", ".xml")) {
                if (Files.getLastModifiedTime(xml).toInstant().isBefore(since)) {
                    stale++;
                    continue;
                }
                readSuite(module, xml, classSkips, outcomes, reported);
            }
        }
        return new ModuleReports(module, List.copyOf(outcomes), Set.copyOf(reported), expected(dir), stale);
    }

    /** Classes skipped as a whole (their {@code @BeforeAll} aborted, or disabled), with the reason. */
    private static Map<String, String> classSkips(Path dir, Instant since) throws IOException {
        Map<String, String> out = new HashMap<>();
        for (Path tsv : files(dir, "", ".tsv")) {
            if (Files.getLastModifiedTime(tsv).toInstant().isBefore(since)) {
                continue;
            }
            for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
                String[] f = line.split("\t", 4);
                if (f.length == 4 && f[1].isEmpty()) {
                    out.put(f[0], f[3]);
                }
            }
        }
        return out;
    }

    private static List<Path> files(Path dir, String prefix, String suffix) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)
                    && p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    private static void readSuite(String module, Path xml, Map<String, String> classSkips, List<Outcome> outcomes,
            Set<String> reported) throws IOException {
        Element suite;
        try (InputStream in = Files.newInputStream(xml)) {
            suite = parser().parse(in).getDocumentElement();
        } catch (SAXException e) {
            throw new IOException("cannot read the test report " + xml + ": " + e.getMessage(), e);
        }
        String name = suite.getAttribute("name");
        reported.add(name);
        NodeList cases = suite.getElementsByTagName("testcase");
        if (cases.getLength() == 0) {
            String why = classSkips.get(name);
            outcomes.add(new Outcome(module, name, "", Outcome.Kind.SKIPPED, why != null ? why
                    : "it ran no test, and no reason was recorded (a class-level setup that aborted?)"));
            return;
        }
        for (int i = 0; i < cases.getLength(); i++) {
            Element c = (Element) cases.item(i);
            String className = c.getAttribute("classname").isEmpty() ? name : c.getAttribute("classname");
            Element problem = child(c, "failure", "error");
            Element skipped = child(c, "skipped");
            if (problem != null) {
                outcomes.add(new Outcome(module, className, c.getAttribute("name"), Outcome.Kind.FAILED,
                        reason(problem)));
            } else if (skipped != null) {
                outcomes.add(new Outcome(module, className, c.getAttribute("name"), Outcome.Kind.SKIPPED,
                        reason(skipped)));
            } else {
                outcomes.add(new Outcome(module, className, c.getAttribute("name"), Outcome.Kind.PASSED, ""));
            }
        }
    }

    private static Element child(Element parent, String... names) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && List.of(names).contains(e.getTagName())) {
                return e;
            }
        }
        return null;
    }

    /**
     * The reason of a failure or skip, one line: the {@code message} attribute, or else the first
     * line of the kept stack trace without the exception's class and JUnit's "Assumption failed: ".
     */
    static String reason(Element e) {
        String text = e.getAttribute("message");
        if (text.isBlank()) {
            text = e.getTextContent().strip().lines().findFirst().orElse("");
            Matcher m = THROWABLE_PREFIX.matcher(text);
            if (m.find()) {
                text = text.substring(m.end());
            }
        }
        if (text.startsWith("Assumption failed: ")) {
            text = text.substring("Assumption failed: ".length());
        }
        text = text.replace('\n', ' ').replace('\r', ' ').strip();
        return text.isEmpty() ? "(no reason given)" : text;
    }

    private static DocumentBuilder parser() throws IOException {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return f.newDocumentBuilder();
        } catch (ParserConfigurationException e) {
            throw new IOException(e);
        }
    }

    /** The test classes under {@code dir/src/test/java} that surefire or failsafe run by their names. */
    static Set<String> expected(Path dir) throws IOException {
        Path root = dir.resolve("src/test/java");
        if (!Files.isDirectory(root)) {
            return Set.of();
        }
        Map<String, Path> found = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String file = p.getFileName().toString();
                if (!TEST_CLASS.matcher(file).matches()) {
                    continue;
                }
                String simple = file.substring(0, file.length() - ".java".length());
                String source = Files.readString(p, StandardCharsets.UTF_8);
                if (source.contains("abstract class " + simple) || !source.contains("class " + simple)) {
                    continue;
                }
                String rel = root.relativize(p).toString();
                found.put(rel.substring(0, rel.length() - ".java".length()).replace('/', '.'), p);
            }
        }
        return new LinkedHashSet<>(found.keySet());
    }

    /** The expected test classes without a report from this build. */
    List<String> unreported() {
        List<String> out = new ArrayList<>();
        for (String c : expected) {
            if (!reported.contains(c)) {
                out.add(c);
            }
        }
        return out;
    }

    /** Outcomes of that kind (a class that ran no test counts once among the skipped). */
    long count(Outcome.Kind kind) {
        return outcomes.stream().filter(o -> o.kind() == kind).count();
    }

    /** Test classes with a report from this build. */
    int classes() {
        return reported.size();
    }
}
