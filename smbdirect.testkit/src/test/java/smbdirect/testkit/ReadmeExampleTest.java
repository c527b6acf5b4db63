package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The README quotes example tests: every region between {@code // tag::name[]} and
 * {@code // end::name[]} of {@link SmbServerOverSmbDirectTest} ("Testing an SMB server over SMB
 * Direct") and of {@code example.smbserver.TwoTransportsInOneJvmTest} ("Without OSGi") must appear in
 * the README verbatim (indentation removed), so the guide shows code that compiles and passes.
 */
class ReadmeExampleTest {

    private static final Pattern REGION = Pattern.compile("// tag::([\\w-]+)\\[\\]\\n(.*?)\\n\\s*// end::\\1\\[\\]",
            Pattern.DOTALL);

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
