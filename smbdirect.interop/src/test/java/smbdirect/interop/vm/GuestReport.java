package smbdirect.interop.vm;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The JUnit XML report of one guest JVM ({@link GuestJUnit.Launch}), read back from the VM's
 * console, where the guest printed it gzip'd and base64'd between two marker lines. Each test case
 * becomes a host-side {@link DynamicTest} that passes, fails with the guest's message and stack
 * trace, or is skipped with the guest's reason, grouped by test class; a missing or empty report is
 * a failing test that names the console log. Immutable.
 */
public final class GuestReport {

    /** One test case as the guest's JUnit reported it. */
    public record TestCase(String className, String name, Outcome outcome, String message, String detail,
            double seconds) {
    }

    /** How a guest test ended. */
    public enum Outcome {
        PASSED, FAILED, SKIPPED
    }

    private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/=]+");

    private final String launch;
    private final List<TestCase> cases;
    private final String problem;
    private final SiwVmResult result;

    private GuestReport(String launch, List<TestCase> cases, String problem, SiwVmResult result) {
        this.launch = launch;
        this.cases = List.copyOf(cases);
        this.problem = problem;
        this.result = result;
    }

    static String begin(String launch) {
        return "=== GUEST REPORT " + launch + " BEGIN ===";
    }

    static String end(String launch) {
        return "=== GUEST REPORT " + launch + " END ===";
    }

    /** The report of launch {@code launch} in {@code result}'s console. */
    public static GuestReport of(String launch, SiwVmResult result) {
        StringBuilder b64 = new StringBuilder();
        boolean in = false;
        boolean ended = false;
        for (String line : result.console()) {
            if (line.contains(begin(launch))) {
                in = true;
            } else if (line.contains(end(launch))) {
                ended = in;
                break;
            } else if (in && BASE64.matcher(line.strip()).matches()) {
                b64.append(line.strip());
            }
        }
        if (!ended) {
            return new GuestReport(launch, List.of(), "the guest printed no report for " + launch
                    + " (the VM ended with exit " + result.exitCode() + " before it)", result);
        }
        if (b64.length() == 0) {
            return new GuestReport(launch, List.of(), "the guest JVM " + launch + " wrote no JUnit report ("
                    + guestJvmEnd(launch, result) + ")", result);
        }
        try (InputStream in2 = new GZIPInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(b64.toString())))) {
            return new GuestReport(launch, parse(in2), null, result);
        } catch (IOException | IllegalArgumentException | SAXException | ParserConfigurationException e) {
            return new GuestReport(launch, List.of(), "the report of " + launch + " could not be read: " + e, result);
        }
    }

    /** The guest JVM's exit line ("rc=N"), or a note that it has none. */
    private static String guestJvmEnd(String launch, SiwVmResult result) {
        String prefix = "=== GUEST JUNIT " + launch + " END ";
        return result.console().stream().filter(l -> l.contains(prefix)).findFirst()
                .map(l -> "JVM " + l.substring(l.indexOf(prefix) + prefix.length()).replace(" ===", "").strip())
                .orElse("JVM end not printed");
    }

    static List<TestCase> parse(InputStream xml) throws IOException, SAXException, ParserConfigurationException {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document d = f.newDocumentBuilder().parse(xml);
        NodeList nodes = d.getElementsByTagName("testcase");
        List<TestCase> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            Outcome outcome = Outcome.PASSED;
            String message = "";
            String detail = "";
            for (String tag : List.of("failure", "error", "skipped")) {
                NodeList c = e.getElementsByTagName(tag);
                if (c.getLength() > 0) {
                    Element x = (Element) c.item(0);
                    outcome = tag.equals("skipped") ? Outcome.SKIPPED : Outcome.FAILED;
                    message = x.getAttribute("message");
                    detail = x.getTextContent().strip();
                    if (message.isEmpty() && outcome == Outcome.SKIPPED) {
                        // JUnit's legacy XML leaves a disabled test's reason out: say so rather than nothing
                        message = detail.isEmpty() ? "no reason in the guest's report" : detail;
                    }
                    break;
                }
            }
            double seconds = 0;
            try {
                seconds = Double.parseDouble(e.getAttribute("time"));
            } catch (NumberFormatException ignored) {
                // no time given
            }
            out.add(new TestCase(e.getAttribute("classname"), e.getAttribute("name"), outcome, message, detail,
                    seconds));
        }
        return out;
    }

    /** The test cases, in report order (empty when there is no report). */
    public List<TestCase> cases() {
        return cases;
    }

    /** Why there are no test cases, or null. */
    public String problem() {
        return problem;
    }

    /** Counts as "N passed, N failed, N skipped". */
    public String summary() {
        return count(Outcome.PASSED) + " passed, " + count(Outcome.FAILED) + " failed, " + count(Outcome.SKIPPED)
                + " skipped";
    }

    public long count(Outcome o) {
        return cases.stream().filter(c -> c.outcome() == o).count();
    }

    /**
     * One host-side test per guest test, named {@code prefix + SimpleClassName.method()}; a single
     * failing test when the report is missing or lists no test.
     */
    public Stream<DynamicNode> tests(String prefix) {
        if (problem != null || cases.isEmpty()) {
            String why = problem != null ? problem : "the guest JVM " + launch + " ran no test";
            return Stream.of(DynamicTest.dynamicTest(prefix + launch + ": the guest's JUnit report", () -> {
                throw new AssertionError(why + "\n" + result.tail(60));
            }));
        }
        return cases.stream().map(c -> DynamicTest.dynamicTest(
                prefix + c.className().substring(c.className().lastIndexOf('.') + 1) + "." + c.name(), () -> check(c)));
    }

    private void check(TestCase c) {
        switch (c.outcome()) {
            case PASSED -> {
            }
            case SKIPPED -> Assumptions.abort("skipped in the guest: " + c.message());
            case FAILED -> throw new AssertionError("in the guest (" + launch + "): " + c.message() + "\n" + c.detail()
                    + "\n(console log: " + result.consoleLog() + ")");
        }
    }
}
