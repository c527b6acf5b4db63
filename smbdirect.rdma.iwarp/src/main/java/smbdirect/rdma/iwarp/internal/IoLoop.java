package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One I/O thread: a selector over its channels, a queue of control tasks, an allocation-free
 * hand-off of endpoints that have new work requests (an intrusive lock-free stack, each endpoint on
 * it at most once), and deadlines. The selector is woken only when the thread sleeps in it. Ready
 * keys go to their {@link IoHandler} through {@code select(Consumer, timeout)}, so selecting makes
 * no garbage. Nothing thrown by a handler or task ends the thread: the handler's connection is
 * failed and the loop goes on.
 *
 * <p>Thread-safe entry points: {@link #execute}, {@link #schedule}, {@link #stop}. Everything else
 * runs on the loop's thread.
 */
final class IoLoop implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(IoLoop.class);
    private static final int TASKS_PER_ROUND = 1024;
    /**
     * Bytes of the loop's staging buffer: a staged read of a receiver takes at most this much, and a
     * read-ahead misprediction spills at most this much ({@code ReadAhead.MAX_BYTES}).
     */
    static final int STAGING_BYTES = 128 * 1024;

    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicReference<IwarpEndpoint> scheduled = new AtomicReference<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private final List<Deadline> deadlines = new ArrayList<>();
    private final Consumer<SelectionKey> dispatcher = this::dispatch;
    /** Ready keys seen while only flushing cancelled keys: level-triggered, they are reported again. */
    private final Consumer<SelectionKey> ignore = key -> { };
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Failures that reached this loop's catch-alls (shared by the provider's loops). */
    private final AtomicLong internalErrors;
    private volatile boolean running = true;
    /** Loop thread: created on first use. */
    private ByteBuffer staging;

    IoLoop(String name, AtomicLong internalErrors) throws IOException {
        this.internalErrors = internalErrors;
        selector = Selector.open();
        thread = new Thread(this, name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    String name() {
        return thread.getName();
    }

    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /**
     * Loop thread: the loop's staging buffer, cleared. The receivers of all connections on this loop
     * share it: each one consumes what it read before its {@code onReadable} returns (every byte of a
     * TCP stream in RDMA mode is processed when read), and the loop runs one receiver at a time, so
     * memory per connection does not grow with it.
     */
    ByteBuffer staging() {
        if (staging == null) {
            staging = ByteBuffer.allocateDirect(STAGING_BYTES);
        }
        return staging.clear();
    }

    /** Runs {@code task} on the loop's thread (control plane: allocates a queue node). */
    void execute(Runnable task) {
        tasks.add(task);
        if (!inLoop()) {
            wakeIfSleeping();
        }
    }

    /** Puts {@code endpoint} on the loop's work list unless it is there already. Allocation-free. */
    void schedule(IwarpEndpoint endpoint) {
        if (!endpoint.scheduled.compareAndSet(false, true)) {
            return;
        }
        IwarpEndpoint head;
        do {
            head = scheduled.get();
            endpoint.nextScheduled = head;
        } while (!scheduled.compareAndSet(head, endpoint));
        if (!inLoop()) {
            wakeIfSleeping();
        }
    }

    private void wakeIfSleeping() {
        if (sleeping.get() && sleeping.compareAndSet(true, false)) {
            selector.wakeup();
        }
    }

    /** Loop thread: registers {@code channel} for {@code ops} with {@code handler} as attachment. */
    SelectionKey register(SelectableChannel channel, int ops, IoHandler handler) throws IOException {
        channel.configureBlocking(false);
        return channel.register(selector, ops, handler);
    }

    /**
     * Loop thread: processes cancelled keys now, so that the sockets of closed channels are released
     * (a registered channel's socket closes only when its key is deregistered). Dispatches nothing:
     * safe inside a callback.
     */
    void flushCancelledKeys() {
        try {
            selector.selectNow(ignore);
        } catch (IOException | ClosedSelectorException e) {
            LOG.debug("{}: selectNow failed: {}", name(), e.toString());
        }
    }

    /** Loop thread: fires {@code d} in {@code nanos} from now. */
    void arm(Deadline d, long nanos) {
        d.at = System.nanoTime() + nanos;
        if (!d.armed) {
            d.armed = true;
            deadlines.add(d);
        }
    }

    /** Loop thread. */
    void disarm(Deadline d) {
        if (d.armed) {
            d.armed = false;
            deadlines.remove(d);
        }
    }

    @Override
    public void run() {
        while (running) {
            try {
                runTasks();
                runScheduled();
                if (!tasks.isEmpty() || scheduled.get() != null) {
                    selector.selectNow(dispatcher);
                } else {
                    long timeout = nextTimeoutMillis();
                    sleeping.set(true);
                    if (tasks.isEmpty() && scheduled.get() == null && running) {
                        selector.select(dispatcher, timeout);
                    } else {
                        selector.selectNow(dispatcher);
                    }
                    sleeping.set(false);
                }
                runDeadlines();
            } catch (ClosedSelectorException e) {
                break;
            } catch (Throwable t) {
                internalErrors.incrementAndGet();
                LOG.error("{}: unexpected failure in the I/O loop; continuing", name(), t);
            }
        }
        runTasks();
        closeAll();
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("{}: closing the selector failed: {}", name(), e.toString());
        }
        stopped.countDown();
    }

    /** The loop stops: closes every channel still registered (connections count themselves out). */
    private void closeAll() {
        for (SelectionKey key : selector.keys()) {
            try {
                if (key.attachment() instanceof Channel c) {
                    c.closeNow();
                } else {
                    key.channel().close();
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("{}: closing {} failed: {}", name(), key.channel(), e.toString());
            }
        }
        deadlines.clear();
    }

    private void dispatch(SelectionKey key) {
        IoHandler handler = (IoHandler) key.attachment();
        if (!key.isValid() || handler == null) {
            return;
        }
        try {
            handler.onReady(key, key.readyOps());
        } catch (Throwable t) {
            crash(handler, t);
        }
    }

    private void crash(IoHandler handler, Throwable t) {
        internalErrors.incrementAndGet();
        try {
            handler.onCrash(t);
        } catch (Throwable again) {
            LOG.error("failing a connection after an internal error failed as well", again);
        }
    }

    private void runTasks() {
        for (int i = 0; i < TASKS_PER_ROUND; i++) {
            Runnable task = tasks.poll();
            if (task == null) {
                return;
            }
            try {
                task.run();
            } catch (Throwable t) {
                internalErrors.incrementAndGet();
                LOG.error("{}: a task failed", name(), t);
            }
        }
    }

    private void runScheduled() {
        IwarpEndpoint e = scheduled.getAndSet(null);
        while (e != null) {
            IwarpEndpoint next = e.nextScheduled;
            e.nextScheduled = null;
            e.scheduled.set(false);
            try {
                e.runScheduled();
            } catch (Throwable t) {
                crash(e, t);
            }
            e = next;
        }
    }

    private long nextTimeoutMillis() {
        if (deadlines.isEmpty()) {
            return 0;
        }
        long now = System.nanoTime();
        long min = Long.MAX_VALUE;
        for (Deadline d : deadlines) {
            min = Math.min(min, d.at - now);
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(min) + 1);
    }

    private void runDeadlines() {
        if (deadlines.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (int i = 0; i < deadlines.size(); i++) {
            Deadline d = deadlines.get(i);
            if (d.at - now <= 0) {
                deadlines.remove(i--);
                d.armed = false;
                try {
                    d.action.run();
                } catch (Throwable t) {
                    internalErrors.incrementAndGet();
                    LOG.error("{}: a deadline action failed", name(), t);
                }
            }
        }
    }

    /** Stops the thread after it ran the tasks already queued; waits up to {@code millis}. */
    void stop(long millis) {
        running = false;
        selector.wakeup();
        if (inLoop()) {
            return;
        }
        try {
            if (!stopped.await(millis, TimeUnit.MILLISECONDS)) {
                LOG.warn("{} did not stop within {} ms", name(), millis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code task} on the loop and waits for it (bounded); runs it inline on the loop's own thread. */
    boolean runAndWait(Runnable task, long millis) {
        if (inLoop()) {
            task.run();
            return true;
        }
        CountDownLatch done = new CountDownLatch(1);
        execute(() -> {
            try {
                task.run();
            } finally {
                done.countDown();
            }
        });
        try {
            return done.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
