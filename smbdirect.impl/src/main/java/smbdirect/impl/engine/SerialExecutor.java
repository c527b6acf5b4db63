package smbdirect.impl.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serial context of one connection, without a thread of its own: tasks are queued and run one
 * at a time, in submission order, by whichever thread finds the context idle (trampolining). A task
 * submitted from inside a running task (for example by a provider completion delivered inline from
 * a {@code post} call) is queued and runs after the current task, never nested.
 *
 * <p>The queue is a preallocated array ring for many producers and one consumer (the thread holding
 * the context), so queueing a task allocates nothing. When the ring is full, tasks go to an
 * unbounded linked overflow queue (one node allocated per task, counted by {@link #overflowed()})
 * until the overflow is empty again. Order per submitting thread is kept: a producer uses the ring
 * only while the overflow is empty, and the consumer takes from the overflow only when the ring is
 * empty, including slots claimed but not yet filled. A consumer that finds the next ring slot
 * claimed but not yet filled leaves the context instead of waiting: the producer filling it
 * re-enters the context right after (the fill and the entry are volatile, as are the release and
 * the re-check, so one of the two always sees the other).
 *
 * <p>Thread-safe and lock-free; never blocks or spins on another thread.
 */
final class SerialExecutor implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    /** Ring capacity used by connections: covers a credit window of completions queued in a burst. */
    static final int DEFAULT_CAPACITY = 256;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Runnable[].class);
    private static final VarHandle TAIL;
    private static final VarHandle HEAD;
    private static final VarHandle OVERFLOWED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TAIL = l.findVarHandle(SerialExecutor.class, "tail", long.class);
            HEAD = l.findVarHandle(SerialExecutor.class, "head", long.class);
            OVERFLOWED = l.findVarHandle(SerialExecutor.class, "overflowed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Runnable[] ring;
    private final int mask;
    /** Next ring position to claim (producers, CAS). */
    @SuppressWarnings("unused")
    private volatile long tail;
    /** Next ring position to take (written by the consumer only). */
    @SuppressWarnings("unused")
    private volatile long head;
    /** Tasks that did not fit the ring, in order; used while non-empty. */
    private final ConcurrentLinkedQueue<Runnable> overflow = new ConcurrentLinkedQueue<>();
    @SuppressWarnings("unused")
    private volatile long overflowed;
    private final AtomicBoolean running = new AtomicBoolean();
    /**
     * The thread running tasks right now, or null. A plain field: only the owner writes it (after
     * taking {@link #running}, before releasing it), and a thread compares it only with itself,
     * which can see neither a stale value of its own nor another thread's as its own.
     */
    private Thread owner;
    /** A task queued by the owner for itself ({@link #executeFromOwner}); owner only. */
    private Runnable ownTask;

    SerialExecutor() {
        this(DEFAULT_CAPACITY);
    }

    /** @param capacity ring slots, a power of two ≥ 2 */
    SerialExecutor(int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two >= 2: " + capacity);
        }
        ring = new Runnable[capacity];
        mask = capacity - 1;
    }

    @Override
    public void execute(Runnable task) {
        if (task == null) {
            throw new NullPointerException("task");
        }
        if (!overflow.isEmpty() || !offerRing(task)) {
            OVERFLOWED.getAndAdd(this, 1L);
            overflow.add(task);
        }
        drain();
    }

    /** Whether the calling thread holds this context (runs one of its tasks or entered it). */
    boolean isOwner() {
        return owner == Thread.currentThread();
    }

    /**
     * Owner only ({@link #isOwner()}): queues {@code task} to run before the context is left, without
     * touching the shared ring (no atomic operation). One such task at a time; a second one goes
     * through {@link #execute}.
     */
    void executeFromOwner(Runnable task) {
        if (ownTask == null) {
            ownTask = task;
        } else {
            execute(task);
        }
    }

    /** Tasks that found the ring full (or the overflow in use) and were queued with an allocated node. */
    long overflowed() {
        return (long) OVERFLOWED.getVolatile(this);
    }

    private boolean offerRing(Runnable task) {
        for (;;) {
            long t = (long) TAIL.getVolatile(this);
            long h = (long) HEAD.getVolatile(this);
            if (t - h >= ring.length) {
                return false;
            }
            if (TAIL.compareAndSet(this, t, t + 1)) {
                SLOT.setVolatile(ring, (int) (t & mask), task);
                return true;
            }
        }
    }

    /** Consumer only: the next task in order, or null when none can be taken now. */
    private Runnable poll() {
        Runnable own = ownTask;
        if (own != null) {
            ownTask = null;
            return own;
        }
        long h = (long) HEAD.getVolatile(this);
        int i = (int) (h & mask);
        Runnable r = (Runnable) SLOT.getVolatile(ring, i);
        if (r != null) {
            SLOT.setRelease(ring, i, null);
            HEAD.setVolatile(this, h + 1);
            return r;
        }
        // The overflow is read before the ring's tail: a task a producer put in the overflow after
        // one it put in the ring is then seen together with that ring slot's claim.
        if (overflow.peek() == null) {
            return null;
        }
        if ((long) TAIL.getVolatile(this) != h) {
            return null; // claimed, not yet filled: its producer re-enters the context
        }
        return overflow.poll();
    }

    /** Whether a task can be taken now (not counting ring slots claimed but not yet filled). */
    private boolean hasRunnable() {
        long h = (long) HEAD.getVolatile(this);
        if (SLOT.getVolatile(ring, (int) (h & mask)) != null) {
            return true;
        }
        if ((long) TAIL.getVolatile(this) != h) {
            return false;
        }
        return !overflow.isEmpty();
    }

    /** Whether nothing is queued, counting claimed ring slots as queued. */
    /** Whether tasks wait to run (any thread; a snapshot). */
    boolean hasQueued() {
        return !isEmpty();
    }

    private boolean isEmpty() {
        return (long) TAIL.getVolatile(this) == (long) HEAD.getVolatile(this) && overflow.isEmpty();
    }

    /**
     * Tries to enter the context for work that must run before anything else queued: succeeds only
     * when the context is idle and nothing is queued. On success the caller runs its work and then
     * calls {@link #exit()}.
     */
    boolean tryEnterIdle() {
        if (!running.compareAndSet(false, true)) {
            return false;
        }
        if (!isEmpty()) {
            running.set(false);
            drain();
            return false;
        }
        owner = Thread.currentThread();
        return true;
    }

    /**
     * Whether the calling thread is inside this context (running one of its tasks) and nothing
     * else waits: work may then be done directly, in order, without queueing.
     */
    boolean inContextAndNothingQueued() {
        return owner == Thread.currentThread() && ownTask == null && isEmpty();
    }

    /** Leaves the context entered by {@link #tryEnterIdle()} and runs what was queued meanwhile. */
    void exit() {
        runQueued();
        owner = null;
        running.set(false);
        if (hasRunnable()) {
            drain();
        }
    }

    private void drain() {
        while (running.compareAndSet(false, true)) {
            owner = Thread.currentThread();
            runQueued();
            owner = null;
            running.set(false);
            if (!hasRunnable()) {
                return;
            }
        }
    }

    private void runQueued() {
        Runnable r;
        while ((r = poll()) != null) {
            try {
                r.run();
            } catch (RuntimeException | Error e) {
                LOG.error("task failed on a connection's serial context", e);
            }
        }
    }
}
