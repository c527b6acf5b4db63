package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clean first start of the appliance, run as a process the way a service manager runs it (input
 * closed): not one WARN or ERROR line, every log line in the one format, the same lines in the log
 * file under the home, and the generated password nowhere in the output.
 */
class QuietStartIT {

    /** The runtime's one line format (etc/logback.xml): date, time, level, thread, logger, message. */
    static final Pattern LOG_LINE = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} (TRACE|DEBUG|INFO |WARN |ERROR) \\[[^\\]]+\\] \\S+ - .*");
    /** What the banner prints (its lines start with two spaces, or are its title or empty). */
    static final Pattern BANNER_LINE = Pattern.compile("(|SMB Direct runtime is up\\.|  [A-Z][A-Za-z ]+: .*)");

    @TempDir
    Path home;

    /**
     * What the JVM itself prints on JDK 24 and later without {@code --sun-misc-unsafe-memory-access=allow}
     * (JEP 498), once per process: the Felix framework's {@code SecureAction} calls
     * {@code sun.misc.Unsafe::staticFieldOffset} in its static initializer, when the launcher first
     * touches the framework class and before any framework property is read, to reach
     * {@code MethodHandles.Lookup.IMPL_LOOKUP} for its URL handler support. No property avoids it.
     */
    static final List<String> JVM_UNSAFE_WARNING = List.of(
            "WARNING: A terminally deprecated method in sun.misc.Unsafe has been called",
            "WARNING: sun.misc.Unsafe::staticFieldOffset has been called by org.apache.felix.framework.util.SecureAction (",
            "WARNING: Please consider reporting this to the maintainers of class org.apache.felix.framework.util.SecureAction",
            "WARNING: sun.misc.Unsafe::staticFieldOffset will be removed in a future release");

    @Test
    void aCleanFirstStartLogsNoWarningOrErrorInOneFormatToTheConsoleAndTheLogFile() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            assertQuietStart(runtime, List.of());
        }
    }

    /**
     * The same on JDK 25 with {@code --sun-misc-unsafe-memory-access=allow} given: no relaunch, one JVM.
     */
    @Test
    void aCleanFirstStartOnJdk25IsAsQuiet() throws Exception {
        Path jdk = RuntimeOnJdk25IT.jdk25();
        try (RuntimeProcess runtime = RuntimeProcess.startOn(jdk, home, List.of("--sun-misc-unsafe-memory-access=allow"))) {
            runtime.awaitUp(Duration.ofSeconds(60));
            assertEquals(List.of(), ProcessHandle.of(runtime.pid()).orElseThrow().children().toList(), "no relaunch");
            assertQuietStart(runtime, List.of());
        }
    }

    /**
     * On JDK 25 started as on JDK 17, without the option: the launcher runs the runtime in a second
     * JVM with {@code --sun-misc-unsafe-memory-access=allow} (the JVM's own warning about the Felix
     * framework's {@code sun.misc.Unsafe} call needs that option, which JDK 17 refuses and a jar's
     * manifest cannot carry), so the start is as quiet; SIGTERM to the process that was started
     * stops the runtime in order, its status 0, and no JVM is left. When a Felix release stops
     * calling {@code sun.misc.Unsafe}, the relaunch and this test's first part can go.
     */
    @Test
    void onJdk25WithoutTheOptionTheLauncherRelaunchesWithItAndTheStartIsAsQuiet() throws Exception {
        Path jdk = RuntimeOnJdk25IT.jdk25();
        try (RuntimeProcess runtime = RuntimeProcess.startOn(jdk, home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            List<ProcessHandle> relaunched = ProcessHandle.of(runtime.pid()).orElseThrow().children().toList();
            assertEquals(1, relaunched.size(), "one relaunched JVM: " + relaunched);
            List<String> arguments = relaunched.get(0).info().arguments().map(List::of).orElse(List.of());
            assertTrue(arguments.contains("--sun-misc-unsafe-memory-access=allow"), arguments.toString());
            assertTrue(arguments.contains("-Dsmbdirect.relaunchedBy=" + runtime.pid()), arguments.toString());
            assertQuietStart(runtime, List.of());
            assertTrue(relaunched.get(0).onExit().get(30, java.util.concurrent.TimeUnit.SECONDS) != null
                    && !relaunched.get(0).isAlive(), "the relaunched JVM ended with the launcher");
        }
    }

    /**
     * On JDK 25 with the relaunch turned off ({@code -Dsmbdirect.relaunch=false}) the only lines beyond
     * the log and the banner are the JVM's own four about the Felix framework's {@code sun.misc.Unsafe}
     * call: what the relaunch avoids, and nothing else warns. When a Felix release stops calling it,
     * this fails: then the relaunch goes.
     */
    @Test
    void onJdk25WithoutTheRelaunchTheJvmsWarningAboutFelixsUnsafeCallIsTheOnlyOne() throws Exception {
        Path jdk = RuntimeOnJdk25IT.jdk25();
        try (RuntimeProcess runtime = RuntimeProcess.startOn(jdk, home, List.of("-Dsmbdirect.relaunch=false"))) {
            assertQuietStart(runtime, JVM_UNSAFE_WARNING);
        }
    }

    /** On JDK 25 a killed launcher leaves no runtime behind: the relaunched JVM stops itself. */
    @Test
    void onJdk25TheRelaunchedRuntimeStopsWhenItsLauncherIsKilled() throws Exception {
        Path jdk = RuntimeOnJdk25IT.jdk25();
        try (RuntimeProcess runtime = RuntimeProcess.startOn(jdk, home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            ProcessHandle child = ProcessHandle.of(runtime.pid()).orElseThrow().children().findFirst().orElseThrow();
            runtime.process.destroyForcibly().waitFor();
            child.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertFalse(child.isAlive(), "the relaunched JVM stopped after its launcher was killed");
            String out = runtime.output();
            assertTrue(out.contains("stopping the runtime"), out);
        }
    }

    /**
     * A clean first start: no WARN or ERROR line; besides the log (one format) and the banner, only
     * the lines starting with {@code jvmLines}, in that order (the JVM's own, printed before the log).
     */
    private void assertQuietStart(RuntimeProcess started, List<String> jvmLines) throws Exception {
        String out;
        try (RuntimeProcess runtime = started) {
            runtime.awaitUp(Duration.ofSeconds(60));
            runtime.awaitOutput("verbs RDMA provider", Duration.ofSeconds(30)); // the last bundle to report
            String password = runtime.generatedPassword();
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
            out = runtime.output();
            assertFalse(out.contains(password), "the generated password is not printed:\n" + out);
        }
        List<String> foreign = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!LOG_LINE.matcher(line).matches() && !BANNER_LINE.matcher(line).matches()) {
                foreign.add(line);
            }
            assertFalse(line.contains(" WARN ") || line.contains(" ERROR "), "a clean start warns of nothing: " + line
                    + "\n" + out);
        }
        assertEquals(jvmLines.size(), foreign.size(), "lines neither in the log format nor the banner's:\n" + out);
        for (int i = 0; i < jvmLines.size(); i++) {
            assertTrue(foreign.get(i).startsWith(jvmLines.get(i)), "the JVM's line\n" + jvmLines.get(i) + "\nbut\n"
                    + foreign.get(i) + "\n" + out);
        }
        assertTrue(out.contains(" INFO  [main] smbdirect.dist.ApplianceMain - stopping the runtime (SIGTERM)"), out);

        Path log = home.resolve("data/log/smbdirect.log");
        String file = Files.readString(log);
        for (String line : file.split("\n")) {
            assertTrue(LOG_LINE.matcher(line).matches(), "log file line in another format: " + line);
        }
        assertTrue(file.contains("First start: the transport defaults written to etc/smbdirect.transport.cfg"), file);
        assertTrue(file.contains("stopping the runtime (SIGTERM)"), file);
        assertTrue(Files.readString(home.resolve("etc/logback.xml")).contains("data/log/smbdirect.log"),
                "the operator's logging configuration is in etc/");
    }
}
