package smbdirect.testreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-of-build summary over a made-up reactor: counts per module, every skip with its reason,
 * known skips told apart from the others, classes without a report from this build, and in strict
 * mode a failed build for anything not known.
 */
class TestReportTest {

    private static final Instant START = Instant.parse("2026-01-02T03:04:05Z");

    @TempDir
    Path root;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    private void write(String relative, String text) throws IOException {
        Path p = root.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.UTF_8);
        Files.setLastModifiedTime(p, FileTime.from(START.plusSeconds(60)));
    }

    private void reactor(String... modules) throws IOException {
        StringBuilder pom = new StringBuilder("<project><modules>");
        for (String m : modules) {
            pom.append("<module>").append(m).append("</module>");
        }
        write("pom.xml", pom.append("</modules></project>").toString());
    }

    private static String suite(String name, String... cases) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" + name + "\" tests=\"" + cases.length
                + "\">" + String.join("", cases) + "</testsuite>";
    }

    private static String passed(String cls, String test) {
        return "<testcase name=\"" + test + "\" classname=\"" + cls + "\"/>";
    }

    private static String skipped(String cls, String test, String message) {
        return "<testcase name=\"" + test + "\" classname=\"" + cls + "\"><skipped message=\"" + message
                + "\"/></testcase>";
    }

    private static String aborted(String cls, String test, String trace) {
        return "<testcase name=\"" + test + "\" classname=\"" + cls + "\"><skipped type=\"x\"><![CDATA[" + trace
                + "]]></skipped></testcase>";
    }

    private boolean report(String knownSkips, boolean strict) throws IOException {
        write("known-skips.txt", knownSkips);
        KnownSkips known = KnownSkips.read(root.resolve("known-skips.txt"));
        return new TestReport(root, known, START, strict, false, "",
                new PrintStream(printed, true, StandardCharsets.UTF_8)).run();
    }

    private String printed() {
        return printed.toString(StandardCharsets.UTF_8);
    }

    private void aModuleWithASkipAndAClassThatRanNothing() throws IOException {
        reactor("m1", "m2");
        write("m1/src/test/java/a/OneTest.java", "package a; class OneTest {}");
        write("m1/src/test/java/a/TwoTest.java", "package a; class TwoTest {}");
        write("m1/src/test/java/a/BaseTest.java", "package a; abstract class BaseTest {}");
        write("m1/src/test/java/a/Helper.java", "package a; class Helper {}");
        write("m1/target/surefire-reports/TEST-a.OneTest.xml", suite("a.OneTest", passed("a.OneTest", "works"),
                skipped("a.OneTest", "limits", "DiSNI 2.0 has no rdma_reject"),
                aborted("a.OneTest", "tool", "org.opentest4j.TestAbortedException: Assumption failed: tshark not on PATH\n"
                        + "\tat a.OneTest.tool(OneTest.java:9)")));
        write("m1/target/surefire-reports/TEST-a.TwoTest.xml", "<testsuite name=\"a.TwoTest\" tests=\"0\"/>");
        write("m1/target/skip-reasons/123.tsv", "a.TwoTest\t\taborted\tno siw VM: not root\n");
        write("m2/src/test/java/b/ThreeIT.java", "package b; class ThreeIT {}");
    }

    @Test
    void everySkipIsListedWithItsReasonAndWhetherItIsKnown() throws IOException {
        aModuleWithASkipAndAClassThatRanNothing();
        assertTrue(report("m1:a.OneTest#limits | DiSNI 2.0 has no | a limit of the library, not of this machine\n",
                false), printed());
        String out = printed();
        assertTrue(out.contains("m1                                2        1        0        3"), out);
        assertTrue(out.contains("m1: a.OneTest#limits: DiSNI 2.0 has no rdma_reject  [known skip, known-skips.txt:1]"),
                out);
        assertTrue(out.contains("m1: a.OneTest#tool: tshark not on PATH  [NOT A KNOWN SKIP]"), out);
        assertTrue(out.contains("m1: a.TwoTest (the whole class): no siw VM: not root  [NOT A KNOWN SKIP]"), out);
        assertTrue(out.contains("test classes without a report from this build (1):"), out);
        assertTrue(out.contains("m2: b.ThreeIT"), out);
        assertFalse(out.contains("BaseTest") || out.contains("Helper"), out);
    }

    @Test
    void strictModeFailsOnAnUnknownSkipAndAClassWithoutAReportNamingEach() throws IOException {
        aModuleWithASkipAndAClassThatRanNothing();
        assertFalse(report("m1:a.OneTest#limits | DiSNI 2.0 has no | a limit of the library\n", true), printed());
        String out = printed();
        assertTrue(out.contains("STRICT MODE FAILS: 3 test(s)"), out);
        assertTrue(out.contains("m1: a.OneTest#tool skipped: tshark not on PATH"), out);
        assertTrue(out.contains("m1: a.TwoTest (the whole class) skipped: no siw VM: not root"), out);
        assertTrue(out.contains("m2: b.ThreeIT has no report from this build"), out);
    }

    @Test
    void strictModePassesWhenEverySkipAndEveryMissingReportIsKnown() throws IOException {
        aModuleWithASkipAndAClassThatRanNothing();
        assertTrue(report("""
                # facts
                m1:a.*Test#limits | DiSNI 2.0 | a limit of the library
                m1:a.OneTest#tool | tshark | (made up for the test)
                m1:a.TwoTest | no siw VM | (made up for the test)
                m2:b.Three* | (no report) | run by a profile of its own
                m9:z.Gone | whatever | never seen
                """, true), printed());
        String out = printed();
        assertTrue(out.contains("strict mode: every test ran or is a known skip"), out);
        assertTrue(out.contains("listed in known-skips.txt:6 but not seen in this build: m9:z.Gone"), out);
    }

    @Test
    void aKnownTestSkippedForAnotherReasonIsNotKnown() throws IOException {
        aModuleWithASkipAndAClassThatRanNothing();
        assertFalse(report("m1:a.OneTest#* | DiSNI 2.0 has no | a limit of the library\n"
                + "m1:a.TwoTest | the provider reports | a capability\nm2:b.ThreeIT | (no report) | a profile\n",
                true), printed());
        assertTrue(printed().contains("STRICT MODE FAILS: 2 test(s)"), printed());
    }

    @Test
    void reportsFromAnEarlierBuildDoNotCount() throws IOException {
        reactor("m1");
        write("m1/src/test/java/a/OneTest.java", "package a; class OneTest {}");
        write("m1/target/surefire-reports/TEST-a.OneTest.xml", suite("a.OneTest", passed("a.OneTest", "works")));
        Files.setLastModifiedTime(root.resolve("m1/target/surefire-reports/TEST-a.OneTest.xml"),
                FileTime.from(START.minusSeconds(1)));
        assertFalse(report("", true), printed());
        assertTrue(printed().contains("m1: 1 report(s) from an earlier build left aside"), printed());
        assertTrue(printed().contains("m1: a.OneTest has no report from this build"), printed());
    }

    @Test
    void skippingTheTestsFailsOnlyInStrictMode() throws IOException {
        reactor("m1");
        write("known-skips.txt", "");
        KnownSkips known = KnownSkips.read(root.resolve("known-skips.txt"));
        PrintStream ps = new PrintStream(printed, true, StandardCharsets.UTF_8);
        assertTrue(new TestReport(root, known, START, false, true, "", ps).run());
        assertFalse(new TestReport(root, known, START, true, true, "", ps).run());
        assertTrue(printed().contains("strict mode runs every test; drop -DskipTests"), printed());
    }

    @Test
    void aMalformedListLineIsRefusedWithItsNumber() throws IOException {
        write("known-skips.txt", "# comment\n\nm1:a.OneTest | a reason\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KnownSkips.read(root.resolve("known-skips.txt")));
        assertTrue(e.getMessage().contains("known-skips.txt:3: "), e.getMessage());
    }

    @Test
    void globsStandForAnyCharacters() {
        assertTrue(KnownSkips.glob("m:*.Verbs*ModeContractTest#connect*").matcher(
                "m:smbdirect.rdma.verbs.internal.loopback.VerbsEventModeContractTest#connectPrivateData").matches());
        assertFalse(KnownSkips.glob("m:a.B#c").matcher("m:a.B#cd").matches());
        assertTrue(KnownSkips.glob("m:a.B(x)#c[1]").matcher("m:a.B(x)#c[1]").matches());
    }

    @Test
    void theModulesAreTheRootPomsInItsOrder() throws IOException {
        reactor("z", "a", "m");
        assertEquals(List.of("z", "a", "m"), TestReport.modules(root));
    }
}
