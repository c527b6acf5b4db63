package smbdirect.impl.trace;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code shared/tools/smbd_pcap.py} (Wireshark's SMB Direct dissector as an independent
 * oracle). The shared directory is the system property {@code smbdirect.shared.dir}, or the
 * first {@code shared/} with {@code tools/smbd_pcap.py} found walking up from the working
 * directory. Tests call {@link #assumePython()} / {@link #assumeTshark()} so they are skipped
 * with a clear message where the tools are missing.
 */
public final class SmbdPcapTool {

    /** One SMB Direct message and its direction. */
    public record Msg(boolean fromInitiator, byte[] bytes) {
        String json() {
            return "{\"dir\":\"" + (fromInitiator ? "c2s" : "s2c") + "\",\"hex\":\"" + HexFormat.of().formatHex(bytes)
                    + "\"}";
        }
    }

    private static final long TIMEOUT_SECONDS = 120;

    private SmbdPcapTool() {
    }

    /** The script, or null when no shared directory holds it. */
    public static Path script() {
        String override = System.getProperty("smbdirect.shared.dir");
        if (override != null && !override.isBlank()) {
            Path p = Paths.get(override).toAbsolutePath().resolve("tools/smbd_pcap.py");
            return Files.isRegularFile(p) ? p : null;
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path p = dir.resolve("shared/tools/smbd_pcap.py");
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        return null;
    }

    /** An executable of that name on PATH, or null. */
    public static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Paths.get(dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Skips the calling test unless python3 and the script are available. */
    public static void assumePython() {
        assumeTrue(onPath("python3") != null, "python3 not on PATH: Wireshark oracle test skipped");
        assumeTrue(script() != null, "shared/tools/smbd_pcap.py not found above " + Paths.get("").toAbsolutePath()
                + " (set -Dsmbdirect.shared.dir=<dir containing tools/smbd_pcap.py>): Wireshark oracle test skipped");
    }

    /** Skips the calling test unless python3, the script and tshark are available. */
    public static void assumeTshark() {
        assumePython();
        assumeTrue(onPath("tshark") != null,
                "tshark not on PATH (apt-get install -y tshark): Wireshark oracle test skipped");
    }

    /** {@code smbd_pcap.py check --input}: writes the messages, decodes them with tshark. */
    public static List<Map<String, Object>> check(List<Msg> msgs, Path workDir) throws IOException, InterruptedException {
        Path input = writeInput(msgs, workDir);
        return frames(run(workDir, "check", "--input", input.toString()));
    }

    /** {@code smbd_pcap.py decode}: one JSON object per frame of the pcap file. */
    public static List<Map<String, Object>> decode(Path pcap, Path workDir) throws IOException, InterruptedException {
        return frames(run(workDir, "decode", pcap.toString()));
    }

    /** {@code smbd_pcap.py write -o out --input}: the reference pcap for the messages. */
    public static byte[] write(List<Msg> msgs, Path workDir) throws IOException, InterruptedException {
        Path input = writeInput(msgs, workDir);
        Path out = Files.createTempFile(workDir, "reference", ".pcap");
        run(workDir, "write", "-o", out.toString(), "--input", input.toString());
        return Files.readAllBytes(out);
    }

    private static Path writeInput(List<Msg> msgs, Path workDir) throws IOException {
        Path input = Files.createTempFile(workDir, "msgs", ".jsonl");
        List<String> lines = new ArrayList<>();
        for (Msg m : msgs) {
            lines.add(m.json());
        }
        Files.write(input, lines, StandardCharsets.UTF_8);
        return input;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> frames(String stdout) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            if (!line.isBlank()) {
                out.add((Map<String, Object>) Json.parse(line));
            }
        }
        return out;
    }

    private static String run(Path workDir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(onPath("python3").toString());
        cmd.add(script().toString());
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile(workDir, "stderr", ".txt");
        Path out = Files.createTempFile(workDir, "stdout", ".txt");
        Process p = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out after " + TIMEOUT_SECONDS + " s: " + cmd);
        }
        String stdout = Files.readString(out);
        if (p.exitValue() != 0) {
            throw new IOException("exit " + p.exitValue() + " from " + cmd + ": " + Files.readString(err) + stdout);
        }
        return stdout;
    }
}
