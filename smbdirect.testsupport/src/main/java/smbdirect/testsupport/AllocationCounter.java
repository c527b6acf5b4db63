package smbdirect.testsupport;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM's exact per-thread allocation counter ({@code com.sun.management.ThreadMXBean}), for the
 * tests that prove a steady state allocates nothing: read it before and after a measured run on
 * every thread the run involves.
 *
 * <p>Reading one thread ({@link #bytes(long)}) allocates nothing. Reading several at once
 * ({@link #bytes(long[])}, {@link #total(long[])}) allocates the JVM's result array (8 bytes a thread
 * and a header) on the calling thread, once per read. Thread-safe.
 */
public final class AllocationCounter {

    private final com.sun.management.ThreadMXBean threads;

    private AllocationCounter(com.sun.management.ThreadMXBean threads) {
        this.threads = threads;
    }

    /**
     * The counter, switched on. Where the JVM has none, the judge is missing ({@link Judges#require}):
     * the test fails in strict mode and is skipped otherwise.
     */
    public static AllocationCounter enabled() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Judges.require(mx instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter on this JVM");
        com.sun.management.ThreadMXBean counter = (com.sun.management.ThreadMXBean) mx;
        Judges.require(counter.isThreadAllocatedMemorySupported(), "per-thread allocation counter unsupported");
        counter.setThreadAllocatedMemoryEnabled(true);
        return new AllocationCounter(counter);
    }

    /** The bytes thread {@code threadId} allocated since it started; allocates nothing. */
    public long bytes(long threadId) {
        return threads.getThreadAllocatedBytes(threadId);
    }

    /** The bytes each of the threads allocated since it started, in the order given. */
    public long[] bytes(long[] threadIds) {
        return threads.getThreadAllocatedBytes(threadIds);
    }

    /** The bytes the threads allocated since they started, together. */
    public long total(long[] threadIds) {
        long sum = 0;
        for (long b : threads.getThreadAllocatedBytes(threadIds)) {
            sum += b;
        }
        return sum;
    }

    /** The live threads whose names start with {@code prefix} (a provider's or fabric's documented thread names). */
    public static List<Thread> threadsNamed(String prefix) {
        List<Thread> found = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                found.add(t);
            }
        }
        return found;
    }

    /** The ids of {@code threads}, then the calling thread's id last. */
    public static long[] idsAndCurrent(List<Thread> threads) {
        long[] ids = new long[threads.size() + 1];
        for (int i = 0; i < threads.size(); i++) {
            ids[i] = threads.get(i).getId();
        }
        ids[threads.size()] = Thread.currentThread().getId();
        return ids;
    }
}
