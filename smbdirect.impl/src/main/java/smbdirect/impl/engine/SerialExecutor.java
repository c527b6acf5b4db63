package smbdirect.impl.engine;

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
 * <p>Thread-safe and lock-free; never blocks the submitting thread.
 */
final class SerialExecutor implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    /** The thread running tasks right now, or null. */
    private volatile Thread owner;

    @Override
    public void execute(Runnable task) {
        queue.add(task);
        drain();
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
        if (!queue.isEmpty()) {
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
        return owner == Thread.currentThread() && queue.isEmpty();
    }

    /** Leaves the context entered by {@link #tryEnterIdle()} and runs what was queued meanwhile. */
    void exit() {
        runQueued();
        owner = null;
        running.set(false);
        if (!queue.isEmpty()) {
            drain();
        }
    }

    private void drain() {
        while (running.compareAndSet(false, true)) {
            owner = Thread.currentThread();
            runQueued();
            owner = null;
            running.set(false);
            if (queue.isEmpty()) {
                return;
            }
        }
    }

    private void runQueued() {
        Runnable r;
        while ((r = queue.poll()) != null) {
            try {
                r.run();
            } catch (RuntimeException | Error e) {
                LOG.error("task failed on a connection's serial context", e);
            }
        }
    }
}
