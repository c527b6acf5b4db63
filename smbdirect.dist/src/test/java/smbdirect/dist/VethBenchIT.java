package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.testsupport.Judges;

/**
 * {@code tools/veth-bench.sh}, the benchmark between two network stacks, run as its users run it
 * (as root, one command), briefly: it measures iperf3 and perf across a veth pair of two namespaces
 * it creates, prints each ratio and the FPDU size, and leaves no namespace, link or process behind,
 * also when SIGINT or SIGTERM stops it, and after a run killed with SIGKILL the next one still runs
 * and removes what that run left; a provider setting given with {@code --iwarp} reaches both ends, and a malformed
 * one is refused. Needs root, iproute2 and iperf3 (a missing one is reported through Judges: a failure in strict mode).
 */
class VethBenchIT {

    private static final Path SCRIPT = Path.of("../tools/veth-bench.sh").toAbsolutePath().normalize();
    private static final Pattern NAMESPACES = Pattern.compile("namespaces (sdb\\d+a) and (sdb\\d+b)");

    @TempDir
    Path dir;

    @BeforeAll
    static void rootWithIpAndIperf3() throws Exception {
        assertTrue(Files.isExecutable(SCRIPT), "no executable " + SCRIPT);
        Judges.require("0".equals(output("id", "-u").trim()), "the veth benchmark needs root (ip netns)");
        Judges.tool("iperf3", "apt-get install iperf3");
        Judges.require(exit("ip", "netns", "list") == 0, "the veth benchmark needs iproute2 with network namespaces");
    }

    private static String output(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    private static int exit(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    /**
     * The script with {@code options}, in {@code dir}, output (both streams) to a file. It starts with
     * SIGINT at its default disposition, as from a shell user's terminal: a build started in the
     * background of a non-interactive shell runs with SIGINT ignored, every child inherits that, and
     * bash cannot trap a signal ignored when it started.
     */
    private Process start(Path log, String... options) throws IOException {
        List<String> command = new ArrayList<>();
        command.add("env");
        command.add("--default-signal=INT");
        command.add(SCRIPT.toString());
        command.add("--jar");
        command.add(RuntimeProcess.jar().toAbsolutePath().toString());
        command.addAll(List.of(options));
        ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        b.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return b.start();
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** Waits until the log shows {@code text}; the names of the run's namespaces. */
    private static String[] await(Process p, Path log, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!read(log).contains(text)) {
            assertTrue(p.isAlive(), "the script ended before '" + text + "':\n" + read(log));
            assertTrue(System.nanoTime() < deadline, "no '" + text + "' within 180 s:\n" + read(log));
            TimeUnit.MILLISECONDS.sleep(100);
        }
        Matcher m = NAMESPACES.matcher(read(log));
        assertTrue(m.find(), read(log));
        return new String[] {m.group(1), m.group(2)};
    }

    /** Nothing of a run with these namespaces is left: no namespace, no link named after it. */
    private static void nothingLeft(String[] namespaces, String log) throws Exception {
        String netns = output("ip", "netns", "list");
        String links = output("ip", "-o", "link");
        String prefix = namespaces[0].substring(0, namespaces[0].length() - 1);
        for (String ns : namespaces) {
            assertFalse(netns.contains(ns), ns + " left behind:\n" + netns + "\n" + log);
        }
        assertFalse(links.contains(prefix), "a link " + prefix + "* left behind:\n" + links + "\n" + log);
    }

    /** Nothing is left of the run whose output {@code out} names its namespaces. */
    private static void nothingLeftOf(String out) throws Exception {
        Matcher m = NAMESPACES.matcher(out);
        assertTrue(m.find(), out);
        nothingLeft(new String[] {m.group(1), m.group(2)}, out);
    }

    /** Waits up to {@code seconds} for the script to end with {@code exit}; its output. */
    private static String finished(Process p, Path log, int seconds, int exit) throws Exception {
        assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), "did not finish:\n" + read(log));
        String out = read(log);
        assertEquals(exit, p.exitValue(), out);
        return out;
    }

    @Test
    void aShortRunPrintsTheFloorEachRatioAndTheFpduSizeAndLeavesNothingBehind() throws Exception {
        Path log = dir.resolve("run.log");
        Path tsv = dir.resolve("figures.tsv");
        Process p = start(log, "--rounds", "1", "--seconds", "2", "--warmup", "1", "--mtu", "1500", "--workloads",
                "write send-8192", "--out", tsv.toString());
        String out = finished(p, log, 300, 0);
        assertTrue(Pattern.compile("round 1, MTU 1500: iperf3 [0-9.]+ MB/s\n").matcher(out).find(), out);
        assertTrue(Pattern.compile("round 1, MTU 1500, write: [0-9.]+ MB/s, ratio [0-9.]+  \\[CRC32C on; FPDUs of "
                + "1,448 B sent \\(the path's TCP MSS\\)").matcher(out).find(), "the FPDU size of MTU 1500:\n" + out);
        assertTrue(out.contains("round 1, MTU 1500, send-8192: "), out);
        // what each end used: iperf3's own report, and perf's of the connecting end
        Matcher floorCpu = Pattern.compile("round 1, MTU 1500: iperf3 CPU: sender [0-9.]+% of a core \\(user [0-9.]+%, "
                + "system [0-9.]+%\\), receiver [0-9.]+% \\(user [0-9.]+%, system [0-9.]+%\\)\n").matcher(out);
        int floors = 0;
        while (floorCpu.find()) {
            floors++;
        }
        assertEquals(2, floors, "iperf3's CPU before and after the round:\n" + out);
        assertTrue(Pattern.compile("round 1, MTU 1500, write: CPU of perf --connect \\(sends the data\\): Java threads "
                + "[0-9.]+ cores; busiest .+ [0-9.]+ of a core \\(user [0-9.]+, system [0-9.]+\\)\n").matcher(out).find(), out);
        assertTrue(Pattern.compile("\n1500 +write +[0-9.]+ ").matcher(out).find(), "the summary:\n" + out);
        List<String> rows = Files.readAllLines(tsv);
        assertEquals(3, rows.size(), "header and one row per workload: " + rows);
        assertTrue(rows.get(1).startsWith("1\t1500\twrite\tCRC32C on; FPDUs of 1,448 B"), rows.toString());
        assertTrue(rows.get(0).endsWith("\tratio\tfloor_before_cpu\tfloor_after_cpu\tperf_connect_cpu"), rows.get(0));
        assertTrue(rows.get(1).matches("(?s).*\tsender [0-9.]+% of a core [^\t]*\tsender [0-9.]+% of a core [^\t]*"
                + "\tJava threads [0-9.]+ cores; busiest .*"),
                rows.get(1));
        nothingLeftOf(out);
    }

    @Test
    void aProviderSettingGivenWithIwarpAppliesToBothEndsOfTheRun() throws Exception {
        Path log = dir.resolve("crc-off.log");
        Process p = start(log, "--rounds", "1", "--seconds", "1", "--warmup", "1", "--mtu", "1500", "--workloads",
                "write", "--iwarp", "crc = false", "--out", dir.resolve("crc-off.tsv").toString());
        String out = finished(p, log, 300, 0);
        assertTrue(out.contains("iWARP settings 'crc = false'"), out);
        // MPA uses CRC if either end asks (RFC 5044 7.1): off only when both perf processes read the line
        assertTrue(Pattern.compile("round 1, MTU 1500, write: [0-9.]+ MB/s, ratio [0-9.]+  \\[CRC32C off; ")
                .matcher(out).find(), out);
        nothingLeftOf(out);
    }

    @Test
    void aMalformedIwarpSettingIsRefusedByNameBeforeAnythingIsCreated() throws Exception {
        Path log = dir.resolve("malformed.log");
        String out = finished(start(log, "--iwarp", "crc"), log, 30, 2);
        assertTrue(out.contains("--iwarp takes \"KEY = VALUE\""), out);
        assertTrue(out.contains("not 'crc'"), out);
        assertFalse(out.contains("namespaces sdb"), out);
    }

    @Test
    void sigintAndSigtermInTheMiddleOfARunCleanUpEverything() throws Exception {
        for (String signal : new String[] {"INT", "TERM"}) {
            Path log = dir.resolve("signal-" + signal + ".log");
            Process p = start(log, "--rounds", "1", "--seconds", "60", "--mtu", "1500", "--workloads", "write");
            String[] namespaces = await(p, log, "round 1, MTU 1500: iperf3 "); // perf's server is starting now
            assertEquals(0, exit("kill", "-" + signal, Long.toString(p.pid())));
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "SIG" + signal + " did not end the run:\n" + read(log));
            assertEquals(signal.equals("INT") ? 130 : 143, p.exitValue(), read(log));
            nothingLeft(namespaces, read(log));
        }
    }

    @Test
    void afterARunKilledWithSigkillTheNextRunsAndRemovesWhatItLeft() throws Exception {
        Path killedLog = dir.resolve("killed.log");
        Process killed = start(killedLog, "--rounds", "1", "--seconds", "60", "--mtu", "1500", "--workloads", "write");
        String[] left = await(killed, killedLog, "round 1, MTU 1500: iperf3 ");
        killed.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        assertTrue(output("ip", "netns", "list").contains(left[0]), "SIGKILL leaves the namespaces");

        Path log = dir.resolve("next.log");
        Process next = start(log, "--rounds", "1", "--seconds", "1", "--warmup", "1", "--mtu", "1500", "--workloads",
                "read", "--out", dir.resolve("next.tsv").toString());
        String out = finished(next, log, 300, 0);
        assertTrue(out.contains("veth-bench: removed " + left[0] + ", left by an earlier run"), out);
        nothingLeft(left, out);
        nothingLeftOf(out);
    }
}
