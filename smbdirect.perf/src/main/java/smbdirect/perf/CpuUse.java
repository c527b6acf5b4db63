package smbdirect.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The CPU this process's Java threads used over the measured part of a run, and the busiest
 * thread's share, as {@code iperf3} reports its CPU utilization and {@code ib_send_bw --cpu_util}
 * its own: a run whose busiest thread used a whole core was bound by that thread, not by the link.
 * Read from the JVM's {@link ThreadMXBean} (CPU and user time per thread; the JVM's own GC threads
 * are not Java threads and not counted), a snapshot at the end of the warm-up and one at the end of
 * the run. A thread that started or ended in between is left out.
 */
final class CpuUse {

    private final long wallNanos;
    /** Thread id: {CPU nanoseconds, user nanoseconds}. */
    private final Map<Long, long[]> threads;

    private CpuUse(long wallNanos, Map<Long, long[]> threads) {
        this.wallNanos = wallNanos;
        this.threads = threads;
    }

    /** Now; null where the JVM measures no thread CPU time. */
    static CpuUse now() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported() || !mx.isThreadCpuTimeEnabled()) {
            return null;
        }
        Map<Long, long[]> threads = new HashMap<>();
        for (long id : mx.getAllThreadIds()) {
            long cpu = mx.getThreadCpuTime(id);
            long user = mx.getThreadUserTime(id);
            if (cpu >= 0 && user >= 0) {
                threads.put(id, new long[] {cpu, user});
            }
        }
        return new CpuUse(System.nanoTime(), threads);
    }

    /**
     * What was used from {@code start} to this snapshot, for the report: all Java threads in cores
     * (CPU seconds per second), then the busiest thread with its user and system shares; null when
     * the start is missing, no time passed or no thread lived through it.
     */
    String since(CpuUse start) {
        if (start == null || wallNanos <= start.wallNanos) {
            return null;
        }
        double wall = wallNanos - start.wallNanos;
        long total = 0;
        long busiest = -1;
        long busiestCpu = -1;
        long busiestUser = 0;
        for (Map.Entry<Long, long[]> e : threads.entrySet()) {
            long[] before = start.threads.get(e.getKey());
            if (before == null) {
                continue;
            }
            long cpu = e.getValue()[0] - before[0];
            total += cpu;
            if (cpu > busiestCpu) {
                busiest = e.getKey();
                busiestCpu = cpu;
                // user time comes in clock ticks, CPU time in nanoseconds: it may pass the CPU time by a tick
                busiestUser = Math.max(0, Math.min(cpu, e.getValue()[1] - before[1]));
            }
        }
        if (busiest < 0) {
            return null;
        }
        ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(busiest);
        String name = info == null ? "thread " + busiest : info.getThreadName();
        return String.format(Locale.ROOT, "Java threads %.2f cores; busiest %s %.2f of a core (user %.2f, system %.2f)",
                total / wall, name, busiestCpu / wall, busiestUser / wall, (busiestCpu - busiestUser) / wall);
    }
}
