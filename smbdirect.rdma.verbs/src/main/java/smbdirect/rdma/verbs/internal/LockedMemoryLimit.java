package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's locked-memory limit ({@code RLIMIT_MEMLOCK}), which every registration's pinned
 * pages count against (siw counts them for root too), read without calling into C from the
 * kernel's own account of it ({@code /proc/self/limits}, the "Max locked memory" line). Used to
 * explain a registration refused with {@code ENOMEM}. Stateless.
 */
final class LockedMemoryLimit {

    /** {@code ENOMEM}: what {@code ibv_reg_mr} fails with when the pages cannot be pinned. */
    static final int ENOMEM = 12;

    private static final String LINE = "Max locked memory";

    private LockedMemoryLimit() {
    }

    /**
     * The soft limit in bytes in a {@code /proc/<pid>/limits} text, {@link Long#MAX_VALUE} when
     * unlimited, -1 when the text has no such line or it cannot be read.
     */
    static long softLimit(String limits) {
        for (String line : limits.split("\n")) {
            if (line.startsWith(LINE)) {
                String[] f = line.substring(LINE.length()).trim().split("\\s+");
                if (f.length == 0) {
                    return -1;
                }
                if (f[0].equals("unlimited")) {
                    return Long.MAX_VALUE;
                }
                try {
                    return Long.parseLong(f[0]);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    /** This process's soft limit as {@link #softLimit(String)} gives it. */
    static long current() {
        try {
            return softLimit(Files.readString(Path.of("/proc/self/limits"), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * What to tell the caller whose registration of {@code bytes} failed with {@code e}: for
     * {@code ENOMEM}, the locked-memory limit in force and how to raise it (empty for other failures).
     */
    static String explain(IOException e, long bytes, long softLimit) {
        if (!(e instanceof NativeCallException n) || n.errno() != ENOMEM) {
            return "";
        }
        if (softLimit == Long.MAX_VALUE) {
            return "; the locked-memory limit (RLIMIT_MEMLOCK) is unlimited, so the kernel or the device could not "
                    + "pin the " + bytes + " bytes";
        }
        String limit = softLimit < 0 ? "unknown (/proc/self/limits unreadable)" : softLimit + " bytes";
        return "; pinning " + bytes + " bytes is counted against the locked-memory limit (RLIMIT_MEMLOCK), "
                + limit + " for this process with what it has registered already: raise it (ulimit -l unlimited;"
                + " for a systemd service LimitMEMLOCK=infinity)";
    }
}
