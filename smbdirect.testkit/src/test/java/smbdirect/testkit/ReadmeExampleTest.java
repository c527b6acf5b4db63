package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The README's "Testing an SMB server over SMB Direct" quotes {@link SmbServerOverSmbDirectTest}:
 * every region between {@code // tag::name[]} and {@code // end::name[]} must appear in the README
 * verbatim (indentation removed), so the guide shows code that compiles and passes.
 */
class ReadmeExampleTest {

    @Test
    void theGuideQuotesTheExampleTestVerbatim() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String test = Files.readString(
                Path.of("src", "test", "java", "smbdirect", "testkit", "SmbServerOverSmbDirectTest.java"));
        Matcher m = Pattern.compile("// tag::(\\w+)\\[\\]\\n(.*?)\\n\\s*// end::\\1\\[\\]", Pattern.DOTALL).matcher(test);
        int regions = 0;
        while (m.find()) {
            regions++;
            String quoted = m.group(2).stripIndent();
            assertTrue(readme.contains(quoted), "README.md does not quote region '" + m.group(1) + "' of "
                    + "SmbServerOverSmbDirectTest verbatim:\n" + quoted);
        }
        assertTrue(regions >= 4, "the example test has its tagged regions");
    }
}
