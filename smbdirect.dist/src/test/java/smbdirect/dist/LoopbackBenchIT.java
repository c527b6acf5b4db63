package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.testsupport.Judges;

/**
 * {@code tools/scale-bench.sh} and {@code tools/small-bench.sh} run as their users run them on
 * loopback (one command, no root), briefly: each measures perf of the runtime jar beside its TCP
 * floor taken in the same run (N iperf3 processes; sockperf, qperf and Java NIO), writes every figure to its TSV file and
 * one markdown table, and leaves no process behind. Needs iperf3, qperf and sockperf (a missing one is
 * reported through Judges: a failure in strict mode).
 */
class LoopbackBenchIT {

    @TempDir
    Path dir;

    private Process start(Path log, String script, String... options) throws Exception {
        Path path = Path.of("../tools", script).toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(path), "no executable " + path);
        List<String> command = new ArrayList<>(List.of(path.toString(), "--jar",
                RuntimeProcess.jar().toAbsolutePath().toString()));
        command.addAll(List.of(options));
        ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        b.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return b.start();
    }

    /**
     * Waits for the script to end with status 0; its output. Nothing it started may still run: no process
     * whose command line has one of {@code marks} (the ports its ends use).
     */
    private static String finished(Process p, Path log, String... marks) throws Exception {
        boolean ended = p.waitFor(600, TimeUnit.SECONDS);
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (!ended) {
            p.destroyForcibly();
        }
        assertTrue(ended, "did not finish:\n" + out);
        assertEquals(0, p.exitValue(), out);
        List<String> left = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .map(h -> h.info().commandLine().orElse(""))
                .filter(c -> List.of(marks).stream().anyMatch(c::contains)).toList();
        assertEquals(List.of(), left, "processes of the script outlived it:\n" + out);
        return out;
    }

    /** The rows of a TSV file, each as a map from the header's names to the values. */
    private static List<Map<String, String>> rows(Path tsv) throws Exception {
        List<String> lines = Files.readAllLines(tsv, StandardCharsets.UTF_8);
        String[] header = lines.get(0).split("\t", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] values = line.split("\t", -1);
            assertEquals(header.length, values.length, line);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], values[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    @Test
    void scaleBenchMeasuresEachConnectionCountAgainstAsManyIperf3ProcessesAndWritesOneTable() throws Exception {
        Judges.tool("iperf3", "apt-get install iperf3");
        Path log = dir.resolve("scale.log");
        // the connecting ends on the first half of the CPUs, the listening ends on the second (one each on two)
        Process p = start(log, "scale-bench.sh", "--connections", "1 2", "--rounds", "1", "--seconds", "1",
                "--warmup", "0", "--workloads", "send-1364 write", "--placement", "split", "--depth", "4", "--out",
                "scale.tsv");
        String out = finished(p, log, "127.0.0.1:15445", "iperf3 -s -1 -B 127.0.0.1 -p 1520",
                "iperf3 -c 127.0.0.1 -p 1520");
        List<Map<String, String>> rows = rows(dir.resolve("scale.tsv"));
        assertEquals(4, rows.size(), out);
        for (Map<String, String> row : rows) {
            int n = Integer.parseInt(row.get("connections"));
            double floor = Double.parseDouble(row.get("floor_before_MBps"));
            double perf = Double.parseDouble(row.get("perf_MBps"));
            double ratio = Double.parseDouble(row.get("ratio"));
            assertTrue(floor > 0 && perf > 0, row.toString());
            double mean = (floor + Double.parseDouble(row.get("floor_after_MBps"))) / 2;
            assertEquals(perf / mean, ratio, 0.002, "the ratio is against the mean of the floors around it: " + row);
            String[] each = row.get("per_connection_MBps").split(",");
            assertEquals(n, each.length, "one figure per connection: " + row);
            double sum = 0;
            for (String e : each) {
                sum += Double.parseDouble(e);
            }
            // the sum runs over the longest connection's time: never above the connections' own rates added
            assertTrue(perf <= sum + 0.1 * n, row.toString());
        }
        String table = Files.readString(dir.resolve("scale.md"), StandardCharsets.UTF_8);
        assertTrue(table.contains("1 MiB, depth 4 per connection"), "the depth asked for, which perf said it ran at: "
                + table);
        assertTrue(table.matches("(?s).*loopback, placement split \\(client on CPU [0-9,]+, server on CPU [0-9,]+\\);.*"),
                table);
        assertTrue(table.contains("| N | N iperf3 processes, MB/s | send-1364 MB/s (ratio, spread) | write MB/s (ratio, "
                + "spread) |"), table);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("| 1 | ")) && table.lines().anyMatch(l -> l.startsWith("| 2 | ")),
                table);
        assertTrue(out.contains(table.strip()), "the table is printed too:\n" + out);
    }

    @Test
    void smallBenchPutsTheRoundTripPercentilesBesideTcpsAndJavaNiosAndTheMessageRatesBesideQperfsInOneTable()
            throws Exception {
        Judges.tool("qperf", "apt-get install qperf");
        Judges.tool("sockperf", "apt-get install sockperf");
        Path log = dir.resolve("small.log");
        // both ends pinned to one CPU, as --placement same runs them (the round trip is the two ends' work)
        Process p = start(log, "small-bench.sh", "--rounds", "1", "--seconds", "1", "--warmup", "1", "--placement",
                "same", "--out", "small.tsv");
        String out = finished(p, log, "127.0.0.1:15446", "qperf --listen_port 19766", "qperf -lp 19766",
                "sockperf server --tcp -i 127.0.0.1 -p 19767", "sockperf ping-pong --tcp -i 127.0.0.1 -p 19767",
                "NioPingPong.java server 127.0.0.1 19768", "NioPingPong.java client 127.0.0.1 19768");
        List<Map<String, String>> rows = rows(dir.resolve("small.tsv"));
        assertEquals(List.of("rtt-mean-qperf", "rtt-p50", "rtt-p99", "rtt-p50-nio", "rtt-p99-nio", "rate-64", "rate-1024"),
                rows.stream().map(r -> r.get("figure")).toList(), out);
        for (Map<String, String> row : rows) {
            double perf = Double.parseDouble(row.get("perf"));
            double tcp = Double.parseDouble(row.get("tcp"));
            assertTrue(perf > 0 && tcp > 0, row.toString());
            assertEquals(perf / tcp, Double.parseDouble(row.get("ratio")), 0.002, row.toString());
        }
        assertTrue(Double.parseDouble(rows.get(2).get("perf")) >= Double.parseDouble(rows.get(1).get("perf")),
                "perf's p99 is at least its p50: " + rows);
        assertTrue(Double.parseDouble(rows.get(2).get("tcp")) >= Double.parseDouble(rows.get(1).get("tcp")),
                "each percentile against TCP's same percentile (sockperf's), p99 at least p50: " + rows);
        assertEquals(rows.get(1).get("perf"), rows.get(3).get("perf"), "perf's p50 against both floors: " + rows);
        assertEquals(rows.get(2).get("perf"), rows.get(4).get("perf"), "perf's p99 against both floors: " + rows);
        assertTrue(Double.parseDouble(rows.get(4).get("tcp")) >= Double.parseDouble(rows.get(3).get("tcp")),
                "Java NIO's p99 at least its p50: " + rows);
        String table = Files.readString(dir.resolve("small.md"), StandardCharsets.UTF_8);
        assertTrue(table.matches("(?s).*loopback, placement same \\(both ends on CPU \\d+\\);.*"), table);
        for (String name : List.of("| round trip p50, 64 B, depth 1 (us) |", "| round trip p99, 64 B, depth 1 (us) |",
                "| 64 B messages/s, depth 32 |", "| 1 KiB messages/s, depth 32 |",
                "| round trip p50 against Java NIO (us) |", "| round trip p99 against Java NIO (us) |",
                "| TCP's mean round trip (us): sockperf (perf's column) against qperf |")) {
            assertTrue(table.contains(name), name + " missing:\n" + table);
        }
        assertFalse(out.contains("failed"), out);
    }
}
