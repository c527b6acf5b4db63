package smbdirect.rdma.tck;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;

/**
 * A tshark capture on the host's loopback interface and its decoding with Wireshark's iWARP (MPA,
 * DDP/RDMAP) and SMB Direct dissectors: the independent judge of what the iWARP provider puts on
 * the wire, and the recorder of what passes between host processes and the siw VM's forwards.
 * Captures need the right to capture on {@code lo} (root, or dumpcap's capabilities); where tshark
 * is missing or may not capture, {@link #start} aborts the calling test (skipped, one line). Not
 * thread-safe.
 */
public final class LoopbackCapture implements AutoCloseable {

    /** Decodes iWARP on any port, 5445 included (Wireshark gives 5445 to "artemis" otherwise; iwarp.md §3.7). */
    public static final String HEURISTICS = "tcp.try_heuristic_first:TRUE";
    private static final Duration START = Duration.ofSeconds(30);
    private static final Duration DECODE = Duration.ofSeconds(60);
    private static final Pattern DROPPED = Pattern.compile("(\\d+) packets? dropped");

    private final Path file;
    private final Path log;
    private final Process tshark;

    private LoopbackCapture(Path file, Path log, Process tshark) {
        this.file = file;
        this.log = log;
        this.tshark = tshark;
    }

    /**
     * Starts capturing TCP {@code port} on {@code lo} into {@code file} and returns once tshark
     * captures; aborts the calling test (skipped, one line) when tshark is missing or may not capture.
     */
    public static LoopbackCapture start(int port, Path file) throws IOException, InterruptedException {
        return start("tcp port " + port, file);
    }

    /**
     * Starts capturing what the capture filter {@code filter} (pcap-filter syntax, such as
     * {@code host 127.3.4.5}) selects on {@code lo} into {@code file}, with a 32 MiB capture buffer,
     * and returns once tshark captures; aborts the calling test (skipped, one line) when tshark is
     * missing or may not capture.
     */
    public static LoopbackCapture start(String filter, Path file) throws IOException, InterruptedException {
        Assumptions.assumeTrue(onPath("tshark"),
                "tshark not on PATH (apt-get install -y tshark): loopback capture skipped");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path log = file.resolveSibling(file.getFileName() + ".tshark.log");
        Process p = new ProcessBuilder("tshark", "-i", "lo", "-B", "32", "-f", filter, "-w", file.toString(), "-q")
                .redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        long deadline = System.nanoTime() + START.toNanos();
        while (!Files.readString(log, StandardCharsets.UTF_8).contains("Capture started")) {
            if (!p.isAlive() || System.nanoTime() - deadline > 0) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                String why = Files.readString(log, StandardCharsets.UTF_8).strip().replace('\n', ' ');
                Assumptions.abort("tshark cannot capture on lo (" + why + "): loopback capture skipped");
            }
            p.waitFor(20, TimeUnit.MILLISECONDS); // until tshark says it captures, exits, or the time is up
        }
        return new LoopbackCapture(file, log, p);
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    /** The capture file. */
    public Path file() {
        return file;
    }

    /** Stops the capture (tshark writes the file out on SIGTERM). Idempotent. */
    @Override
    public void close() {
        if (tshark.isAlive()) {
            tshark.destroy();
            try {
                if (!tshark.waitFor(20, TimeUnit.SECONDS)) {
                    tshark.destroyForcibly();
                    tshark.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                tshark.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * After {@link #close()}: the packets the kernel or tshark dropped, as tshark reported on exit
     * (0 when it reported none). A capture with drops cannot be judged completely.
     */
    public long droppedPackets() throws IOException {
        Matcher m = DROPPED.matcher(Files.readString(log, StandardCharsets.UTF_8));
        long dropped = 0;
        while (m.find()) {
            dropped += Long.parseLong(m.group(1));
        }
        return dropped;
    }

    /**
     * One line per frame that carries MPA or DDP/RDMAP, with the given fields separated by tabs
     * (several values of one field in a frame are separated by commas).
     */
    public List<String> fields(String... fields) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-r", file.toString(), "-o", HEURISTICS,
                "-Y", "iwarp_mpa || iwarp_ddp_rdmap", "-T", "fields"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        return List.of(run(cmd).split("\n"));
    }

    /** The full decode ({@code -O iwarp_mpa,iwarp_ddp_rdmap,smb_direct}), also written next to the capture. */
    public String decode() throws IOException, InterruptedException {
        String text = run(List.of("tshark", "-r", file.toString(), "-o", HEURISTICS, "-O",
                "iwarp_mpa,iwarp_ddp_rdmap,smb_direct"));
        Files.writeString(file.resolveSibling(file.getFileName() + ".txt"), text, StandardCharsets.UTF_8);
        return text;
    }

    /**
     * The complete dissection as PDML (tshark {@code -T pdml}: every protocol layer and field of
     * every frame, in wire order, with expert items and malformed markers), written next to the
     * capture; {@code options} are further tshark arguments (preferences, disabled heuristics).
     *
     * @return the PDML file
     */
    public Path pdml(String... options) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-r", file.toString(), "-o", HEURISTICS));
        cmd.addAll(List.of(options));
        cmd.addAll(List.of("-T", "pdml"));
        Path out = file.resolveSibling(file.getFileName() + ".pdml");
        exec(cmd, out);
        return out;
    }

    private String run(List<String> cmd) throws IOException, InterruptedException {
        Path out = Files.createTempFile(file.toAbsolutePath().getParent(), "tshark", ".out");
        try {
            exec(cmd, out);
            return Files.readString(out, StandardCharsets.UTF_8).strip();
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private void exec(List<String> cmd, Path out) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!p.waitFor(DECODE.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("tshark did not finish within " + DECODE.toSeconds() + " s: " + cmd);
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("tshark failed (exit " + p.exitValue() + "), see " + log + ": " + cmd);
        }
    }
}
