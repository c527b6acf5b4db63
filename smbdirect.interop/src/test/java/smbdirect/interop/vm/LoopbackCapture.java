package smbdirect.interop.vm;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Assumptions;

/**
 * A tshark capture of one TCP port on the host's loopback interface, where the VM's forwards meet
 * host processes, and its decoding with Wireshark's iWARP (MPA, DDP/RDMAP) and SMB Direct
 * dissectors. Not thread-safe.
 */
public final class LoopbackCapture implements AutoCloseable {

    /** Decodes iWARP on any port (tshark would otherwise need "Decode As" for ports it does not know). */
    public static final String HEURISTICS = "tcp.try_heuristic_first:TRUE";
    private static final Duration START = Duration.ofSeconds(30);

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
        return start(file, List.of(port));
    }

    /** Starts capturing every TCP connection to or from one of {@code ports} on {@code lo} (see {@link #start(int, Path)}). */
    public static LoopbackCapture start(Path file, List<Integer> ports) throws IOException, InterruptedException {
        Assumptions.assumeTrue(SiwVm.onPath("tshark") != null,
                "tshark not on PATH (apt-get install -y tshark): loopback capture skipped");
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("no port to capture");
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path log = file.resolveSibling(file.getFileName() + ".tshark.log");
        String filter = ports.stream().map(p -> "tcp port " + p).collect(Collectors.joining(" or "));
        Process p = new ProcessBuilder("tshark", "-i", "lo", "-f", filter, "-w", file.toString(), "-q")
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
     * Every MPA frame and FPDU of the capture as Wireshark's iWARP (MPA, DDP/RDMAP), SMB Direct and
     * SMB2 dissectors decode them, in capture order, with malformed-packet and expert items
     * attached to the PDU they concern. The PDML tshark wrote is kept next to the capture.
     */
    public List<CapturedPdu> pdus() throws IOException, InterruptedException {
        Path pdml = file.resolveSibling(file.getFileName() + ".pdml");
        Files.writeString(pdml, run(List.of("tshark", "-r", file.toString(), "-o", HEURISTICS, "-T", "pdml", "-Y",
                "iwarp_mpa || iwarp_ddp_rdmap || _ws.malformed")), StandardCharsets.UTF_8);
        return Pdml.parse(pdml);
    }

    /**
     * The bytes of TCP stream {@code stream} (tshark's index) in each direction, as tshark
     * reassembles them ({@code -z follow,tcp,raw}).
     */
    public TcpStream stream(int stream) throws IOException, InterruptedException {
        return TcpStream.parse(run(List.of("tshark", "-r", file.toString(), "-q", "-z", "follow,tcp,raw," + stream)));
    }

    /**
     * One line per TCP segment that carries FIN or RST: {@code stream srcport dstport F|R}; shows how
     * each connection ended.
     */
    public List<String> tcpEnds() throws IOException, InterruptedException {
        String out = run(List.of("tshark", "-r", file.toString(), "-Y", "tcp.flags.fin == 1 || tcp.flags.reset == 1",
                "-T", "fields", "-e", "tcp.stream", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "tcp.flags.fin",
                "-e", "tcp.flags.reset"));
        List<String> ends = new ArrayList<>();
        for (String line : out.split("\n")) {
            String[] f = line.split("\t", -1);
            if (f.length == 5) {
                ends.add(f[0] + " " + f[1] + " " + f[2] + " " + (isSet(f[4]) ? "R" : "F"));
            }
        }
        return ends;
    }

    private static boolean isSet(String flag) {
        return flag.equals("1") || flag.equalsIgnoreCase("true") || flag.equals("True");
    }

    private String run(List<String> cmd) throws IOException, InterruptedException {
        Path out = Files.createTempFile(file.toAbsolutePath().getParent(), "tshark", ".out");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("tshark did not finish within 60 s: " + cmd);
            }
            if (p.exitValue() != 0) {
                throw new AssertionError("tshark failed (exit " + p.exitValue() + "), see " + log + ": " + cmd);
            }
            return Files.readString(out, StandardCharsets.UTF_8).strip();
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
