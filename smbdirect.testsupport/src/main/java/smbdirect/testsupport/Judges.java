package smbdirect.testsupport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * What a test does when an outside judge it needs is missing: a tool (tshark, dumpcap's right to
 * capture, Chromium, QEMU, gcc), the siw VM image, a JDK, a permission or a kernel facility.
 *
 * <p>In strict mode the test <em>fails</em> with the reason: a judge that does not run is a
 * failure. Strict mode is on when the system property {@value #STRICT_PROPERTY} is {@code true}
 * (the build passes it to every test JVM, from {@code -Dsmbdirect.strict=true} or the environment
 * variable {@value #STRICT_ENV}{@code =1} that {@code .ci/run} sets), or, where no such property
 * was passed (a test started from an IDE), when that environment variable is set.
 *
 * <p>Otherwise (a developer's machine) the test is skipped (JUnit: aborted) with the reason, which
 * {@link SkipRecorder} writes to the console at once (also where test output goes to files) and
 * records for the end of the build, which lists every skip again (smbdirect.testreport).
 *
 * <p>Skips that are facts rather than missing judges (a provider's documented limits) do not go
 * through here: they are plain JUnit assumptions, each listed with its reason in
 * {@code smbdirect.testreport/known-skips.txt}. Static methods, thread-safe.
 */
public final class Judges {

    /** System property: {@code true} makes a missing judge fail the test. */
    public static final String STRICT_PROPERTY = "smbdirect.strict";
    /** Environment variable: {@code 1} (or {@code true}) makes a missing judge fail the test. */
    public static final String STRICT_ENV = "SMBDIRECT_STRICT";

    private Judges() {
    }

    /** Whether a missing judge fails the test (CI) rather than skipping it. */
    public static boolean strict() {
        String property = System.getProperty(STRICT_PROPERTY);
        if (property != null && !property.isBlank()) {
            return isTrue(property, "-D" + STRICT_PROPERTY);
        }
        String env = System.getenv(STRICT_ENV);
        return env != null && !env.isBlank() && isTrue(env, STRICT_ENV);
    }

    private static boolean isTrue(String value, String source) {
        switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "1":
            case "true":
                return true;
            case "0":
            case "false":
                return false;
            default:
                throw new IllegalArgumentException(source + "=" + value + " is neither true (1) nor false (0)");
        }
    }

    /** Unless {@code present}: the judge {@code why} names is missing ({@link #missing}). */
    public static void require(boolean present, String why) {
        if (!present) {
            throw missing(why);
        }
    }

    /**
     * A judge is missing, for the reason {@code why} (one line: what is missing and how to get it).
     * Never returns normally: in strict mode it throws an {@link AssertionFailedError} (the test
     * fails), otherwise it throws a {@link TestAbortedException} (the test is skipped; the reason
     * reaches the console through {@link SkipRecorder}). Declared to return the exception so that a
     * caller can write {@code throw Judges.missing(...)}.
     */
    public static RuntimeException missing(String why) {
        if (strict()) {
            throw new AssertionFailedError("missing judge: " + why + " (strict mode: " + STRICT_ENV + "=1 or -D"
                    + STRICT_PROPERTY + "=true; a test that cannot run fails)");
        }
        throw new TestAbortedException(why);
    }

    /**
     * Says on the console what an outside judge checked ({@code [judge] <test class>: <what>}), in
     * the same way as a skip's reason: one line, shown even where test output goes to files.
     */
    public static void report(String what) {
        Console.println("[judge] " + callingTest() + ": " + what);
    }

    /** An executable file of that name on {@code PATH}, if there is one. */
    public static Optional<Path> onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, command);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * The executable {@code command} on {@code PATH}; where there is none, the judge is
     * {@link #missing} with {@code install} (how to get it, such as {@code apt-get install tshark}).
     */
    public static Path tool(String command, String install) {
        return onPath(command).orElseThrow(() -> missing(command + " not on PATH (" + install + ")"));
    }

    /** The test class that called, for the console line: the outermost frame of a class named *Test or *IT. */
    private static String callingTest() {
        return StackWalker.getInstance().walk(frames -> {
            String found = null;
            String first = null;
            for (StackWalker.StackFrame f : (Iterable<StackWalker.StackFrame>) frames::iterator) {
                String c = f.getClassName();
                if (c.equals(Judges.class.getName())) {
                    continue;
                }
                if (first == null) {
                    first = c;
                }
                String simple = c.substring(c.lastIndexOf('.') + 1);
                int nested = simple.indexOf('$');
                String outer = nested < 0 ? simple : simple.substring(0, nested);
                if (outer.endsWith("Test") || outer.endsWith("IT")) {
                    found = nested < 0 ? c : c.substring(0, c.length() - simple.length() + nested);
                }
            }
            return found != null ? found : String.valueOf(first);
        });
    }
}
