package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The README quotes example tests: every region between {@code // tag::name[]} and
 * {@code // end::name[]} of {@link SmbServerOverSmbDirectTest} ("Testing an SMB server over SMB
 * Direct"), of {@code example.smbserver.TwoTransportsInOneJvmTest} ("Without OSGi") and of
 * {@code example.smbserver.ReadmeSnippetsTest} ("Using the transport", "Without OSGi") must appear in
 * the README verbatim (indentation removed), and every {@code java} block of the README must be such a
 * region, so the guide shows only code that compiles and passes.
 */
class ReadmeExampleTest {

    private static final Pattern REGION = Pattern.compile("// tag::([\\w-]+)\\[\\]\\n(.*?)\\n\\s*// end::\\1\\[\\]",
            Pattern.DOTALL);
    /** A fenced {@code java} block of the README, without its fences. */
    private static final Pattern JAVA_BLOCK = Pattern.compile("^```java\\n(.*?)\\n```$", Pattern.DOTALL | Pattern.MULTILINE);

    @Test
    void theGuideQuotesTheKitExampleVerbatim() throws Exception {
        assertTrue(quotedRegions(Path.of("src", "test", "java", "smbdirect", "testkit",
                "SmbServerOverSmbDirectTest.java")) >= 4, "the example test has its tagged regions");
    }

    @Test
    void theGuideQuotesThePlainJavaExampleVerbatim() throws Exception {
        assertTrue(quotedRegions(Path.of("src", "test", "java", "example", "smbserver",
                "TwoTransportsInOneJvmTest.java")) >= 1, "the example test has its tagged region");
    }

    @Test
    void theGuideQuotesTheShortSnippetsVerbatim() throws Exception {
        assertTrue(quotedRegions(Path.of("src", "test", "java", "example", "smbserver",
                "ReadmeSnippetsTest.java")) >= 2, "the snippets test has its tagged regions");
    }

    /**
     * The other direction: each {@code java} block of the README is a tagged region of a test of one of
     * the repository's modules (this one's, or the file server's for its plain-Java example), or several,
     * one after another with a blank line between, so no snippet in the guide goes uncompiled or unrun.
     */
    @Test
    void everyJavaBlockOfTheReadmeIsARegionOfATestTheBuildRuns() throws Exception {
        List<String> regions = new ArrayList<>();
        List<Path> testTrees = new ArrayList<>();
        try (Stream<Path> modules = Files.list(Path.of(".."))) {
            modules.map(m -> m.resolve(Path.of("src", "test", "java"))).filter(Files::isDirectory).forEach(testTrees::add);
        }
        for (Path tree : testTrees) {
            try (Stream<Path> files = Files.walk(tree)) {
                for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith("Test.java"))::iterator) {
                    Matcher m = REGION.matcher(Files.readString(f));
                    while (m.find()) {
                        regions.add(m.group(2).stripIndent());
                    }
                }
            }
        }
        Matcher block = JAVA_BLOCK.matcher(Files.readString(Path.of("..", "README.md")));
        int blocks = 0;
        List<String> unchecked = new ArrayList<>();
        while (block.find()) {
            blocks++;
            if (!isRegions(block.group(1), regions)) {
                unchecked.add(block.group(1));
            }
        }
        assertTrue(blocks >= 6, "the README's java blocks: " + blocks);
        assertEquals(List.of(), unchecked, "java blocks of README.md that no test's tagged region holds");
    }

    /** Whether {@code block} is one region or several, each after a blank line. */
    private static boolean isRegions(String block, List<String> regions) {
        if (regions.contains(block)) {
            return true;
        }
        for (String r : regions) {
            if (block.startsWith(r + "\n\n") && isRegions(block.substring(r.length() + 2), regions)) {
                return true;
            }
        }
        return false;
    }

    /** Checks every tagged region of {@code test} against the README; returns how many there are. */
    private static int quotedRegions(Path test) throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher m = REGION.matcher(Files.readString(test));
        int regions = 0;
        while (m.find()) {
            regions++;
            String quoted = m.group(2).stripIndent();
            assertTrue(readme.contains(quoted), "README.md does not quote region '" + m.group(1) + "' of "
                    + test.getFileName() + " verbatim:\n" + quoted);
        }
        return regions;
    }
}
