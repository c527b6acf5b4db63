package smbdirect.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Every test or test class the JUnit Platform skips (disabled, or aborted by an assumption or a
 * missing judge) with its reason: written at once to the console ({@code [SKIPPED] class#test:
 * reason}) and appended to {@code target/skip-reasons/<pid>.tsv} of the module under test (one line
 * each: class, test or empty for the whole class, {@code disabled} or {@code aborted}, reason),
 * which the end-of-build summary (smbdirect.testreport) reads. Surefire's XML reports keep the
 * reason of a skipped test but lose that of a class whose {@code @BeforeAll} aborted: it shows as
 * a class that ran no test at all.
 *
 * <p>Registered through {@code META-INF/services}: active in every test JVM that has this jar on
 * its class path, whether or not a test calls {@link Judges}. Thread-safe.
 */
public final class SkipRecorder implements TestExecutionListener {

    /** Directory, under the module's {@code target}, of the records. */
    public static final String DIRECTORY = "skip-reasons";

    private final Path file = Paths.get(System.getProperty("basedir", ""), "target", DIRECTORY,
            ProcessHandle.current().pid() + ".tsv").toAbsolutePath();

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        record(test, "disabled", reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            record(test, "aborted", result.getThrowable().map(SkipRecorder::reason).orElse("aborted"));
        }
    }

    /** The reason of an abort: the exception's message without JUnit's "Assumption failed: ". */
    static String reason(Throwable t) {
        String m = String.valueOf(t.getMessage());
        return m.startsWith("Assumption failed: ") ? m.substring("Assumption failed: ".length()) : m;
    }

    private synchronized void record(TestIdentifier test, String kind, String reason) {
        TestSource source = test.getSource().orElse(null);
        String type;
        String name;
        if (source instanceof MethodSource m) {
            type = m.getClassName();
            name = test.getLegacyReportingName();
        } else if (source instanceof ClassSource c) {
            type = c.getClassName();
            name = "";
        } else {
            return; // an engine or other container without a class: nothing a report names
        }
        String oneLine = String.valueOf(reason).replace('\t', ' ').replace('\r', ' ').replace('\n', ' ');
        Console.println("[SKIPPED] " + type + (name.isEmpty() ? "" : "#" + name) + ": " + oneLine);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, type + "\t" + name + "\t" + kind + "\t" + oneLine + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("recording a skip in " + file + " failed", e);
        }
    }
}
