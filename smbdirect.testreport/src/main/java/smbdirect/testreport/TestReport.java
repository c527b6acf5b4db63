package smbdirect.testreport;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The end of the build's test command: for every module of the reactor (the root pom's
 * {@code <modules>}), how many test classes and tests ran, failed and were skipped in this build,
 * then every skip with its reason, whether it is a known one ({@code known-skips.txt}), and the
 * test classes that should have run and have no report from this build.
 *
 * <p>In strict mode (CI) the exit status is 1 when a skip is not a known one, a test class has no
 * report (and is not listed as not run by design), a test failed, or the tests were skipped
 * altogether ({@code -DskipTests}); the lines above say which. Otherwise it only reports.
 *
 * <p>Arguments: {@code --root=DIR --known-skips=FILE --since=INSTANT --strict=BOOL}, and any number
 * of {@code --skip-tests=BOOL} and {@code --selected-tests=PATTERN} (a Maven property that is not
 * set arrives as its own {@code ${...}} expression and counts as unset).
 */
public final class TestReport {

    private static final String P = "[test report] ";

    private final Path root;
    private final KnownSkips known;
    private final Instant since;
    private final boolean strict;
    private final boolean testsSkipped;
    private final String selected;
    private final PrintStream out;

    TestReport(Path root, KnownSkips known, Instant since, boolean strict, boolean testsSkipped, String selected,
            PrintStream out) {
        this.root = root;
        this.known = known;
        this.since = since;
        this.strict = strict;
        this.testsSkipped = testsSkipped;
        this.selected = selected;
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        Map<String, List<String>> a = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("not --name=value: " + arg);
            }
            String value = arg.substring(eq + 1);
            if (!value.startsWith("${")) {
                a.computeIfAbsent(arg.substring(2, eq), k -> new ArrayList<>()).add(value);
            }
        }
        Path root = Paths.get(one(a, "root")).toAbsolutePath().normalize();
        TestReport report = new TestReport(root, KnownSkips.read(Paths.get(one(a, "known-skips"))),
                Instant.parse(one(a, "since")), Boolean.parseBoolean(a.getOrDefault("strict", List.of("false")).get(0)),
                a.getOrDefault("skip-tests", List.of()).stream().anyMatch(v -> v.isEmpty() || Boolean.parseBoolean(v)),
                String.join(",", a.getOrDefault("selected-tests", List.of())), System.out);
        System.exit(report.run() ? 0 : 1);
    }

    private static String one(Map<String, List<String>> a, String name) {
        List<String> v = a.get(name);
        if (v == null || v.size() != 1) {
            throw new IllegalArgumentException("--" + name + "= is needed once");
        }
        return v.get(0);
    }

    /** Prints the report; returns false when strict mode finds a problem. */
    boolean run() throws IOException {
        out.println(P + "tests of this build (reports since " + since + "), strict mode " + (strict ? "on" : "off"));
        if (testsSkipped) {
            out.println(P + "the tests were skipped (-DskipTests or -Dmaven.test.skip)");
            if (strict) {
                out.println(P + "STRICT MODE FAILS: strict mode runs every test; drop -DskipTests");
            }
            return !strict;
        }
        List<ModuleReports> modules = new ArrayList<>();
        for (String m : modules(root)) {
            modules.add(ModuleReports.read(root.resolve(m), since));
        }
        out.println(P + String.format("%-26s %8s %8s %8s %8s", "module", "classes", "tests", "failed", "skipped"));
        long[] total = new long[4];
        for (ModuleReports m : modules) {
            long run = m.count(Outcome.Kind.PASSED) + m.count(Outcome.Kind.FAILED);
            long[] row = {m.classes(), run, m.count(Outcome.Kind.FAILED), m.count(Outcome.Kind.SKIPPED)};
            for (int i = 0; i < 4; i++) {
                total[i] += row[i];
            }
            out.println(P + String.format("%-26s %8d %8d %8d %8d", m.module(), row[0], row[1], row[2], row[3])
                    + (m.expected().isEmpty() && m.classes() == 0 ? "   (no tests)" : ""));
        }
        out.println(P + String.format("%-26s %8d %8d %8d %8d", "all", total[0], total[1], total[2], total[3]));

        List<String> problems = new ArrayList<>();
        Set<KnownSkips.Entry> seen = new LinkedHashSet<>();
        for (ModuleReports m : modules) {
            for (Outcome o : m.outcomes()) {
                if (o.kind() == Outcome.Kind.FAILED) {
                    problems.add(m.module() + ": " + o.where() + " FAILED: " + o.reason());
                }
            }
        }
        List<String> skips = new ArrayList<>();
        for (ModuleReports m : modules) {
            for (Outcome o : m.outcomes()) {
                if (o.kind() != Outcome.Kind.SKIPPED) {
                    continue;
                }
                KnownSkips.Entry e = known.find(o);
                if (e != null) {
                    seen.add(e);
                    skips.add(m.module() + ": " + o.where() + ": " + o.reason() + "  [known skip, "
                            + known.file().getFileName() + ":" + e.line() + "]");
                } else {
                    skips.add(m.module() + ": " + o.where() + ": " + o.reason() + "  [NOT A KNOWN SKIP]");
                    problems.add(m.module() + ": " + o.where() + " skipped: " + o.reason());
                }
            }
        }
        if (!skips.isEmpty()) {
            out.println(P + "skipped (" + skips.size() + "):");
            skips.forEach(s -> out.println(P + "  " + s));
        }
        List<String> unreported = new ArrayList<>();
        for (ModuleReports m : modules) {
            for (String c : m.unreported()) {
                KnownSkips.Entry e = known.findUnreported(m.module(), c);
                if (e != null) {
                    seen.add(e);
                    continue;
                }
                unreported.add(m.module() + ": " + c);
                problems.add(m.module() + ": " + c + " has no report from this build");
            }
            if (m.stale() > 0) {
                out.println(P + m.module() + ": " + m.stale() + " report(s) from an earlier build left aside");
            }
        }
        if (!unreported.isEmpty()) {
            out.println(P + "test classes without a report from this build (" + unreported.size() + ")"
                    + (selected.isEmpty() ? "" : ", tests selected with -Dtest=" + selected) + ":");
            int shown = strict ? unreported.size() : Math.min(unreported.size(), 20);
            unreported.subList(0, shown).forEach(s -> out.println(P + "  " + s));
            if (shown < unreported.size()) {
                out.println(P + "  ... and " + (unreported.size() - shown) + " more");
            }
        }
        for (KnownSkips.Entry e : known.entries()) {
            if (!seen.contains(e)) {
                out.println(P + "listed in " + known.file().getFileName() + ":" + e.line() + " but not seen in this"
                        + " build: " + e.test());
            }
        }
        if (!strict) {
            return true;
        }
        if (problems.isEmpty()) {
            out.println(P + "strict mode: every test ran or is a known skip");
            return true;
        }
        out.println(P + "STRICT MODE FAILS: " + problems.size() + " test(s) did not run, or failed, without a known"
                + " reason (a known skip goes in " + known.file() + " with why it is a fact):");
        problems.forEach(p -> out.println(P + "  " + p));
        return false;
    }

    /** The modules of the reactor, in the root pom's order. */
    static List<String> modules(Path root) throws IOException {
        try (InputStream in = Files.newInputStream(root.resolve("pom.xml"))) {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            Element project = f.newDocumentBuilder().parse(in).getDocumentElement();
            List<String> out = new ArrayList<>();
            NodeList modules = project.getElementsByTagName("module");
            for (int i = 0; i < modules.getLength(); i++) {
                out.add(modules.item(i).getTextContent().strip());
            }
            return out;
        } catch (SAXException | ParserConfigurationException e) {
            throw new IOException("cannot read the modules of " + root.resolve("pom.xml") + ": " + e.getMessage(), e);
        }
    }
}
