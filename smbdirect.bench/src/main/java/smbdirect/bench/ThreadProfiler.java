package smbdirect.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Where the threads of an iWARP benchmark ran and how often they were switched out, per iteration,
 * from Linux's per-task counters ({@code /proc/self/task/<tid>/stat} and {@code status}), to tell
 * why a fork lands in a slow mode ({@code smbdirect.bench/src/main/scripts/spread.py} runs the forks
 * and sets the modes side by side). Use with {@code -prof smbdirect.bench.ThreadProfiler}.
 *
 * <p>The threads are told apart by their Linux name (the first 15 characters of the Java name): the
 * providers' I/O threads ({@code smbdirect-iwarp}), the benchmark thread (JMH's worker, whose name
 * starts with the benchmark's), the JIT
 * compilers ({@code C1 CompilerThre}, {@code C2 CompilerThre}) and the garbage collector ({@code G1
 * ...}, {@code GC Thread#n}). The two I/O threads that used the most CPU in the iteration carry the
 * connection (the client's and the server's); a sampler thread looks at them every
 * {@value #SAMPLE_MILLIS} ms. Per iteration (per second of it unless said otherwise):
 * <ul>
 * <li>{@code thr.io.cpu}, {@code thr.bench.cpu}, {@code thr.jit.cpu}, {@code thr.gc.cpu}: CPU ms
 * of the busy I/O pair, the benchmark thread, the compilers, the collector;</li>
 * <li>{@code thr.io.vcsw}, {@code thr.io.ivcsw}: voluntary (went to sleep: an empty socket, a
 * selector wait) and involuntary (preempted) context switches of the busy pair;
 * {@code thr.bench.vcsw}, {@code thr.bench.ivcsw} of the benchmark thread;</li>
 * <li>{@code thr.io.sameCpu} (%): of the samples in which both busy I/O threads were runnable, those
 * in which the kernel had them on the same CPU (so one waited for the other);
 * {@code thr.io.bothRunnable} (%): samples in which both were runnable;</li>
 * <li>{@code thr.host.steal}, {@code thr.host.others}: CPU ms the hypervisor stole and that
 * processes other than this JVM used (from {@code /proc/stat} and this process's CPU time).</li>
 * </ul>
 */
public final class ThreadProfiler implements InternalProfiler {

    static final long SAMPLE_MILLIS = 10;
    private static final Path TASKS = Path.of("/proc/self/task");
    private static final double TICK_MS = 1000.0 / 100; // USER_HZ: clock ticks of /proc are 1/100 s

    private Map<Integer, long[]> before = new HashMap<>();
    private long[] hostBefore;
    private long startNanos;
    private Sampler sampler;

    @Override
    public String getDescription() {
        return "per-thread CPU, context switches and CPU placement of the iWARP I/O threads (Linux /proc)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = tasks();
        hostBefore = host();
        startNanos = System.nanoTime();
        sampler = new Sampler();
        sampler.start();
    }

    @Override
    public List<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        Sampler s = sampler;
        s.stopAndJoin();
        Map<Integer, long[]> after = tasks();
        // JMH tears the trial's state down within the last iteration: I/O threads gone by now count
        // with what the sampler last saw of them
        s.last.forEach(after::putIfAbsent);
        long[] hostAfter = host();
        // per task: cpu ticks, voluntary and involuntary switches in the iteration
        List<Integer> io = new ArrayList<>();
        double bench = 0;
        double jit = 0;
        double gc = 0;
        double self = 0;
        long[] benchSw = new long[2];
        java.util.Set<String> workers = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("jmh-worker")) {
                workers.add(t.getName().substring(0, Math.min(15, t.getName().length()))); // Linux keeps 15
            }
        }
        for (Map.Entry<Integer, long[]> e : after.entrySet()) {
            long[] b = before.getOrDefault(e.getKey(), new long[4]);
            long[] a = e.getValue();
            double cpu = (a[0] - b[0]) * TICK_MS;
            self += cpu;
            String name = s.names.containsKey(e.getKey()) ? s.names.get(e.getKey()) : name(e.getKey());
            if (name.startsWith("smbdirect-iwar")) {
                io.add(e.getKey());
            } else if (workers.contains(name)) {
                bench += cpu;
                benchSw[0] += a[1] - b[1];
                benchSw[1] += a[2] - b[2];
            } else if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
                jit += cpu;
            } else if (name.startsWith("G1 ") || name.startsWith("GC Thread")) {
                gc += cpu;
            }
        }
        io.sort((x, y) -> Long.compare(delta(after, y, 0), delta(after, x, 0)));
        double ioCpu = 0;
        long vcsw = 0;
        long ivcsw = 0;
        for (int i = 0; i < Math.min(2, io.size()); i++) {
            int tid = io.get(i);
            ioCpu += delta(after, tid, 0) * TICK_MS;
            vcsw += delta(after, tid, 1);
            ivcsw += delta(after, tid, 2);
        }
        // the pair's placement, from the samples of the two that turned out busiest
        int both = 0;
        int same = 0;
        if (io.size() >= 2) {
            int x = io.get(0);
            int y = io.get(1);
            for (int[] sample : s.samples) {
                int[] px = s.find(sample, x);
                int[] py = s.find(sample, y);
                if (px != null && py != null && px[1] == 'R' && py[1] == 'R') {
                    both++;
                    if (px[2] == py[2]) {
                        same++;
                    }
                }
            }
        }
        double total = (hostAfter[0] - hostBefore[0]) * TICK_MS;
        double steal = (hostAfter[1] - hostBefore[1]) * TICK_MS;
        double samples = Math.max(1, s.samples.size());
        return List.of(
                scalar("thr.io.cpu", ioCpu / seconds, "ms/s"),
                scalar("thr.bench.cpu", bench / seconds, "ms/s"),
                scalar("thr.jit.cpu", jit / seconds, "ms/s"),
                scalar("thr.gc.cpu", gc / seconds, "ms/s"),
                scalar("thr.io.vcsw", vcsw / seconds, "1/s"),
                scalar("thr.io.ivcsw", ivcsw / seconds, "1/s"),
                scalar("thr.bench.vcsw", benchSw[0] / seconds, "1/s"),
                scalar("thr.bench.ivcsw", benchSw[1] / seconds, "1/s"),
                scalar("thr.io.bothRunnable", 100.0 * both / samples, "%"),
                scalar("thr.io.sameCpu", both == 0 ? 0 : 100.0 * same / both, "%"),
                scalar("thr.host.steal", steal / seconds, "ms/s"),
                scalar("thr.host.others", Math.max(0, total - self) / seconds, "ms/s"));
    }

    private static ScalarResult scalar(String label, double value, String unit) {
        return new ScalarResult(label, value, unit, AggregationPolicy.AVG);
    }

    private long delta(Map<Integer, long[]> after, int tid, int field) {
        long[] a = after.get(tid);
        long[] b = before.getOrDefault(tid, new long[4]);
        return a == null ? 0 : a[field] - b[field];
    }

    /** Per task of this process: {utime + stime ticks, voluntary switches, involuntary switches, cpu}. */
    private static Map<Integer, long[]> tasks() {
        Map<Integer, long[]> out = new HashMap<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(TASKS)) {
            for (Path task : dir) {
                int tid = Integer.parseInt(task.getFileName().toString());
                try {
                    String[] stat = statFields(Files.readString(task.resolve("stat")));
                    long[] v = new long[4];
                    v[0] = Long.parseLong(stat[13]) + Long.parseLong(stat[14]);
                    v[3] = Long.parseLong(stat[38]);
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            v[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            v[2] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                    out.put(tid, v);
                } catch (IOException | RuntimeException e) {
                    // the task ended meanwhile
                }
            }
        } catch (IOException e) {
            // no /proc: nothing to report
        }
        return out;
    }

    /** The fields of a stat line, the name (field 2, in parentheses, may hold spaces) as one. */
    private static String[] statFields(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String[] rest = stat.substring(close + 2).trim().split(" ");
        String[] fields = new String[rest.length + 2];
        fields[0] = stat.substring(0, open).trim();
        fields[1] = stat.substring(open + 1, close);
        System.arraycopy(rest, 0, fields, 2, rest.length);
        return fields;
    }

    private static String name(int tid) {
        try {
            return Files.readString(TASKS.resolve(Integer.toString(tid)).resolve("comm")).trim();
        } catch (IOException e) {
            return "";
        }
    }

    /** {all CPU ticks of the machine, steal ticks} from the first line of /proc/stat. */
    private static long[] host() {
        try {
            String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long sum = 0;
            for (int i = 1; i <= 8 && i < cpu.length; i++) { // user nice system idle iowait irq softirq steal
                if (i != 4 && i != 5) { // not idle, not iowait
                    sum += Long.parseLong(cpu[i]);
                }
            }
            return new long[] {sum, cpu.length > 8 ? Long.parseLong(cpu[8]) : 0};
        } catch (IOException | RuntimeException e) {
            return new long[2];
        }
    }

    /** Samples every I/O thread's state and CPU every {@link #SAMPLE_MILLIS} ms during an iteration. */
    private static final class Sampler extends Thread {
        final List<int[]> samples = new ArrayList<>();
        final Map<Integer, String> names = new HashMap<>();
        /** The latest counters of each I/O thread, as {@link #tasks()} gives them. */
        final Map<Integer, long[]> last = new HashMap<>();
        private volatile boolean running = true;
        private int[] io = new int[0];

        Sampler() {
            super("smbdirect-bench-thread-sampler");
            setDaemon(true);
            List<Integer> found = new ArrayList<>();
            for (int tid : tasks().keySet()) {
                String n = name(tid);
                names.put(tid, n);
                if (n.startsWith("smbdirect-iwar")) {
                    found.add(tid);
                }
            }
            io = found.stream().mapToInt(Integer::intValue).toArray();
        }

        @Override
        public void run() {
            while (running) {
                // one sample: per I/O thread {tid, state, cpu}, flattened
                int[] sample = new int[io.length * 3];
                for (int i = 0; i < io.length; i++) {
                    sample[3 * i] = io[i];
                    try {
                        Path task = TASKS.resolve(Integer.toString(io[i]));
                        String[] stat = statFields(Files.readString(task.resolve("stat")));
                        sample[3 * i + 1] = stat[2].charAt(0);
                        sample[3 * i + 2] = Integer.parseInt(stat[38]);
                        long[] v = {Long.parseLong(stat[13]) + Long.parseLong(stat[14]), 0, 0, sample[3 * i + 2]};
                        for (String line : Files.readAllLines(task.resolve("status"))) {
                            if (line.startsWith("voluntary_ctxt_switches:")) {
                                v[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                            } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                                v[2] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                            }
                        }
                        last.put(io[i], v);
                    } catch (IOException | RuntimeException e) {
                        sample[3 * i + 1] = 'X';
                    }
                }
                samples.add(sample);
                try {
                    Thread.sleep(SAMPLE_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        int[] find(int[] sample, int tid) {
            for (int i = 0; i + 2 < sample.length; i += 3) {
                if (sample[i] == tid) {
                    return new int[] {tid, sample[i + 1], sample[i + 2]};
                }
            }
            return null;
        }

        void stopAndJoin() {
            running = false;
            try {
                join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
