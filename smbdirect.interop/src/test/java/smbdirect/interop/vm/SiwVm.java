package smbdirect.interop.vm;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.testsupport.Judges;

/**
 * The siw VM of {@code tools/siw-vm}: a QEMU guest with a stock Debian kernel, Linux soft-iWARP
 * ({@code siw0} on {@code eth0}), rdma-core's tools, ksmbd and cifs with SMB Direct.
 *
 * <p>{@link #require()} finds the image that {@code build.sh} made for the repository's tool files
 * (in {@code $SIW_VM_CACHE}, default {@code /var/tmp/siw-vm}). When there is none it runs
 * {@code build.sh} once per machine (as root, through apt-get; a few minutes the first time, under
 * a minute when only the tool files changed), with its log in {@code target/siw-vm/}. Where the image
 * cannot be had, the VM is a missing judge ({@link Judges#missing}: the calling test fails in
 * strict mode, CI, and is skipped otherwise) with one line naming what is missing (not root, no
 * apt-get, the build failed and its log, not x86_64 Linux, a missing host tool);
 * {@code -Dsmbdirect.siwvm.build=false} does not build. {@link #start} boots a VM that runs one
 * guest command. Immutable, thread-safe.
 *
 * <p>{@link #require(String)} is the same for the image of another Debian kernel series
 * ({@code build.sh --kernel SERIES}, such as {@value #KERNEL_6_12}, the kernel behind
 * {@code linux-image-6.12-amd64}), an image of its own beside the default one.
 */
public final class SiwVm {

    /** System property: the {@code tools/siw-vm} directory (the module's pom sets it). */
    public static final String TOOL_PROPERTY = "smbdirect.siwvm.tool";
    /** System property: where console logs and the build log go (default {@code target/siw-vm}). */
    public static final String LOGS_PROPERTY = "smbdirect.siwvm.logs";
    /** System property: {@code false} does not build a missing image (the VM is then a missing judge). */
    public static final String BUILD_PROPERTY = "smbdirect.siwvm.build";

    /**
     * The kernel series of Debian 12's {@code linux-image-6.12-amd64}: its cifs maps the pages of
     * every buffer it sends over SMB Direct, module and vmalloc addresses included, where 6.1's cifs
     * hands siw and rxe a wrong address for its compound padding (tools/siw-vm/README.md).
     */
    public static final String KERNEL_6_12 = "6.12";

    private static final Logger LOG = LoggerFactory.getLogger(SiwVm.class);
    /** Bound of one image build (apt downloads and three kernel module builds on a busy machine). */
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(30);
    /**
     * Bound from starting run.sh to the guest command's start (TCG boots in 3 to 8 s on an idle host,
     * over 20 s beside other builds); run.sh's time limit ({@link SiwVmSpec#timeout}) counts from there.
     */
    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(120);
    private static final int START_ATTEMPTS = 3;
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS", Locale.ROOT);

    private final Path tool;
    private final String series;
    private final Path image;
    private final Path logs;
    private final String kernel;

    private SiwVm(Path tool, String series, Path image, Path logs, String kernel) {
        this.tool = tool;
        this.series = series;
        this.image = image;
        this.logs = logs;
        this.kernel = kernel;
    }

    /** Each image was looked for (and built if need be) once per JVM: this holds the outcomes, by series ("" the default). */
    private static final Map<String, Object> PREPARED = new HashMap<>();

    private static synchronized Object prepared(String series) {
        return PREPARED.computeIfAbsent(series, s -> {
            Object o = prepare(s);
            if (!(o instanceof SiwVm)) {
                LOG.warn("no siw VM{}: {}", s.isEmpty() ? "" : " with kernel " + s, o);
            }
            return o;
        });
    }

    /**
     * The VM, ready to boot; otherwise a missing judge ({@link Judges#missing}) with one line that
     * says what is missing.
     */
    public static SiwVm require() {
        return require("");
    }

    /**
     * The VM of the image with the kernel behind Debian's {@code linux-image-SERIES-amd64}
     * ({@code build.sh --kernel SERIES}); an empty series is the default image ({@link #require()}).
     * Otherwise a missing judge, as {@link #require()}.
     */
    public static SiwVm require(String series) {
        if (!series.isEmpty() && !series.matches("[0-9]+\\.[0-9]+")) {
            throw new IllegalArgumentException("a kernel series such as 6.12, not '" + series + "'");
        }
        Object o = prepared(series);
        if (o instanceof SiwVm vm) {
            return vm;
        }
        throw Judges.missing("no siw VM" + (series.isEmpty() ? "" : " with kernel " + series) + ": " + o);
    }

    /** Where console logs, captures and the image build log go ({@value #LOGS_PROPERTY}, default target/siw-vm). */
    public static Path logs() {
        return Paths.get(System.getProperty(LOGS_PROPERTY, "target/siw-vm")).toAbsolutePath();
    }

    /** The image directory (vmlinuz, initramfs.cpio.gz, kver). */
    public Path image() {
        return image;
    }

    /** The guest kernel's version, from the image's {@code kver} (such as {@code 6.1.0-56-amd64}). */
    public String kernel() {
        return kernel;
    }

    private static Object prepare(String series) {
        Path tool = toolDir();
        if (tool == null) {
            return "tools/siw-vm not found above " + Paths.get("").toAbsolutePath() + " (set -D" + TOOL_PROPERTY + ")";
        }
        Path logs = logs();
        String os = System.getProperty("os.name", "") + "/" + System.getProperty("os.arch", "");
        if (!os.equals("Linux/amd64")) {
            return "the siw VM needs an x86_64 Linux host (this is " + os + ")";
        }
        if (Judges.onPath("bash").isEmpty()) {
            return "bash not on PATH";
        }
        try {
            List<String> build = new ArrayList<>(List.of("bash", tool.resolve("build.sh").toString()));
            if (!series.isEmpty()) {
                build.addAll(List.of("--kernel", series));
            }
            List<String> print = new ArrayList<>(build);
            print.add("--print-image");
            String buildLine = String.join(" ", build.subList(1, build.size()));
            Exec found = exec(print, Duration.ofSeconds(60), null);
            if (found.exit != 0) {
                String missing = found.output.strip();
                if (!Boolean.parseBoolean(System.getProperty(BUILD_PROPERTY, "true"))) {
                    return missing + "; -D" + BUILD_PROPERTY + "=false";
                }
                if (uid() != 0) {
                    return missing + "; building it needs root (run " + buildLine + " as root once)";
                }
                if (Judges.onPath("apt-get").isEmpty()) {
                    return missing + "; building it needs apt-get (a Debian 12 host)";
                }
                Files.createDirectories(logs);
                Path log = logs.resolve(series.isEmpty() ? "siw-vm-build.log" : "siw-vm-build-" + series + ".log");
                LOG.info("building the siw VM image (once per machine and tool version), log {}", log);
                long t0 = System.nanoTime();
                Exec built = exec(build, BUILD_TIMEOUT, log);
                if (built.exit != 0) {
                    return "building the image failed (" + (built.timedOut ? "killed after " + BUILD_TIMEOUT
                            : "exit " + built.exit) + "), log: " + log;
                }
                LOG.info("siw VM image built in {} s", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
                found = exec(print, Duration.ofSeconds(60), null);
                if (found.exit != 0) {
                    return "build.sh succeeded but found no image: " + found.output.strip() + ", log: " + log;
                }
            }
            for (String t : List.of("qemu-system-x86_64", "cpio", "gzip", "python3")) {
                if (Judges.onPath(t).isEmpty()) {
                    return t + " not on PATH (apt-get install qemu-system-x86 cpio gzip python3)";
                }
            }
            Path image = Paths.get(found.output.strip());
            Path kver = image.resolve("kver");
            if (!Files.isRegularFile(kver)) {
                return "the image " + image + " has no kver file (rebuild it with " + buildLine + ")";
            }
            return new SiwVm(tool, series, image, logs, Files.readString(kver, StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            return "looking for the image failed: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while looking for the image";
        }
    }

    /**
     * Boots a VM running {@code spec}'s command and returns once the command started (the forwards
     * are then in place). A host port that another process took between picking and binding makes
     * QEMU fail at once; the start is then retried with other ports.
     *
     * @throws AssertionError when the VM does not reach the command (with the console's tail)
     */
    public SiwVmRun start(SiwVmSpec spec) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            Map<Integer, Integer> hostPorts = new LinkedHashMap<>();
            List<String> cmd = new ArrayList<>(List.of("bash", tool.resolve("run.sh").toString(),
                    "--timeout", Long.toString(spec.timeout().toSeconds()), "--mem", Integer.toString(spec.memoryMb()),
                    "--rdma", spec.rdma(), "--boot-timeout", Long.toString(BOOT_TIMEOUT.toSeconds())));
            if (!series.isEmpty()) {
                cmd.addAll(List.of("--kernel", series));
            }
            for (int guestPort : spec.forwards()) {
                int hostPort = freePort();
                hostPorts.put(guestPort, hostPort);
                cmd.addAll(List.of("--fwd", hostPort + ":" + guestPort));
            }
            for (Map.Entry<Integer, Integer> g : spec.guestForwards().entrySet()) {
                cmd.addAll(List.of("--guestfwd", g.getKey() + ":" + g.getValue()));
            }
            for (SiwVmSpec.Put p : spec.puts()) {
                cmd.addAll(List.of("--put", p.file().toAbsolutePath() + ":" + p.guestPath()));
            }
            cmd.add("--");
            cmd.add(withKernelLog(spec.command()));
            Path log = logs.resolve(spec.name() + "-" + LocalDateTime.now().format(STAMP) + ".log");
            SiwVmRun run = new SiwVmRun(spec, kernel, cmd, hostPorts, log);
            try {
                run.awaitLine(l -> l.contains(SiwVmResult.BEGIN), "start of the guest command", BOOT_TIMEOUT);
                return run;
            } catch (AssertionError e) {
                boolean portTaken = run.endedBeforeCommand()
                        && run.console().stream().anyMatch(l -> l.contains("Could not set up host forwarding rule"));
                run.close();
                if (!portTaken || attempt == START_ATTEMPTS) {
                    throw e;
                }
                LOG.info("siw VM {}: a forwarded host port was taken meanwhile, starting again", spec.name());
            }
        }
    }

    /**
     * The guest command, run in a subshell, then the guest kernel's whole log ({@code dmesg -r}, every
     * level: WARNING splats are below the console's log level 4) after {@link SiwVmResult#KERNEL_LOG},
     * and the command's exit status as the script's.
     */
    static String withKernelLog(String command) {
        return "(\n" + command + "\n)\nsiwvm_rc=$?\necho '" + SiwVmResult.KERNEL_LOG + "'\ndmesg -r\nexit $siwvm_rc\n";
    }

    /** Boots a VM running {@code spec}'s command and waits until it powers off. */
    public SiwVmResult run(SiwVmSpec spec) throws IOException, InterruptedException {
        try (SiwVmRun r = start(spec)) {
            return r.awaitExit();
        }
    }

    /** A TCP port on 127.0.0.1 that was free a moment ago. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static Path toolDir() {
        String p = System.getProperty(TOOL_PROPERTY);
        if (p != null && !p.isBlank()) {
            Path d = Paths.get(p).toAbsolutePath().normalize();
            return Files.isRegularFile(d.resolve("run.sh")) ? d : null;
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path d = dir.resolve("tools/siw-vm");
            if (Files.isRegularFile(d.resolve("run.sh"))) {
                return d;
            }
        }
        return null;
    }

    /** This process's user id (the owner of /proc/self). */
    private static int uid() throws IOException {
        return (Integer) Files.getAttribute(Paths.get("/proc/self"), "unix:uid");
    }

    private record Exec(int exit, boolean timedOut, String output) {
    }

    /** Runs a command with a time limit; its output goes to {@code log}, or is returned when null. */
    private static Exec exec(List<String> cmd, Duration timeout, Path log) throws IOException, InterruptedException {
        Path out = log != null ? log : Files.createTempFile("siwvm", ".out");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            boolean done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!done) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
            String text = log != null ? "" : Files.readString(out, StandardCharsets.UTF_8);
            return new Exec(done ? p.exitValue() : -1, !done, text);
        } finally {
            if (log == null) {
                Files.deleteIfExists(out);
            }
        }
    }
}
