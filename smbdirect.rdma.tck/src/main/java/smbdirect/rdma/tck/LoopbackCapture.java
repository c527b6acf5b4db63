package smbdirect.rdma.tck;

import java.io.File;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import smbdirect.testsupport.Judges;

/**
 * A capture (dumpcap) on the host's loopback interface and its decoding (tshark) with Wireshark's
 * iWARP (MPA, DDP/RDMAP) and SMB Direct dissectors: the independent judge of what the iWARP
 * provider puts on the wire, and the recorder of what passes between host processes and the siw
 * VM's forwards.
 * Captures need the right to capture on {@code lo} (root, or dumpcap's capabilities); where dumpcap
 * or tshark is missing or may not capture, {@link #start} reports a missing judge
 * ({@link Judges#missing}: the calling test fails in strict mode, is skipped with the reason
 * otherwise). Not thread-safe.
 */
public final class LoopbackCapture implements AutoCloseable {

    /** Decodes iWARP on any port, 5445 included (Wireshark gives 5445 to "artemis" otherwise; iwarp.md §3.7). */
    public static final String HEURISTICS = "tcp.try_heuristic_first:TRUE";
    private static final Duration START = Duration.ofSeconds(30);
    private static final Duration DECODE = Duration.ofSeconds(60);
    private static final Duration SYNC = Duration.ofSeconds(10);
    /** dumpcap's last words: "Packets received/dropped on interface 'Loopback: lo': 85/0 (...)". */
    private static final Pattern DROPPED = Pattern.compile("received/dropped on interface .*?: \\d+/(\\d+)");

    private final Path file;
    private final Path log;
    private final Process dumpcap;
    private final DatagramSocket marker;
    /**
     * The UDP port of the {@link #sync()} markers, -1 for a file decoded as it is: every decode
     * gives that port's datagrams to Wireshark's "data" dissector, so that no heuristic dissector
     * reads a marker's random bytes as a protocol (RTCP's once took one for a malformed Goodbye).
     */
    private final int markerPort;
    private boolean synced;

    private LoopbackCapture(Path file, Path log, Process dumpcap, DatagramSocket marker, int markerPort) {
        this.file = file;
        this.log = log;
        this.dumpcap = dumpcap;
        this.marker = marker;
        this.markerPort = markerPort;
    }

    /**
     * Starts capturing TCP {@code port} on {@code lo} into {@code file} and returns once the capture
     * runs; a missing judge ({@link Judges#missing}) when dumpcap is missing or may not capture.
     */
    public static LoopbackCapture start(int port, Path file) throws IOException, InterruptedException {
        return start("tcp port " + port, file);
    }

    /**
     * Starts capturing what the capture filter {@code filter} (pcap-filter syntax, such as
     * {@code host 127.3.4.5}) selects on {@code lo} into {@code file}, with a 32 MiB kernel buffer,
     * and returns once the capture runs; a missing judge ({@link Judges#missing}) when dumpcap or
     * tshark is missing or may not capture.
     *
     * <p>dumpcap writes the pcap stream to its standard output, which it flushes after every packet,
     * so that {@link #sync()} can tell when everything sent before it is in the file.
     */
    public static LoopbackCapture start(String filter, Path file) throws IOException, InterruptedException {
        return attempt(filter, file).require();
    }

    /**
     * A capture {@link #attempt} started, or why none could be: a scenario that records a capture
     * beside other checks goes on without one, and only the checks that read the capture report
     * the missing judge ({@link #require()}).
     *
     * @param capture the running capture, or null
     * @param missing why there is no capture (dumpcap or tshark missing, no right to capture), or null
     */
    public record Attempt(LoopbackCapture capture, String missing) {

        /** The capture; where there is none, a missing judge ({@link Judges#missing}) with the reason. */
        public LoopbackCapture require() {
            if (capture == null) {
                throw Judges.missing(missing);
            }
            return capture;
        }

        /** Stops the capture if there is one ({@link LoopbackCapture#close()}). */
        public void close() {
            if (capture != null) {
                capture.close();
            }
        }
    }

    /**
     * {@link #start(String, Path)}, except that a missing dumpcap or tshark, or no right to capture,
     * is returned as the reason instead of reported.
     */
    public static Attempt attempt(String filter, Path file) throws IOException, InterruptedException {
        Optional<Path> dumpcap = Judges.onPath("dumpcap");
        if (dumpcap.isEmpty() || Judges.onPath("tshark").isEmpty()) {
            return new Attempt(null, "dumpcap or tshark not on PATH (apt-get install tshark)");
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path log = file.resolveSibling(file.getFileName() + ".dumpcap.log");
        DatagramSocket marker = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        String markerFilter = "udp and dst host " + InetAddress.getLoopbackAddress().getHostAddress() + " and dst port "
                + marker.getLocalPort();
        Process p = new ProcessBuilder(dumpcap.get().toString(), "-i", "lo", "-B", "32", "-P", "-f",
                "(" + filter + ") or (" + markerFilter + ")", "-w", "-")
                .redirectOutput(file.toFile()).redirectError(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        long deadline = System.nanoTime() + START.toNanos();
        while (!Files.readString(log, StandardCharsets.UTF_8).contains("File: -")) {
            if (!p.isAlive() || System.nanoTime() - deadline > 0) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                marker.close();
                String why = Files.readString(log, StandardCharsets.UTF_8).strip().replace('\n', ' ');
                return new Attempt(null, "dumpcap cannot capture on lo (" + why + "): run as root, or give dumpcap"
                        + " the capture capabilities (dpkg-reconfigure wireshark-common)");
            }
            p.waitFor(20, TimeUnit.MILLISECONDS); // until dumpcap says it captures, exits, or the time is up
        }
        return new Attempt(new LoopbackCapture(file, log, p, marker, marker.getLocalPort()), null);
    }

    /**
     * Decodes an existing capture file (nothing is captured): {@link #fields}, {@link #pdml},
     * {@link #tshark} and {@link #decode} read {@code file}; {@link #close()} does nothing and
     * {@link #complete()} is true. A missing tshark is reported through {@link Judges} (a failure in
     * strict mode, else a skip with the reason on the console).
     */
    public static LoopbackCapture ofFile(Path file) {
        return ofFile(file, -1);
    }

    /**
     * As {@link #ofFile(Path)}, for a file that holds the {@link #sync()} markers of a capture
     * (a copy of it): their port ({@link #markerPort()} of that capture) is dissected as data.
     */
    public static LoopbackCapture ofFile(Path file, int markerPort) {
        Judges.tool("tshark", "apt-get install tshark");
        LoopbackCapture c = new LoopbackCapture(file, null, null, null, markerPort);
        c.synced = true;
        return c;
    }

    /** The capture file. */
    public Path file() {
        return file;
    }

    /**
     * The UDP port on the loopback address that {@link #sync()}'s markers go to (-1 for a file
     * decoded as it is); every decode of this capture dissects that port's datagrams as plain data.
     */
    public int markerPort() {
        return markerPort;
    }

    /**
     * Waits until every packet sent before this call is in the file: sends a datagram with a random
     * marker to a socket of this capture and waits (up to 10 s) for its bytes to reach the file.
     * The kernel hands packets to dumpcap in order, so the marker comes after all of them.
     *
     * @return whether the marker arrived in time
     */
    public boolean sync() throws IOException, InterruptedException {
        if (dumpcap == null) {
            return true;
        }
        byte[] token = new byte[16];
        new SecureRandom().nextBytes(token);
        marker.send(new DatagramPacket(token, token.length, marker.getLocalSocketAddress()));
        long deadline = System.nanoTime() + SYNC.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (contains(Files.readAllBytes(file), token)) {
                return true;
            }
            if (!dumpcap.isAlive()) {
                return false;
            }
            dumpcap.waitFor(20, TimeUnit.MILLISECONDS); // until the marker is in the file or dumpcap ended
        }
        return false;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = haystack.length - needle.length; i >= 0; i--) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * Stops the capture after {@link #sync()}, so that the file holds everything sent before the
     * call ({@link #complete()} tells whether it does). Idempotent.
     */
    @Override
    public void close() {
        if (dumpcap == null) {
            return;
        }
        if (dumpcap.isAlive()) {
            try {
                synced = sync();
            } catch (IOException e) {
                synced = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            dumpcap.destroy();
            try {
                if (!dumpcap.waitFor(20, TimeUnit.SECONDS)) {
                    dumpcap.destroyForcibly();
                    dumpcap.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                dumpcap.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        marker.close();
    }

    /**
     * After {@link #close()}: whether the file holds every packet sent before {@code close()} and
     * dumpcap reported no packet dropped.
     */
    public boolean complete() throws IOException {
        return synced && (dumpcap == null || droppedPackets() == 0);
    }

    /**
     * After {@link #close()}: the packets the kernel or dumpcap dropped, as dumpcap reported on exit
     * (-1 when it reported nothing).
     */
    public long droppedPackets() throws IOException {
        Matcher m = DROPPED.matcher(Files.readString(log, StandardCharsets.UTF_8));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /**
     * One line per frame that carries MPA or DDP/RDMAP, with the given fields separated by tabs
     * (several values of one field in a frame are separated by commas).
     */
    public List<String> fields(String... fields) throws IOException, InterruptedException {
        List<String> cmd = tsharkOf(List.of("-Y", "iwarp_mpa || iwarp_ddp_rdmap", "-T", "fields"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        return List.of(run(cmd).split("\n"));
    }

    /** The full decode ({@code -O iwarp_mpa,iwarp_ddp_rdmap,smb_direct}), also written next to the capture. */
    public String decode() throws IOException, InterruptedException {
        String text = run(tsharkOf(List.of("-O", "iwarp_mpa,iwarp_ddp_rdmap,smb_direct")));
        Files.writeString(file.resolveSibling(file.getFileName() + ".txt"), text, StandardCharsets.UTF_8);
        return text;
    }

    /**
     * The complete dissection as PDML (tshark {@code -T pdml}: every protocol layer and field of
     * every frame, in wire order, with expert items and malformed markers), written next to the
     * capture as {@code <capture>.<name>.pdml}; {@code options} are further tshark arguments
     * (preferences, disabled heuristics).
     *
     * @return the PDML file
     */
    public Path pdml(String name, String... options) throws IOException, InterruptedException {
        List<String> cmd = tsharkOf(List.of(options));
        cmd.addAll(List.of("-T", "pdml"));
        Path out = file.resolveSibling(file.getFileName() + "." + name + ".pdml");
        exec(cmd, out);
        return out;
    }

    /**
     * tshark's output for the capture with further arguments ({@code tshark -r <capture> -o
     * <heuristics> args...}), stripped: any display filter, field list or statistic
     * ({@code -z follow,tcp,raw,0}) a test needs beyond {@link #fields} and {@link #pdml}.
     */
    public String tshark(String... args) throws IOException, InterruptedException {
        return run(tsharkOf(List.of(args)));
    }

    /** {@code tshark -r <capture> -o <heuristics>}, the markers' port as data, then {@code args}. */
    private List<String> tsharkOf(List<String> args) {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-r", file.toString(), "-o", HEURISTICS));
        if (markerPort > 0) {
            cmd.addAll(List.of("-d", "udp.port==" + markerPort + ",data"));
        }
        cmd.addAll(args);
        return cmd;
    }

    private Path decodeLog() {
        return file.resolveSibling(file.getFileName() + ".tshark.log");
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
                .redirectError(ProcessBuilder.Redirect.appendTo(decodeLog().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!p.waitFor(DECODE.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("tshark did not finish within " + DECODE.toSeconds() + " s: " + cmd);
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("tshark failed (exit " + p.exitValue() + "), see " + decodeLog() + ": " + cmd);
        }
    }
}
