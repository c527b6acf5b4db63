package smbdirect.interop.fileserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.function.Executable;

/**
 * What Linux cifs does with files on a mount of the file server, and how its own reports are read:
 * the guest script {@code cifs-io.sh} (file round trips with dd, cat, cp, mv, rm, mkdir, rmdir,
 * stat and ls, one {@code fsio} line per step), the guest shell lines that mount, print
 * {@code /proc/fs/cifs/DebugData} and {@code Stats} between markers and unmount, and the parsers of
 * those lines, of DebugData's SMB Direct section, of Stats and of {@code rdma resource show}. Shared
 * by the host-side and the guest-side tests; static, thread-safe.
 */
public final class CifsIo {

    /** The script, as a class path resource beside this class. */
    public static final String SCRIPT_RESOURCE = "cifs-io.sh";
    /** Where the guest finds the script. */
    public static final String GUEST_SCRIPT = "/siwvm/cifs-io.sh";
    /** {@code SMBD_CONNECTED} of 6.1's {@code enum smbd_connection_status} (fs/smb/client/smbdirect.h). */
    public static final int SMBD_CONNECTED = 2;
    /** SHA-256 of no bytes. */
    public static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static final Pattern STEP = Pattern.compile(
            "fsio (\\S+) (\\S+) (\\S+) rc=(-?\\d+)(?: sha256=([0-9a-f]{64}))?(?: size=(\\d+))?\\s*$");
    private static final Pattern MOUNT = Pattern.compile("(umount|mount) (\\S+) rc=(-?\\d+)");
    private static final Pattern RES = Pattern.compile("^\\s*\\d+: (\\S+): (.*)$");

    private CifsIo() {
    }

    /** The script's text. */
    public static String script() {
        try (InputStream in = CifsIo.class.getResourceAsStream(SCRIPT_RESOURCE)) {
            Objects.requireNonNull(in, "class path resource " + SCRIPT_RESOURCE);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Writes the script to {@code file} (for {@code SiwVmSpec.put} or a guest JVM's shell). */
    public static Path writeScript(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, script(), StandardCharsets.UTF_8);
        return file;
    }

    /**
     * Guest shell lines: mount {@code unc} on {@code mountPoint} with {@code options} (bounded by
     * {@code timeout} s), print {@code mount TAG rc=N}.
     */
    public static String mount(String tag, String unc, String mountPoint, String options, int timeout) {
        return mountCommand(tag, mountPoint, "mount -t cifs " + unc + " " + mountPoint + " -o " + options, timeout);
    }

    /**
     * Guest shell lines: run the mount {@code command} on {@code mountPoint} as given (bounded by
     * {@code timeout} s), print {@code mount TAG rc=N}.
     */
    public static String mountCommand(String tag, String mountPoint, String command, int timeout) {
        return "mkdir -p " + mountPoint + "; timeout " + timeout + " " + command + "; echo \"mount " + tag + " rc=$?\"";
    }

    /** Guest shell lines: the script on {@code mountPoint} in directory {@code tag} with file sizes {@code sizes}. */
    public static String io(String script, String mountPoint, String tag, long... sizes) {
        StringBuilder b = new StringBuilder("sh " + script + " " + mountPoint + " " + tag);
        for (long s : sizes) {
            b.append(' ').append(s);
        }
        return b.toString();
    }

    /** Guest shell lines: DebugData and Stats between markers named {@code tag}. */
    public static String report(String tag) {
        return String.join("\n",
                "echo '=== DEBUGDATA " + tag + " ==='", "cat /proc/fs/cifs/DebugData", "echo",
                "echo '=== END DEBUGDATA " + tag + " ==='",
                "echo '=== STATS " + tag + " ==='", "cat /proc/fs/cifs/Stats", "echo",
                "echo '=== END STATS " + tag + " ==='");
    }

    /** Guest shell lines: unmount {@code mountPoint} (bounded), print {@code umount TAG rc=N}. */
    public static String umount(String tag, String mountPoint) {
        return "timeout 60 umount " + mountPoint + "; echo \"umount " + tag + " rc=$?\"";
    }

    /** Guest shell lines: {@code rdma resource show} between markers named {@code tag}. */
    public static String rdmaResources(String tag) {
        return "echo '=== RDMA RES " + tag + " ==='; rdma resource show; echo '=== END RDMA RES " + tag + " ==='";
    }

    // ------------------------------------------------------------------ reading the lines

    /**
     * One step of the script.
     *
     * @param tag the mount's tag (its directory)
     * @param step what was done (source, write, write-direct, cat, read-direct, stat, cp, mv, rm, mkdir, rmdir)
     * @param name the file or directory
     * @param rc the exit status of the step's command
     * @param sha256 the hash of the bytes written or read, or null
     * @param size the size reported (source, stat), or -1
     */
    public record Step(String tag, String step, String name, int rc, String sha256, long size) {
    }

    /** The script's steps in {@code lines}, in order. */
    public static List<Step> steps(List<String> lines) {
        List<Step> out = new ArrayList<>();
        for (String l : lines) {
            Matcher m = STEP.matcher(l);
            if (m.find()) {
                out.add(new Step(m.group(1), m.group(2), m.group(3), Integer.parseInt(m.group(4)), m.group(5),
                        m.group(6) == null ? -1 : Long.parseLong(m.group(6))));
            }
        }
        return out;
    }

    /** The exit status of {@code mount TAG} or {@code umount TAG} in {@code lines}, or null when not printed. */
    public static Integer status(List<String> lines, String command, String tag) {
        for (String l : lines) {
            Matcher m = MOUNT.matcher(l);
            if (m.find() && m.group(1).equals(command) && m.group(2).equals(tag)) {
                return Integer.parseInt(m.group(3));
            }
        }
        return null;
    }

    /** The lines between {@code === WHAT TAG ===} and {@code === END WHAT TAG ===}, or null when absent. */
    public static List<String> section(List<String> lines, String what, String tag) {
        String begin = "=== " + what + " " + tag + " ===";
        String end = "=== END " + what + " " + tag + " ===";
        int from = -1;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (from < 0 && l.contains(begin)) {
                from = i + 1;
            } else if (from >= 0 && l.contains(end)) {
                return lines.subList(from, i);
            }
        }
        return null;
    }

    /**
     * The checks of one mount's round trips: every step exit status 0 and the script ran to its end;
     * for every size, the source of that size, and what was read back (dd iflag=direct of the file
     * written through the page cache and of the one written with O_DIRECT, of the moved copy)
     * hashes as the source; stat gives the size; the copy is gone after mv and the moved file after
     * rm. What cat gave is judged apart ({@link #catReads}).
     */
    public static List<Executable> roundTrips(List<Step> all, String tag, long... sizes) {
        List<Step> steps = all.stream().filter(s -> s.tag().equals(tag)).toList();
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertTrue(steps.stream().anyMatch(s -> s.step().equals("mkdir") && s.rc() == 0),
                tag + ": mkdir of its directory: " + steps));
        for (Step s : steps) {
            checks.add(() -> assertEquals(0, s.rc(), tag + ": " + s));
        }
        for (long size : sizes) {
            String f = "f-" + size;
            Step source = find(steps, "source", f);
            checks.add(() -> {
                assertNotNull(source, tag + ": the source of " + size + " bytes: " + steps);
                assertEquals(size, source.size(), tag + ": " + source);
                if (size == 0) {
                    assertEquals(EMPTY_SHA256, source.sha256());
                }
                for (String[] read : new String[][] {{"read-direct", f}, {"read-direct", "g-" + size},
                    {"read-direct", "m-" + size}}) {
                    Step r = find(steps, read[0], read[1]);
                    assertNotNull(r, tag + ": " + read[0] + " " + read[1] + " ran: " + steps);
                    assertEquals(source.sha256(), r.sha256(), tag + ": " + read[0] + " " + read[1]
                            + " hashes as the source");
                }
                Step stat = find(steps, "stat", f);
                assertNotNull(stat, tag + ": stat " + f);
                assertEquals(size, stat.size(), tag + ": stat -c %s " + f);
                for (String[] op : new String[][] {{"write", f}, {"write-direct", "g-" + size}, {"cp", "c-" + size},
                    {"mv", "m-" + size}, {"rm", "m-" + size}}) {
                    assertNotNull(find(steps, op[0], op[1]), tag + ": " + op[0] + " " + op[1] + " ran: " + steps);
                }
            });
        }
        checks.add(() -> assertNotNull(find(steps, "rmdir", "sub"), tag + ": rmdir ran"));
        return checks;
    }

    /**
     * What cat gave for one file.
     *
     * @param tag the mount
     * @param size the file's size
     * @param same whether its bytes hash as the source
     * @param bytes how many bytes it gave (the script's second pass)
     */
    public record CatRead(String tag, long size, boolean same, long bytes) {
    }

    /** What cat gave for every size of the mount {@code tag} (a missing step counts as a wrong read of no bytes). */
    public static List<CatRead> catReads(List<Step> all, String tag, long... sizes) {
        List<Step> steps = all.stream().filter(s -> s.tag().equals(tag)).toList();
        List<CatRead> out = new ArrayList<>();
        for (long size : sizes) {
            Step source = find(steps, "source", "f-" + size);
            Step cat = find(steps, "cat", "f-" + size);
            Step bytes = find(steps, "cat-size", "f-" + size);
            out.add(new CatRead(tag, size, source != null && cat != null && cat.rc() == 0
                    && Objects.equals(source.sha256(), cat.sha256()), bytes == null ? -1 : bytes.size()));
        }
        return out;
    }

    /**
     * Judges what cat gave. Busybox's cat copies with sendfile, that is splice; on a file cifs holds
     * no oplock or lease on (this server grants none) cifs reads uncached ({@code cifs_strict_readv}
     * to {@code cifs_user_readv}), and Linux 6.1's cifs then hands the pipe more bytes than the file
     * has (64 KiB for an empty file, zeros past the data), against ksmbd too when mounted with
     * {@code cache=none}: the reads that gave more bytes than the file has abort the check naming that
     * defect of the client; a cat that gave other bytes, fewer bytes or none fails it.
     */
    public static void judgeCat(List<CatRead> reads, String where) {
        List<CatRead> wrong = reads.stream().filter(r -> !r.same()).toList();
        assertEquals(List.of(), wrong.stream().filter(r -> r.bytes() <= r.size()).toList(),
                "cat gave other bytes of at most the file's length" + where);
        org.junit.jupiter.api.Assumptions.assumeTrue(wrong.isEmpty(), () -> "cat gave more bytes than the file has"
                + where + ", Linux 6.1 cifs's splice of an uncached file (no oplock or lease): " + wrong);
    }

    /** The hash each of a mount's sources had, by file name ({@code f-SIZE} and {@code g-SIZE} alike). */
    public static Map<String, String> written(List<Step> all, String tag) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Step s : all) {
            if (s.tag().equals(tag) && s.step().equals("source")) {
                out.put(s.name(), s.sha256());
                out.put("g-" + s.name().substring(2), s.sha256());
            }
        }
        return out;
    }

    private static Step find(List<Step> steps, String step, String name) {
        return steps.stream().filter(s -> s.step().equals(step) && s.name().equals(name)).findFirst().orElse(null);
    }

    /** SHA-256 of every regular file in {@code dir} (not below it), by name. */
    public static Map<String, String> served(Path dir) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.sorted().toList()) {
                if (Files.isRegularFile(p)) {
                    out.put(p.getFileName().toString(), sha256(p));
                }
            }
        }
        return out;
    }

    /** SHA-256 of a file, in hex. */
    public static String sha256(Path file) throws IOException {
        MessageDigest d;
        try {
            d = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0;) {
                d.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(d.digest());
    }

    // ------------------------------------------------------------------ cifs's reports

    /**
     * What DebugData says of one SMB Direct connection of cifs ({@code fs/smb/client/cifs_debug.c};
     * its SMB Direct numbers are printed in hex).
     *
     * @param protocol "SMBDirect (in hex) protocol version"
     * @param transportStatus its transport status ({@link #SMBD_CONNECTED} while connected)
     * @param maxReadWriteSize max_readwrite_size
     * @param rdmaReadWriteThreshold rdma_readwrite_threshold: I/O of at least this many bytes goes by RDMA
     * @param maxFrmrDepth max_frmr_depth
     * @param mrReady MR mr_ready_count
     * @param mrUsed MR mr_used_count
     * @param dialect "Dialect 0x..."
     * @param rdma whether the connection is marked RDMA
     * @param signed whether it is marked signed
     */
    public record SmbdConnection(int protocol, int transportStatus, long maxReadWriteSize, long rdmaReadWriteThreshold,
            long maxFrmrDepth, long mrReady, long mrUsed, int dialect, boolean rdma, boolean signed) {
    }

    private static final Pattern SMBD_PROTOCOL = Pattern.compile(
            "SMBDirect \\(in hex\\) protocol version: ([0-9a-f]+) transport status: ([0-9a-f]+)");
    private static final Pattern SMBD_RW = Pattern.compile(
            "max_readwrite_size: ([0-9a-f]+) rdma_readwrite_threshold: ([0-9a-f]+)");
    private static final Pattern SMBD_MR = Pattern.compile("max_frmr_depth: ([0-9a-f]+)");
    private static final Pattern SMBD_MR_COUNT = Pattern.compile("mr_ready_count: ([0-9a-f]+) mr_used_count: ([0-9a-f]+)");
    private static final Pattern DIALECT = Pattern.compile("Dialect 0x([0-9a-f]+)(.*)$");

    /** The SMB Direct connections DebugData lists, in order. */
    public static List<SmbdConnection> smbdConnections(List<String> debugData) {
        List<SmbdConnection> out = new ArrayList<>();
        int protocol = -1;
        int status = -1;
        long rw = -1;
        long threshold = -1;
        long frmr = -1;
        long ready = -1;
        long used = -1;
        for (int i = 0; i < debugData.size(); i++) {
            String l = debugData.get(i);
            Matcher m;
            if ((m = SMBD_PROTOCOL.matcher(l)).find()) {
                protocol = Integer.parseInt(m.group(1), 16);
                status = Integer.parseInt(m.group(2), 16);
            } else if ((m = SMBD_RW.matcher(l)).find()) {
                rw = Long.parseLong(m.group(1), 16);
                threshold = Long.parseLong(m.group(2), 16);
            } else if ((m = SMBD_MR_COUNT.matcher(l)).find()) {
                ready = Long.parseLong(m.group(1), 16);
                used = Long.parseLong(m.group(2), 16);
            } else if ((m = SMBD_MR.matcher(l)).find()) {
                frmr = Long.parseLong(m.group(1), 16);
            } else if (protocol >= 0 && (m = DIALECT.matcher(l)).find()) {
                // "RDMA" follows the dialect's line (6.1) or its "Server capabilities" line (6.12),
                // before the connection's "TCP status" line
                boolean rdma = false;
                for (int j = i + 1; j < debugData.size() && !debugData.get(j).strip().startsWith("TCP status"); j++) {
                    rdma |= debugData.get(j).strip().equals("RDMA");
                }
                out.add(new SmbdConnection(protocol, status, rw, threshold, frmr, ready, used,
                        Integer.parseInt(m.group(1), 16), rdma, m.group(2).contains("signed")));
                protocol = -1;
            }
        }
        return out;
    }

    /** SMB2 READs and WRITEs Stats counts over every tree connection: {reads, failed reads, writes, failed writes}. */
    public static long[] readsAndWrites(List<String> stats) {
        long[] out = new long[4];
        Pattern p = Pattern.compile("(Reads|Writes): (\\d+) total (\\d+) failed");
        for (String l : stats) {
            Matcher m = p.matcher(l);
            while (m.find()) {
                int at = m.group(1).equals("Reads") ? 0 : 2;
                out[at] += Long.parseLong(m.group(2));
                out[at + 1] += Long.parseLong(m.group(3));
            }
        }
        return out;
    }

    /** The kinds of RDMA object {@code rdma resource show KIND} lists, one by one. */
    public static final List<String> RDMA_OBJECT_KINDS = List.of("pd", "cq", "qp", "cm_id", "mr", "ctx", "srq");

    private static final Pattern PROCESS_OWNED = Pattern.compile("\\bpid \\d+\\b");

    /**
     * Whether a line of {@code rdma resource show KIND} is an object a process owns: it names the
     * process with {@code pid N comm NAME} (the pid of the thread that created it), where the
     * kernel's own objects, a kernel client's such as cifs's, name none and show their module as
     * {@code comm [NAME]}.
     */
    public static boolean ownedByAProcess(String line) {
        return PROCESS_OWNED.matcher(line).find();
    }

    /** {@code rdma resource show}'s summary per device: "pd 2 cq 4 qp 2 cm_id 3 mr 82 ctx 0 srq 0" as a map. */
    public static Map<String, Map<String, Long>> resources(List<String> lines) {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        for (String l : lines) {
            Matcher m = RES.matcher(l);
            if (!m.find()) {
                continue;
            }
            String[] t = m.group(2).trim().split("\\s+");
            Map<String, Long> counts = new LinkedHashMap<>();
            for (int i = 0; i + 1 < t.length; i += 2) {
                try {
                    counts.put(t[i], Long.parseLong(t[i + 1]));
                } catch (NumberFormatException e) {
                    // not a summary line
                }
            }
            if (!counts.isEmpty()) {
                out.put(m.group(1), counts);
            }
        }
        return out;
    }
}
