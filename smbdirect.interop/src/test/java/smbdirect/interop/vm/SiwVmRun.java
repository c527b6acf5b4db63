package smbdirect.interop.vm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One VM booted by {@code tools/siw-vm/run.sh}, running its guest command. Its console is collected
 * line by line (and written to a log file); tests wait for lines and for the end with bounded waits.
 * {@link #close()} leaves no process behind: it stops run.sh (whose trap stops qemu), then kills
 * qemu and every process run.sh started that is still alive; a shutdown hook does the same if the
 * JVM exits first. Thread-safe.
 */
public final class SiwVmRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SiwVmRun.class);
    /** How long a guest whose kernel faulted may still run ({@link #awaitExit()}). */
    static final Duration AFTER_FAULT = Duration.ofSeconds(15);
    private static final Pattern QEMU_PID = Pattern.compile("\\[run\\.sh\\] qemu pid (\\d+)");
    private static final Pattern END_RC = Pattern.compile("=== SIWVM OUTPUT END rc=(\\d+) ===");
    /** Console escape sequences (SeaBIOS clears the screen) and carriage returns. */
    private static final Pattern NOISE = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z]|\r|\u001Bc");

    private final SiwVmSpec spec;
    private final String kernel;
    private final Map<Integer, Integer> hostPorts;
    private final Process process;
    private final Path consoleLog;
    private final long startNanos = System.nanoTime();
    private final List<String> console = new ArrayList<>();
    private final Set<ProcessHandle> started = new LinkedHashSet<>();
    private final Thread reader;
    private final Thread shutdownHook;
    private long qemuPid = -1;
    private boolean consoleEnded;
    private boolean closed;
    private SiwVmResult result;

    SiwVmRun(SiwVmSpec spec, String kernel, List<String> commandLine, Map<Integer, Integer> hostPorts,
            Path consoleLog) throws IOException {
        this.spec = spec;
        this.kernel = kernel;
        this.hostPorts = Map.copyOf(hostPorts);
        this.consoleLog = consoleLog;
        Files.createDirectories(consoleLog.getParent());
        ProcessBuilder pb = new ProcessBuilder(commandLine).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        this.process = pb.start();
        this.shutdownHook = new Thread(this::kill, "siwvm-shutdown-" + spec.name());
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        this.reader = new Thread(this::readConsole, "siwvm-console-" + spec.name());
        reader.setDaemon(true);
        reader.start();
        LOG.info("siw VM {} started (run.sh pid {}, guest kernel {}), console {}", spec.name(), process.pid(), kernel,
                consoleLog);
    }

    /** The host port on 127.0.0.1 forwarded to {@code guestPort} ({@link SiwVmSpec#forward(int)}). */
    public int hostPort(int guestPort) {
        Integer p = hostPorts.get(guestPort);
        if (p == null) {
            throw new IllegalArgumentException("guest port " + guestPort + " is not forwarded (forwards: "
                    + hostPorts + ")");
        }
        return p;
    }

    /** The file the console is written to. */
    public Path consoleLog() {
        return consoleLog;
    }

    /** The console lines so far. */
    public synchronized List<String> console() {
        return List.copyOf(console);
    }

    private void readConsole() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                Writer log = Files.newBufferedWriter(consoleLog, StandardCharsets.UTF_8)) {
            String raw;
            while ((raw = in.readLine()) != null) {
                String line = NOISE.matcher(raw).replaceAll("");
                log.write(line);
                log.write('\n');
                log.flush();
                recordStarted();
                synchronized (this) {
                    Matcher m = QEMU_PID.matcher(line);
                    if (m.find()) {
                        qemuPid = Long.parseLong(m.group(1));
                    }
                    console.add(line);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            LOG.debug("siw VM {} console ended: {}", spec.name(), e.toString());
        } finally {
            synchronized (this) {
                consoleEnded = true;
                notifyAll();
            }
        }
    }

    /** Remembers run.sh's children (qemu, the console tail, relays) while run.sh is their parent. */
    private void recordStarted() {
        if (process.isAlive()) {
            process.descendants().forEach(h -> {
                synchronized (this) {
                    started.add(h);
                }
            });
        }
    }

    /**
     * Waits until a console line matches {@code match}.
     *
     * @return the first matching line
     * @throws AssertionError when none appeared within {@code timeout} or the VM ended first (with
     *     the console's tail)
     */
    public String awaitLine(Predicate<String> match, String what, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        synchronized (this) {
            while (true) {
                for (; seen < console.size(); seen++) {
                    if (match.test(console.get(seen))) {
                        return console.get(seen);
                    }
                }
                if (consoleEnded) {
                    throw new AssertionError("the VM ended without " + what + "\n" + tail(console, 40)
                            + "\n(console log: " + consoleLog + ")");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no " + what + " within " + timeout + "\n" + tail(console, 40)
                            + "\n(console log: " + consoleLog + ")");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
    }

    /** Waits for a console line containing {@code text}. */
    public String awaitLine(String text, Duration timeout) throws InterruptedException {
        return awaitLine(l -> l.contains(text), "console line containing \"" + text + "\"", timeout);
    }

    /** Whether the console ended (the VM and run.sh are done) before a begin marker appeared. */
    synchronized boolean endedBeforeCommand() {
        return consoleEnded && console.stream().noneMatch(l -> l.contains(SiwVmResult.BEGIN));
    }

    /** Whether a line was printed yet that marks the guest command's start. */
    synchronized boolean commandStarted() {
        return console.stream().anyMatch(l -> l.contains(SiwVmResult.BEGIN));
    }

    /**
     * Waits for the VM to power off (at most its time limit plus 30 s; then it is killed). A guest
     * whose kernel faulted gets {@link #AFTER_FAULT} more to finish its console and is then killed:
     * after an oops its command may hang in the kernel for good.
     *
     * @return how it ended
     */
    public SiwVmResult awaitExit() throws InterruptedException {
        Duration bound = spec.timeout().plusSeconds(30);
        long deadline = System.nanoTime() + bound.toNanos();
        long faultDeadline = Long.MAX_VALUE;
        while (!process.waitFor(1, TimeUnit.SECONDS)) {
            long now = System.nanoTime();
            if (faultDeadline == Long.MAX_VALUE && !kernelFaults().isEmpty()) {
                faultDeadline = now + AFTER_FAULT.toNanos();
            }
            if (now - faultDeadline >= 0) {
                LOG.warn("siw VM {}: the guest kernel faulted ({}), killing the VM", spec.name(), kernelFaults().get(0));
                kill();
                break;
            }
            if (now - deadline >= 0) {
                LOG.warn("siw VM {}: run.sh still running {} after its start, killing it", spec.name(), bound);
                kill();
                break;
            }
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return finish();
    }

    private synchronized SiwVmResult finish() {
        if (result == null) {
            int code = process.isAlive() ? SiwVmResult.TIMED_OUT : process.exitValue();
            result = new SiwVmResult(code, console, Duration.ofNanos(System.nanoTime() - startNanos), consoleLog,
                    kernel);
            LOG.info("siw VM {} ended: exit {}, {} ms", spec.name(), code, result.wall().toMillis());
        }
        return result;
    }

    /** Whether the console shows faults, each a crash in cifs's SMB Direct disconnect work ({@link SiwVmResult}). */
    public boolean onlyCifsDisconnectWorkCrashes() {
        return SiwVmResult.onlyCifsDisconnectWorkCrashes(console(), kernel);
    }

    /** Console lines so far where the guest kernel reports a fault ({@link SiwVmResult#kernelFaults()}). */
    public List<String> kernelFaults() {
        return SiwVmResult.kernelFaults(console(), kernel);
    }

    /** The guest kernel's version (the image's {@code kver}). */
    public String kernel() {
        return kernel;
    }

    /** The guest command's exit status from the end marker, or -1 while none was printed. */
    public synchronized int guestExitCode() {
        for (String line : console) {
            Matcher m = END_RC.matcher(line);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return -1;
    }

    /** Processes of this run still alive: run.sh, qemu and what run.sh started. Empty after {@link #close()}. */
    public synchronized List<ProcessHandle> leftovers() {
        List<ProcessHandle> out = new ArrayList<>();
        if (process.isAlive()) {
            out.add(process.toHandle());
        }
        for (ProcessHandle h : started) {
            if (h.isAlive()) {
                out.add(h);
            }
        }
        if (qemuPid > 0) {
            ProcessHandle.of(qemuPid).filter(ProcessHandle::isAlive).filter(h -> !out.contains(h)).ifPresent(out::add);
        }
        return out;
    }

    private void kill() {
        recordStarted();
        if (process.isAlive()) {
            process.destroy(); // SIGTERM: run.sh's trap stops qemu and the console tail
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        for (ProcessHandle h : leftovers()) {
            LOG.warn("siw VM {}: killing leftover process {} {}", spec.name(), h.pid(),
                    h.info().command().orElse("?"));
            h.destroyForcibly();
        }
    }

    /** Stops the VM if it still runs and makes sure none of its processes is left. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        kill();
        try {
            reader.join(TimeUnit.SECONDS.toMillis(10));
            for (ProcessHandle h : leftovers()) {
                h.onExit().get(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("siw VM {}: a process did not exit after SIGKILL: {}", spec.name(), e.toString());
        }
        finish();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs anyway
        }
    }

    static String tail(List<String> lines, int n) {
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }
}
