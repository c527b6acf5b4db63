package example.fileserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The README's "Serving files" quotes {@link PlainJavaFileServerTest}: every region between
 * {@code // tag::name[]} and {@code // end::name[]} must appear in the README verbatim (indentation
 * removed), so the plain-Java example is code that compiles and runs.
 */
class ReadmeFileServerExampleTest {

    private static final Pattern REGION = Pattern.compile("// tag::([\\w-]+)\\[\\]\\n(.*?)\\n\\s*// end::\\1\\[\\]",
            Pattern.DOTALL);

    @Test
    void theReadmeQuotesThePlainJavaExampleVerbatim() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher m = REGION.matcher(Files.readString(Path.of("src", "test", "java", "example", "fileserver",
                "PlainJavaFileServerTest.java")));
        int regions = 0;
        while (m.find()) {
            regions++;
            String quoted = m.group(2).stripIndent();
            assertTrue(readme.contains(quoted), "README.md does not quote region '" + m.group(1) + "' verbatim:\n"
                    + quoted);
        }
        assertEquals(2, regions, "the start and the stop of the example");
    }
}
