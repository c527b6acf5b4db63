package smbdirect.interop.vm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one VM run does: the guest shell command and its port forwards, files to copy in, and the
 * time limit. A builder; not thread-safe.
 */
public final class SiwVmSpec {

    /** A file copied into the guest before the command starts. */
    public record Put(Path file, String guestPath) {
    }

    private final String command;
    private final List<Integer> forwards = new ArrayList<>();
    private final Map<Integer, Integer> guestForwards = new LinkedHashMap<>();
    private final List<Put> puts = new ArrayList<>();
    private Duration timeout = Duration.ofSeconds(180);
    private String name = "vm";
    private int memoryMb = 512;
    private String rdma = "siw";

    private SiwVmSpec(String command) {
        this.command = Objects.requireNonNull(command, "command");
    }

    /** A run of {@code command} (a {@code sh -c} script in the guest, any length). */
    public static SiwVmSpec command(String command) {
        return new SiwVmSpec(command);
    }

    /**
     * Forwards a free host port on 127.0.0.1 to {@code guestPort} on the guest (10.0.2.15), for
     * servers in the guest; {@link SiwVmRun#hostPort(int)} tells which port was picked.
     */
    public SiwVmSpec forward(int guestPort) {
        checkPort(guestPort);
        forwards.add(guestPort);
        return this;
    }

    /**
     * Forwards {@code guestPort} on 10.0.2.100 in the guest to {@code hostPort} on the host's
     * 127.0.0.1, for guest clients with a fixed port (cifs with {@code rdma} dials 5445). Guest
     * clients with a configurable port reach the host's 127.0.0.1 as 10.0.2.2 without a forward.
     */
    public SiwVmSpec guestForward(int guestPort, int hostPort) {
        checkPort(guestPort);
        checkPort(hostPort);
        guestForwards.put(guestPort, hostPort);
        return this;
    }

    /** Copies {@code file} into the guest at {@code guestPath} before the command starts. */
    public SiwVmSpec put(Path file, String guestPath) {
        puts.add(new Put(file, guestPath));
        return this;
    }

    /** The VM is killed this long after the guest command started (default 180 s); the run then exits with 124. */
    public SiwVmSpec timeout(Duration value) {
        if (value.isNegative() || value.isZero() || value.toSeconds() < 1) {
            throw new IllegalArgumentException("timeout must be at least 1 s: " + value);
        }
        this.timeout = value;
        return this;
    }

    /** Guest RAM in MB (default 512, as run.sh's). */
    public SiwVmSpec memory(int mb) {
        if (mb < 256) {
            throw new IllegalArgumentException("guest memory must be at least 256 MB: " + mb);
        }
        this.memoryMb = mb;
        return this;
    }

    /**
     * The RDMA device the guest starts with on eth0: {@code siw} (siw0, soft-iWARP, the default),
     * {@code rxe} (rxe0, soft-RoCE v2) or {@code none}; the guest command switches with
     * {@code rdma-dev siw|rxe|none}.
     */
    public SiwVmSpec rdma(String device) {
        if (!List.of("siw", "rxe", "none").contains(device)) {
            throw new IllegalArgumentException("rdma device must be siw, rxe or none: " + device);
        }
        this.rdma = device;
        return this;
    }

    /** A name for the console log file and the console thread (default "vm"). */
    public SiwVmSpec name(String value) {
        if (!value.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("name must be letters, digits, '.', '_' or '-': " + value);
        }
        this.name = value;
        return this;
    }

    String command() {
        return command;
    }

    List<Integer> forwards() {
        return forwards;
    }

    Map<Integer, Integer> guestForwards() {
        return guestForwards;
    }

    List<Put> puts() {
        return puts;
    }

    Duration timeout() {
        return timeout;
    }

    String name() {
        return name;
    }

    int memoryMb() {
        return memoryMb;
    }

    String rdma() {
        return rdma;
    }

    private static void checkPort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535: " + port);
        }
    }
}
