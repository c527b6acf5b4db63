package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import smbdirect.testsupport.Judges;

/**
 * Every requirement ID of the project's [MS-SMBD] digest ({@code docs/spec/ms-smbd.md} of the
 * repository; the build passes its path as {@value #SPEC_PROPERTY}) is either named by a test or
 * marked {@code n/a} with a reason in {@code requirements.txt}, and that list names no ID the digest
 * does not have. Says on the console what it checked.
 */
class RequirementTraceabilityTest {

    /** System property: the digest's path (default {@code ../docs/spec/ms-smbd.md}, from the module directory). */
    static final String SPEC_PROPERTY = "smbdirect.spec.digest";
    private static final Pattern SPEC_ROW = Pattern.compile("^\\| (R-[0-9.]+-[0-9]+) \\|", Pattern.MULTILINE);
    private static final Pattern LIST_ROW = Pattern.compile("^(R-[0-9.]+-[0-9]+)\\s+(test|n/a:.+)$");

    @Test
    void everyRequirementIsTestedOrExplained() throws IOException {
        Map<String, String> list = committedList();
        Path spec = Paths.get(System.getProperty(SPEC_PROPERTY, "../docs/spec/ms-smbd.md")).toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(spec), "the project's [MS-SMBD] digest is missing: " + spec);
        Set<String> ids = new LinkedHashSet<>(specIds(spec));
        String tests = testSources();
        List<String> problems = new ArrayList<>();
        for (String id : ids) {
            String how = list.get(id);
            boolean named = tests.contains(id) || tests.contains(underscored(id));
            if (how == null) {
                problems.add(id + ": missing from requirements.txt" + (named ? " (a test names it)" : ""));
            } else if (how.equals("test") && !named) {
                problems.add(id + ": marked test, but no test names it");
            } else if (how.startsWith("n/a:") && how.substring(4).isBlank()) {
                problems.add(id + ": n/a without a reason");
            }
        }
        for (String id : list.keySet()) {
            if (!ids.contains(id)) {
                problems.add(id + ": listed but not in the specification");
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " requirement(s) without a test or reason:\n  "
                + String.join("\n  ", problems));
        assertTrue(ids.size() > 250, "the specification lists " + ids.size() + " IDs");
        long tested = list.values().stream().filter("test"::equals).count();
        Judges.report(ids.size() + " requirement IDs of " + spec.getFileName() + " (" + spec.getParent() + "): "
                + tested + " named by a test, " + (ids.size() - tested) + " n/a with a reason in requirements.txt");
    }

    static String underscored(String id) {
        return id.replace('-', '_').replace('.', '_');
    }

    private static Map<String, String> committedList() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        try (InputStream in = RequirementTraceabilityTest.class.getResourceAsStream("/requirements.txt")) {
            assertTrue(in != null, "requirements.txt on the test class path");
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                Matcher m = LIST_ROW.matcher(line.strip());
                if (m.matches()) {
                    out.put(m.group(1), m.group(2));
                }
            }
        }
        return out;
    }

    private static List<String> specIds(Path spec) throws IOException {
        List<String> ids = new ArrayList<>();
        Matcher m = SPEC_ROW.matcher(Files.readString(spec));
        while (m.find()) {
            ids.add(m.group(1));
        }
        return ids;
    }

    private static String testSources() throws IOException {
        Path root = Paths.get("src/test/java");
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                if (!p.getFileName().toString().equals("RequirementTraceabilityTest.java")) {
                    all.append(Files.readString(p)).append('\n');
                }
            }
        }
        return all.toString();
    }
}
