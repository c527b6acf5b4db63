package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the guest kernel holds on an RDMA device, as {@code rdma resource show} prints it: the
 * device's counts (its summary line: {@code pd}, {@code cq}, {@code qp}, {@code cm_id}, {@code mr},
 * {@code ctx}) and the objects of one process ({@code rdma resource show qp|cq|mr|pd|cm_id}, the
 * entries whose {@code pid} is one of its threads). Test code for guest JVMs; static methods.
 */
final class KernelRdmaResources {

    /** The object kinds compared with a baseline. */
    static final List<String> KINDS = List.of("qp", "cq", "mr", "pd", "cm_id", "ctx");
    /** The kinds {@code rdma resource show KIND} lists one by one with their owner's pid. */
    static final List<String> LISTED = List.of("qp", "cq", "mr", "pd", "cm_id");
    private static final Pattern COUNT = Pattern.compile("(\\w+) (\\d+)");

    private KernelRdmaResources() {
    }

    /** The output of {@code rdma resource show ARGS}. */
    static String show(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("rdma", "resource", "show"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("rdma " + command + " did not end within 30 s");
        }
        return out.strip();
    }

    /**
     * The counts on {@code device}'s line of {@code rdma resource show} ({@code "0: siw0: pd 2 cq 1 qp 0
     * cm_id 1 mr 0 ctx 1"}), kind to count, in {@link #KINDS} order; a kind the line does not name
     * counts 0.
     */
    static Map<String, Integer> deviceCounts(String summary, String device) {
        String line = summary.lines().filter(l -> l.contains(" " + device + ": ")).findFirst()
                .orElseThrow(() -> new AssertionError("rdma resource show names no device " + device + ": " + summary));
        Map<String, Integer> found = new LinkedHashMap<>();
        Matcher m = COUNT.matcher(line.substring(line.indexOf(device + ": ") + device.length() + 2));
        while (m.find()) {
            found.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        KINDS.forEach(k -> counts.put(k, found.getOrDefault(k, 0)));
        return counts;
    }

    /** {@link #deviceCounts(String, String)} of the device now. */
    static Map<String, Integer> deviceCounts(String device) throws IOException, InterruptedException {
        return deviceCounts(show(), device);
    }

    /**
     * The ids of process {@code pid}'s threads ({@code /proc/PID/task}): the kernel names the owner of
     * each object by the id of the thread that made it ({@code task_pid_vnr} of the creating task),
     * which for a JVM is rarely the process id.
     */
    static Set<Long> threadsOf(long pid) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            return tasks.map(t -> Long.parseLong(t.getFileName().toString())).collect(Collectors.toSet());
        }
    }

    /**
     * The objects owned by the threads {@code tids} (of one process, {@link #threadsOf(long)}) per listed
     * kind ({@link #LISTED}), kind to entries.
     */
    static Map<String, List<String>> ofThreads(Set<Long> tids) throws IOException, InterruptedException {
        Pattern owner = Pattern.compile("\\bpid (\\d+)\\b");
        Map<String, List<String>> held = new LinkedHashMap<>();
        for (String kind : LISTED) {
            held.put(kind, show(kind).lines().filter(l -> {
                Matcher m = owner.matcher(l);
                return m.find() && tids.contains(Long.parseLong(m.group(1)));
            }).toList());
        }
        return held;
    }

    /** How many objects {@code held} names in all. */
    static int total(Map<String, List<String>> held) {
        return held.values().stream().mapToInt(List::size).sum();
    }

    /**
     * Reads {@code what} until {@code done} accepts it or {@code seconds} have passed, and returns the
     * last reading: the kernel frees a process's objects and a peer's connection as its own work
     * finishes, not at the instant a test looks.
     */
    static <T> T awaitState(Reading<T> what, Predicate<T> done, int seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        T last = what.read();
        while (!done.test(last) && System.nanoTime() < deadline) {
            Thread.sleep(250);
            last = what.read();
        }
        return last;
    }

    /** A reading of the kernel's state. */
    interface Reading<T> {
        T read() throws IOException, InterruptedException;
    }

    /** Waits (at most {@code seconds}) until the guest shell created {@code file}. */
    static void awaitFile(Path file, int seconds) throws IOException, InterruptedException {
        if (!awaitState(() -> Files.exists(file), Boolean::booleanValue, seconds)) {
            throw new AssertionError(file + " did not appear within " + seconds + " s");
        }
    }

    /** This process's resident set ({@code VmRSS} of {@code /proc/self/status}) in KiB. */
    static long residentKiB() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).findFirst()
                .orElseThrow(() -> new AssertionError("no VmRSS in /proc/self/status"));
    }
}
