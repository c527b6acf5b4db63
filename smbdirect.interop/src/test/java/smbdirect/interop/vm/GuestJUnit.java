package smbdirect.interop.vm;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.testsupport.Judges;

/**
 * JUnit test classes run inside the siw VM's guest, by JUnit's console launcher on a
 * {@link GuestJava} runtime, over this module's test class path (the project's jars and test
 * classes), with their results brought back to the host as a {@link GuestReport}: one entry per
 * test, so a host-side {@code @TestFactory} reports each guest test as a test of its own.
 *
 * <p>In the guest: the runtime under {@code /opt/gj/rt}, the class path under {@code /opt/gj/cp}.
 * Each {@link Launch} runs one JVM, its output on the console prefixed with {@code [name] }; when it
 * ends (or was killed at its time limit), its JUnit XML report is printed gzip'd and base64'd
 * between {@code === GUEST REPORT name BEGIN/END ===} lines. Test classes meant only for the guest
 * carry the tag {@value #GUEST_TAG}, which this module's surefire run excludes.
 *
 * <p>{@link #require()} skips the calling test with one line when there is no JDK 22+ to make the
 * runtime from or the console launcher is missing. Immutable, thread-safe.
 */
public final class GuestJUnit {

    /** The tag of test classes that run only inside the guest. */
    public static final String GUEST_TAG = "siw-vm-guest";
    /** System property: the junit-platform-console-standalone jar (the module's pom copies it). */
    public static final String CONSOLE_PROPERTY = "smbdirect.siwvm.junit.console";
    /** Guest memory for runs with JVMs: the kernel and its ramfs (about 150 MB here) and two JVMs. */
    public static final int GUEST_MEMORY_MB = 1536;
    static final String ROOT = "/opt/gj";
    private static final Logger LOG = LoggerFactory.getLogger(GuestJUnit.class);

    private final GuestJava java;
    private final Path classpathArchive;
    private final String guestClasspath;

    private GuestJUnit(GuestJava java, Path classpathArchive, String guestClasspath) {
        this.java = java;
        this.classpathArchive = classpathArchive;
        this.guestClasspath = guestClasspath;
    }

    private static final class Prepared {
        static final Object OUTCOME = prepareAndReport();
    }

    private static Object prepareAndReport() {
        Object o;
        try {
            o = prepare();
        } catch (IOException | RuntimeException e) {
            o = "preparing the guest's runtime or class path failed: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            o = "interrupted while preparing the guest's runtime and class path";
        }
        if (o instanceof String) {
            LOG.warn("guest JVM tests skipped: {}", o);
        }
        return o;
    }

    /**
     * Guest JUnit runs, ready; otherwise aborts the calling test (skipped) with one line saying what
     * is missing. Call after {@link SiwVm#require()}.
     */
    public static GuestJUnit require() {
        Object o = Prepared.OUTCOME;
        if (o instanceof Packed p) {
            return new GuestJUnit(p.java(), p.archive(), p.classpath());
        }
        throw Judges.missing("guest JVM tests cannot run: " + o);
    }

    /** The JDK version the guest runs. */
    public String javaVersion() {
        return java.version();
    }

    private static Object prepare() throws IOException, InterruptedException {
        Object runtime = GuestJava.prepare();
        if (!(runtime instanceof GuestJava java)) {
            return runtime;
        }
        String console = System.getProperty(CONSOLE_PROPERTY, "");
        if (console.isBlank() || !Files.isRegularFile(Paths.get(console))) {
            return "the JUnit console launcher (-D" + CONSOLE_PROPERTY + ") is missing: '" + console + "'";
        }
        Path dir = SiwVm.logs().resolve("guest-cp-" + ProcessHandle.current().pid());
        if (Files.exists(dir)) {
            GuestJava.deleteTree(dir);
        }
        Path cp = Files.createDirectories(dir.resolve("cp"));
        List<String> guest = new ArrayList<>();
        Files.copy(Paths.get(console), cp.resolve("junit-console.jar"));
        guest.add(ROOT + "/cp/junit-console.jar");
        int n = 0;
        for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            Path p = Paths.get(entry);
            String name = p.getFileName() == null ? "" : p.getFileName().toString();
            // the console launcher brings the JUnit Platform and Jupiter; surefire's own jars stay on the host
            if (entry.isBlank() || !Files.exists(p) || name.startsWith("junit-") || name.startsWith("opentest4j")
                    || name.startsWith("apiguardian") || name.contains("surefire")) {
                continue;
            }
            String target = String.format(Locale.ROOT, "%02d-%s", n++, name);
            if (Files.isDirectory(p)) {
                copyTree(p, cp.resolve(target));
            } else {
                Files.copy(p, cp.resolve(target));
            }
            guest.add(ROOT + "/cp/" + target);
        }
        Path log = dir.resolve("tar.log");
        if (!GuestJava.exec(List.of("tar", "czf", "classpath.tgz", "cp"), dir, log)) {
            return "packing the test class path failed: " + Files.readString(log).strip();
        }
        GuestJava.deleteTree(cp);
        return new Packed(java, dir.resolve("classpath.tgz"), String.join(":", guest));
    }

    /** The runtime, the packed class path and its entries as the guest names them. */
    private record Packed(GuestJava java, Path archive, String classpath) {
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    /**
     * {@code spec} with the runtime and the class path copied in and the guest memory two JVMs
     * need; the guest command must begin with {@link #setup()}.
     */
    public SiwVmSpec prepare(SiwVmSpec spec) {
        return spec.put(java.archive(), "/siwvm/runtime.tgz").put(classpathArchive, "/siwvm/classpath.tgz")
                .memory(GUEST_MEMORY_MB);
    }

    /** Guest shell lines that unpack the runtime and the class path (a few seconds under TCG). */
    public String setup() {
        return String.join("\n",
                "mkdir -p " + ROOT,
                "tar xzf /siwvm/runtime.tgz -C " + ROOT + " && tar xzf /siwvm/classpath.tgz -C " + ROOT
                        + " && rm /siwvm/runtime.tgz /siwvm/classpath.tgz || echo 'GUEST JAVA SETUP FAILED'");
    }

    /** A JUnit run in one guest JVM named {@code name} (letters, digits, '-'). */
    public Launch launch(String name) {
        return new Launch(name);
    }

    /** One guest JVM running JUnit test classes. A builder; not thread-safe. */
    public final class Launch {
        private final String name;
        private final List<String> classes = new ArrayList<>();
        private final List<String> methods = new ArrayList<>();
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final Map<String, String> config = new LinkedHashMap<>();
        private Duration timeout = Duration.ofMinutes(5);
        private int heapMb = 256;
        private long lockedMemoryKiB = -1;

        Launch(String name) {
            if (!name.matches("[A-Za-z0-9-]+")) {
                throw new IllegalArgumentException("launch name must be letters, digits or '-': " + name);
            }
            this.name = name;
        }

        /** Runs test class {@code className} (in the order added, unless a class orderer is configured). */
        public Launch select(String className) {
            classes.add(className);
            return this;
        }

        /**
         * Runs only method {@code methodName} of test class {@code className}: the class's other tests are
         * not discovered at all (nothing is reported skipped for them).
         */
        public Launch selectMethod(String className, String methodName) {
            methods.add(className + "#" + methodName);
            return this;
        }

        /** A system property of the guest JVM. */
        public Launch property(String key, String value) {
            properties.put(key, value);
            return this;
        }

        /** A JUnit configuration parameter ({@code --config key=value}). */
        public Launch config(String key, String value) {
            config.put(key, value);
            return this;
        }

        /**
         * The guest JVM prints its threads' stacks after this long (default 5 min) and is killed 20 s
         * later; its report is then missing.
         */
        public Launch timeout(Duration value) {
            this.timeout = value;
            return this;
        }

        /**
         * Runs the JVM with a locked-memory limit ({@code ulimit -l}) of {@code kib} KiB instead of
         * unlimited, as the unprivileged user {@code nobody} (as a service runs), so that the kernel
         * holds it to the limit on every device: rxe's {@code ib_umem_get} lets a holder of
         * {@code CAP_IPC_LOCK} (root) pass; siw counts against the limit regardless.
         */
        public Launch lockedMemoryKiB(long kib) {
            this.lockedMemoryKiB = kib;
            return this;
        }

        /** The guest JVM's maximum heap (default 256 MB). */
        public Launch heapMb(int value) {
            this.heapMb = value;
            return this;
        }

        public String name() {
            return name;
        }

        /**
         * The guest shell lines that run the JVM in the foreground, print its exit status and then
         * its report. The JVM's output goes to the console, each line prefixed with {@code [name] }.
         */
        public String command() {
            return run() + "\n" + report();
        }

        /**
         * The guest shell lines that run the JVM and print its exit status, without the report; run
         * them in the background with {@code ( ... ) &} and print {@link #report()} after waiting.
         */
        public String run() {
            if (classes.isEmpty() && methods.isEmpty()) {
                throw new IllegalStateException("no test class or method selected for " + name);
            }
            StringBuilder java = new StringBuilder();
            // at the time limit SIGQUIT (the JVM prints every thread's stack to the console), 20 s later SIGKILL
            java.append("timeout -s KILL ").append(timeout.toSeconds() + 20).append(" timeout -s QUIT ")
                    .append(timeout.toSeconds()).append(' ').append(ROOT).append("/rt/bin/java")
                    // C1 only: under TCG, C2's compile time costs more than it gains in a test's lifetime
                    .append(" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xmx").append(heapMb).append('m')
                    .append(" --enable-native-access=ALL-UNNAMED -Djava.io.tmpdir=/tmp");
            properties.forEach((k, v) -> java.append(" '-D").append(k).append('=').append(v).append('\''));
            java.append(" -cp ").append(guestClasspath).append(" org.junit.platform.console.ConsoleLauncher execute")
                    .append(" --disable-banner --disable-ansi-colors --details=tree --reports-dir /tmp/junit-")
                    .append(name);
            config.forEach((k, v) -> java.append(" '--config=").append(k).append('=').append(v).append('\''));
            classes.forEach(c -> java.append(" --select-class ").append(c));
            methods.forEach(m -> java.append(" --select-method ").append(m));
            String limit = "unlimited";
            String prepare = ":";
            String run = java.toString();
            if (lockedMemoryKiB >= 0) {
                // as nobody: the JVM, its class path and the RDMA devices readable, /tmp writable
                String script = "/tmp/launch-" + name + ".sh";
                limit = Long.toString(lockedMemoryKiB);
                prepare = String.join("\n", "chmod -R a+rX " + ROOT + "; chmod 1777 /tmp; chmod 666 /dev/infiniband/*",
                        "cat > " + script + " <<'EOF_LAUNCH'", run, "EOF_LAUNCH", "chmod 755 " + script);
                run = "su -s /bin/sh nobody -c " + script;
            }
            return String.join("\n",
                    prepare,
                    "echo \"=== GUEST JUNIT " + name + " START at $(cut -d' ' -f1 /proc/uptime) ===\"",
                    // awk flushes each line: the host waits for lines the guest JVM prints (sed held them back)
                    // RDMA registrations pin memory: siw counts them against RLIMIT_MEMLOCK even for root
                    // (siw_mem.c, siw_umem_get), and the default 8 MiB is less than one 8 MiB I/O buffer
                    "{ ulimit -l " + limit + "; " + run + "; echo \"rc=$?\" > /tmp/junit-" + name + ".rc; } 2>&1 | awk '{ print \"["
                            + name + "] \" $0; fflush() }'",
                    "echo \"=== GUEST JUNIT " + name + " END $(cat /tmp/junit-" + name + ".rc) at $(cut -d' ' -f1 /proc/uptime)"
                            + " ===\"");
        }

        /** The guest shell lines that print the JVM's JUnit report (nothing between the lines when it wrote none). */
        public String report() {
            return String.join("\n",
                    "echo '" + GuestReport.begin(name) + "'",
                    "[ -f /tmp/junit-" + name + "/TEST-junit-jupiter.xml ] && gzip -c /tmp/junit-" + name
                            + "/TEST-junit-jupiter.xml | base64",
                    "echo '" + GuestReport.end(name) + "'");
        }

        /** The report this launch printed in {@code result}'s console. */
        public GuestReport reportOf(SiwVmResult result) {
            return GuestReport.of(name, result);
        }
    }
}
