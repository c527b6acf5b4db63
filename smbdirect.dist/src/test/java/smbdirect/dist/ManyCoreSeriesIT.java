package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.testsupport.Judges;

/**
 * {@code tools/many-core-kit.sh} and {@code tools/many-core-series.sh} as they take the many-core
 * series to a machine without a JDK or the floors' tools: the kit is made from the JDK running this
 * test and this machine's iperf3, sockperf and qperf, packed, and the series runs from the packed
 * kit (its runtime and jar, its tools and their libraries before any on the PATH, NioPingPong
 * compiled), runs a phase its budget allows, leaves out one it does not, and writes its three files.
 * Needs iperf3, qperf, sockperf and binutils' objdump (a missing one is reported through Judges: a
 * failure in strict mode).
 */
class ManyCoreSeriesIT {

    @TempDir
    Path dir;

    /** Runs a script of tools/ in {@link #dir}; its output, after it ended with status 0. */
    private String run(Path log, Map<String, String> env, String script, String... options) throws Exception {
        Path path = Path.of("../tools", script).toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(path), "no executable " + path);
        List<String> command = new ArrayList<>(List.of(path.toString()));
        command.addAll(List.of(options));
        ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        b.environment().putAll(env);
        Process p = b.start();
        boolean ended = p.waitFor(600, TimeUnit.SECONDS);
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (!ended) {
            p.destroyForcibly();
        }
        assertTrue(ended, script + " did not finish:\n" + out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void theSeriesRunsFromThePackedKitAloneWithinItsBudgetAndWritesItsThreeFiles() throws Exception {
        Judges.tool("iperf3", "apt-get install iperf3");
        Judges.tool("qperf", "apt-get install qperf");
        Judges.tool("sockperf", "apt-get install sockperf");
        Judges.tool("objdump", "apt-get install binutils");
        Path javaHome = Path.of(System.getProperty("java.home"));
        Path kit = dir.resolve("kit");
        String made = run(dir.resolve("kit.log"), Map.of(), "many-core-kit.sh", "--out", kit.toString(), "--jar",
                RuntimeProcess.jar().toAbsolutePath().toString(), "--jlink", javaHome.resolve("bin/jlink").toString(),
                "--pack", "gz");
        Path packed = dir.resolve("kit.tar.gz");
        assertTrue(Files.isRegularFile(packed), made);
        String versions = Files.readString(kit.resolve("VERSIONS"), StandardCharsets.UTF_8);
        assertTrue(versions.contains(System.getProperty("java.version")), "the runtime is the test's JDK's: "
                + versions);
        assertTrue(versions.matches("(?s).*need glibc [0-9.]+ or later.*"), versions);
        assertTrue(Files.isRegularFile(kit.resolve("classes/NioPingPong.class")), made);
        for (String t : List.of("iperf3", "sockperf", "qperf")) {
            assertTrue(Files.isExecutable(kit.resolve("bin").resolve(t)), t + ": " + made);
        }

        // from the packed kit: its runtime, and its tools before any on the PATH
        Path out = dir.resolve("series");
        String printed = run(dir.resolve("series.log"), Map.of("OUT", out.toString()), "many-core-series.sh", "--kit",
                packed.toString(),
                "--phases", "small-split small-same", "--rounds", "1", "--seconds", "1", "--warmup", "0", "--budget",
                "27");
        Path md = out.resolve("series.md");
        String summary = Files.readString(md, StandardCharsets.UTF_8);
        assertTrue(summary.contains("* runtime: ") && summary.contains(System.getProperty("java.version")), summary);
        for (String t : List.of("iperf3", "sockperf", "qperf")) {
            assertTrue(summary.matches("(?s).*\\* " + t + ": /tmp/many-core-series\\.[^/]+/kit/kit/bin/" + t + "\n.*"),
                    "the kit's " + t + ", unpacked: " + summary);
        }
        assertTrue(summary.matches(
                "(?s).*\\* runtime: [^\n]*; jar /tmp/many-core-series\\.[^/]+/kit/kit/smbdirect\\.jar .*"),
                "the kit's jar: " + summary);
        assertTrue(summary.contains("## small-split ("), summary);
        assertTrue(summary.contains("round trip p50 against Java NIO (us)"), "small-bench's table with the NIO rows: "
                + summary);
        // small-split's estimate is 27 s (9 runs of 1 + 2 s): it fits the budget; small-same no more after it
        assertTrue(summary.matches("(?s).*## small-same: left out \\([0-9]+ s of the budget of 27 s used, its estimate "
                + "27 s\\).*"), summary);
        assertTrue(printed.contains("## small-split ("), "the summary is printed too:\n" + printed);
        String log = Files.readString(out.resolve("series.log"), StandardCharsets.UTF_8);
        assertTrue(log.contains("=== small-split: "), log);
        try (var files = Files.list(out)) {
            assertEquals(List.of("series-data.tar.gz", "series.log", "series.md"),
                    files.map(f -> f.getFileName().toString()).sorted().toList());
        }
        Process tar = new ProcessBuilder("tar", "-tzf", out.resolve("series-data.tar.gz").toString())
                .redirectErrorStream(true).start();
        String listed = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, tar.waitFor());
        assertTrue(listed.contains("small-split.tsv") && listed.contains("small-split.md"), listed);
        List<String> left = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .map(h -> h.info().commandLine().orElse(""))
                .filter(c -> c.contains("/tmp/many-core-series.")).toList();
        assertEquals(List.of(), left, "processes of the series outlived it");
    }
}
