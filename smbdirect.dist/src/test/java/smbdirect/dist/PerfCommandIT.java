package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.perf.PerfOptions;

/**
 * {@code java -jar smbdirect.jar perf} as a shell user meets it: {@code --help} prints the usage
 * on standard output and exits 0, a bad option is one line on standard error and exit status 2, a
 * run prints its own lines only, and {@code -v} adds the runtime's log. Standard output and error
 * are captured apart, stdin is /dev/null, exactly as written (no system property given).
 */
class PerfCommandIT {

    /** A line of the runtime's log (date, time, level, thread) or of the JDK's logging. */
    private static final Pattern LOG_LINE = Pattern.compile(
            "(?m)^(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} |[A-Z][a-z]{2} \\d{1,2}, \\d{4} |INFO: |WARNING: )");

    @TempDir
    Path dir;

    /** What a finished command left: its exit status, standard output and standard error. */
    private record Run(int status, String out, String err) {
        @Override
        public String toString() {
            return "exit " + status + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Run run(String... args) throws Exception {
        return runIn(dir, args);
    }

    /** Runs {@code java -jar smbdirect.jar args} in {@code workDir}; its output is captured under {@link #dir}. */
    private Run runIn(Path workDir, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-jar");
        command.add(RuntimeProcess.jar().toAbsolutePath().toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "stdout-", ".txt");
        Path err = Files.createTempFile(dir, "stderr-", ".txt");
        Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("did not finish in 120 s: " + String.join(" ", args) + "\n"
                    + Files.readString(out, StandardCharsets.UTF_8) + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void perfHelpPrintsTheUsageAndEveryOptionOnStandardOutputAndExitsZero() throws Exception {
        for (String help : new String[] {"--help", "-h"}) {
            Run r = run("perf", help);
            assertEquals(0, r.status(), r.toString());
            assertTrue(r.out().startsWith("usage: java -jar smbdirect.jar "), r.toString());
            assertTrue(r.out().contains(PerfOptions.usage()), "every option with its text:\n" + r);
            assertFalse(LOG_LINE.matcher(r.out()).find(), "no log line:\n" + r);
            assertEquals("", r.err(), r.toString());
        }
    }

    @Test
    void theLaunchersHelpIsTheUsageAlone() throws Exception {
        Run r = run("--help");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().startsWith("usage: java -jar smbdirect.jar "), r.toString());
        assertFalse(LOG_LINE.matcher(r.out() + r.err()).find(), "no log line:\n" + r);
    }

    @Test
    void aBadOptionIsOneLineOnStandardErrorWithAHintAndExitStatusTwo() throws Exception {
        Run r = run("perf", "--sise", "1m");
        assertEquals(2, r.status(), r.toString());
        assertEquals("", r.out(), r.toString());
        assertEquals("perf: unknown perf option '--sise'; known: --size --count --duration --depth --direction "
                + "--connect --listen --provider --local --trace --trace-limit --timeout --warmup --connections "
                + "--verbose --help\n"
                + "perf --help lists the options\n", r.err(), r.toString());
        Run value = run("perf", "--direction", "sideways");
        assertEquals(2, value.status(), value.toString());
        assertTrue(value.err().startsWith("perf: --direction must be send, receive, pingpong, write or read, not "
                + "'sideways'\n"), value.toString());
    }

    @Test
    void aRunInAnEmptyDirectoryLeavesItEmpty() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Run r = runIn(empty, "perf", "--count", "300");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("server confirmed 300 messages"), r.toString());
        try (var left = Files.list(empty)) {
            assertEquals(List.of(), left.map(f -> f.getFileName().toString()).toList(), "what perf left in its directory");
        }
    }

    @Test
    void aRunPrintsOnlyItsOwnLinesAndVerboseAddsTheRuntimesLog() throws Exception {
        Run quiet = run("perf", "--count", "300", "--size", "4096");
        assertEquals(0, quiet.status(), quiet.toString());
        assertTrue(quiet.out().startsWith("perf: send 300 messages of 4096 B, depth 16 over mock"), quiet.toString());
        assertTrue(quiet.out().contains("server confirmed 300 messages, 1228800 bytes"), quiet.toString());
        for (String line : quiet.out().split("\n")) {
            assertTrue(line.startsWith("perf:") || line.startsWith("  "), "a line not of perf's own: " + line
                    + "\n" + quiet);
        }
        assertEquals("", quiet.err(), quiet.toString());

        Run verbose = run("perf", "--count", "300", "--size", "4096", "-v");
        assertEquals(0, verbose.status(), verbose.toString());
        String all = verbose.out() + verbose.err();
        assertTrue(LOG_LINE.matcher(all).find(), "the runtime's log with -v:\n" + verbose);
        assertTrue(all.contains("established: MaxSendSize="), verbose.toString());
        assertTrue(verbose.out().contains("server confirmed 300 messages, 1228800 bytes"), verbose.toString());
    }

    @Test
    void aRunOverIwarpInOneProcessServesItselfOnTheLocalAddressWithoutAnyConfiguration() throws Exception {
        Run r = run("perf", "--provider", "iwarp", "--local", "127.0.0.1", "--count", "200", "--size", "64k");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().startsWith("perf: send 200 messages of 65536 B, depth 16 over iwarp"), r.toString());
        assertTrue(r.out().contains("server confirmed 200 messages, 13107200 bytes"), r.toString());
        assertTrue(r.out().contains("  iwarp: CRC32C on"), "the connection's FPDU line:\n" + r);
        assertFalse(Files.exists(dir.resolve("etc").resolve("smbdirect.rdma.iwarp.cfg")),
                "the run's configuration is not written to etc/:\n" + r);
        assertEquals("", r.err(), r.toString());
    }
}
