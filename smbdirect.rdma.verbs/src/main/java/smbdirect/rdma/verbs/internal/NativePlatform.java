package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The operating system, processor architecture and C library this JVM runs on, as the rdma-core
 * backend needs to know them before it touches C: its structure layouts ({@code ibv_context} with
 * the {@code pthread_mutex_t} inside it, {@code ibv_wc}, {@code ibv_send_wr}, ...) are those of
 * x86-64 Linux with glibc, and on anything else it is refused. The C library is found without
 * calling into native code: from the shared objects mapped into this process
 * ({@code /proc/self/maps}): musl's loader ({@code ld-musl-*.so.1}) or glibc's {@code libc.so.6} /
 * {@code ld-linux-x86-64.so.2}. Immutable.
 *
 * @param osName {@code os.name}
 * @param osArch {@code os.arch}
 * @param libc {@link #GLIBC}, {@link #MUSL} or a description of an unknown C library
 */
public record NativePlatform(String osName, String osArch, String libc) {

    public static final String GLIBC = "glibc";
    public static final String MUSL = "musl";
    /** What the rdma-core backend's layouts are those of. */
    public static final String SUPPORTED = "Linux x86-64 (amd64) with glibc";

    /** This JVM's platform, its C library read from {@code /proc/self/maps}. */
    public static NativePlatform current() {
        return of(System.getProperty("os.name", ""), System.getProperty("os.arch", ""), Path.of("/proc/self/maps"));
    }

    /** A platform whose C library is read from a {@code /proc/<pid>/maps} file. */
    static NativePlatform of(String osName, String osArch, Path maps) {
        List<String> lines;
        try {
            lines = Files.readAllLines(maps);
        } catch (IOException | RuntimeException e) {
            return new NativePlatform(osName, osArch, "an unknown C library (" + maps + " unreadable: " + e + ")");
        }
        return new NativePlatform(osName, osArch, libcOf(lines));
    }

    /** The C library named by the mapped files of {@code /proc/<pid>/maps} lines. */
    static String libcOf(List<String> mapsLines) {
        boolean glibc = false;
        for (String line : mapsLines) {
            int slash = line.lastIndexOf('/');
            if (slash < 0) {
                continue;
            }
            String file = line.substring(slash + 1).trim();
            if (file.startsWith("ld-musl-") || file.startsWith("libc.musl-")) {
                // musl first: a glibc compatibility layer on musl may map files named like glibc's
                return MUSL;
            }
            if (file.equals("libc.so.6") || file.startsWith("ld-linux-") || file.matches("libc-2\\.\\d+\\.so")) {
                glibc = true;
            }
        }
        return glibc ? GLIBC : "an unknown C library (neither glibc's libc.so.6 nor musl's ld-musl mapped)";
    }

    /** Whether this is x86-64, whatever the JVM calls it. */
    public boolean amd64() {
        String arch = osArch.toLowerCase(Locale.ROOT);
        return arch.equals("amd64") || arch.equals("x86_64") || arch.equals("x86-64");
    }

    /**
     * Why the rdma-core backend must not run here, in one line, or {@code null} when its layouts are
     * this platform's.
     */
    public String rdmaCoreRefusal() {
        if (osName.equals("Linux") && amd64() && libc.equals(GLIBC)) {
            return null;
        }
        return "its C structure layouts (ibv_context with its pthread_mutex_t, ibv_wc, ibv_send_wr, ...) are those "
                + "of " + SUPPORTED + "; this JVM runs on " + osName + " " + osArch + " with " + libc
                + ": use backend disni (its native library is compiled on the machine)";
    }
}
