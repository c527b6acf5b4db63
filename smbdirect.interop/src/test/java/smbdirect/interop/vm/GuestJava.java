package smbdirect.interop.vm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Java runtime for the siw VM's guest: a JDK 22 or later of the host (the Foreign Function &amp;
 * Memory API of the rdma-core backend is final in 22), cut down by {@code jlink} to the modules the
 * tests use, and packed as {@code runtime.tgz} with a {@code rt/} directory. The guest shares the
 * host's glibc (Debian 12), and the image carries the glibc libraries a JVM links.
 *
 * <p>The JDK: {@value #JDK_PROPERTY} if set, else the JVM running the tests if it is 22 or later,
 * else the newest JDK 22+ under {@code /usr/lib/jvm} (its {@code release} file and {@code bin/jlink}).
 * Built once per JDK build and module list, in {@code $SIW_VM_CACHE/guest-java/<key>} (default
 * {@code /var/tmp/siw-vm}), or under the logs directory when the cache is not writable; published
 * with one rename, so concurrent builds never see half a runtime. Without a JDK 22+ the guest tests
 * are skipped with one line saying so ({@link GuestJUnit#require()}). Immutable, thread-safe.
 */
public final class GuestJava {

    /** System property: the JDK (22 or later) whose runtime goes into the guest. */
    public static final String JDK_PROPERTY = "smbdirect.siwvm.jdk";
    /** The modules of the guest runtime (jdeps over the project's jars and the JUnit console launcher; jdk.management for
     * the exact per-thread allocation counter of the steady-state tests). */
    static final List<String> MODULES = List.of("java.base", "java.logging", "java.management", "java.xml",
            "java.sql", "jdk.management", "jdk.unsupported");
    private static final List<String> JLINK_OPTIONS = List.of("--strip-debug", "--no-man-pages",
            "--no-header-files", "--compress=zip-6");
    private static final Duration JLINK_TIMEOUT = Duration.ofMinutes(5);
    private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)[^\"]*\"");
    private static final Logger LOG = LoggerFactory.getLogger(GuestJava.class);

    private final Path jdk;
    private final String version;
    private final Path archive;

    private GuestJava(Path jdk, String version, Path archive) {
        this.jdk = jdk;
        this.version = version;
        this.archive = archive;
    }

    /** {@code runtime.tgz}: the jlink'd runtime under {@code rt/}. */
    public Path archive() {
        return archive;
    }

    /** The JDK the runtime was made from. */
    public Path jdk() {
        return jdk;
    }

    /** That JDK's {@code JAVA_RUNTIME_VERSION}, e.g. {@code 25.0.3+9-LTS}. */
    public String version() {
        return version;
    }

    /**
     * The runtime, built if need be, or why there is none (a String). {@link GuestJUnit#require()}
     * calls it once per JVM.
     */
    static Object prepare() throws IOException, InterruptedException {
        Optional<Path> found = findJdk();
        if (found.isEmpty()) {
            return "no JDK 22 or later (the rdma-core backend's Foreign Function & Memory API) to make the guest's "
                    + "runtime from: none given by -D" + JDK_PROPERTY + ", the test JVM is " + Runtime.version().feature()
                    + ", none under /usr/lib/jvm";
        }
        Path jdk = found.get();
        String release = Files.readString(jdk.resolve("release"), StandardCharsets.UTF_8);
        String version = field(release, "JAVA_RUNTIME_VERSION").orElse(field(release, "JAVA_VERSION").orElse("?"));
        String key = sha256(release + MODULES + JLINK_OPTIONS).substring(0, 16);
        Path dir = cacheRoot().resolve(key);
        Path archive = dir.resolve("runtime.tgz");
        if (Files.isRegularFile(archive)) {
            return new GuestJava(jdk, version, archive);
        }
        Files.createDirectories(dir.getParent());
        Path tmp = Files.createTempDirectory(dir.getParent(), "." + key + ".");
        try {
            long t0 = System.nanoTime();
            Path log = tmp.resolve("jlink.log");
            List<String> jlink = new ArrayList<>(List.of(jdk.resolve("bin/jlink").toString(), "--add-modules",
                    String.join(",", MODULES)));
            jlink.addAll(JLINK_OPTIONS);
            jlink.addAll(List.of("--output", tmp.resolve("rt").toString()));
            if (!exec(jlink, tmp, log)) {
                return "jlink failed: " + Files.readString(log, StandardCharsets.UTF_8).strip();
            }
            if (!exec(List.of("tar", "czf", "runtime.tgz", "rt"), tmp, log)) {
                return "packing the guest's runtime failed: " + Files.readString(log, StandardCharsets.UTF_8).strip();
            }
            deleteTree(tmp.resolve("rt"));
            try {
                Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
                // another build published the same runtime first
            } catch (IOException e) {
                if (!Files.isRegularFile(archive)) {
                    throw e;
                }
            }
            LOG.info("guest Java runtime {} from {} in {} ms: {}", version, jdk,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), archive);
        } finally {
            if (Files.exists(tmp)) {
                deleteTree(tmp);
            }
        }
        return new GuestJava(jdk, version, archive);
    }

    /** Where runtimes are kept: the VM image cache when writable, else the logs directory. */
    private static Path cacheRoot() {
        String env = System.getenv("SIW_VM_CACHE");
        Path cache = Paths.get(env != null && !env.isBlank() ? env : "/var/tmp/siw-vm");
        if (Files.isDirectory(cache) && Files.isWritable(cache)) {
            return cache.resolve("guest-java");
        }
        return SiwVm.logs().resolve("guest-java");
    }

    /** The JDK 22+ to use, by {@value #JDK_PROPERTY}, the running JVM, or the newest under /usr/lib/jvm. */
    static Optional<Path> findJdk() throws IOException {
        String given = System.getProperty(JDK_PROPERTY, "");
        if (!given.isBlank()) {
            Path p = Paths.get(given);
            return feature(p) >= 22 ? Optional.of(p) : Optional.empty();
        }
        Path running = Paths.get(System.getProperty("java.home"));
        if (feature(running) >= 22) {
            return Optional.of(running);
        }
        Path jvms = Paths.get("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> s = Files.list(jvms)) {
            return s.filter(p -> !Files.isSymbolicLink(p)).filter(p -> feature(p) >= 22)
                    .max(Comparator.comparingInt(GuestJava::feature).thenComparing(Path::toString));
        }
    }

    /** The feature release of the JDK at {@code home} (0 when it is none, or has no jlink). */
    private static int feature(Path home) {
        try {
            if (!Files.isExecutable(home.resolve("bin/jlink"))) {
                return 0;
            }
            Matcher m = VERSION.matcher(Files.readString(home.resolve("release"), StandardCharsets.UTF_8));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private static Optional<String> field(String release, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "=\"([^\"]*)\"").matcher(release);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code cmd} in {@code dir} with a time limit, output to {@code log}; whether it exited 0. */
    static boolean exec(List<String> cmd, Path dir, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        if (!p.waitFor(JLINK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            Files.writeString(log, "\n" + cmd.get(0) + " killed after " + JLINK_TIMEOUT,
                    java.nio.file.StandardOpenOption.APPEND);
            return false;
        }
        return p.exitValue() == 0;
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
