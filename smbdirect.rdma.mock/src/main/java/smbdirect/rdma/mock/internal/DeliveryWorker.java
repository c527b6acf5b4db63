package smbdirect.rdma.mock.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * THREADED delivery: one daemon thread and the queue of targets ({@link Deliverable}s) that have
 * callbacks to deliver. Every target is bound to one worker for its life, so its callbacks are
 * delivered by one thread, in order.
 *
 * <p>The queue is intrusive, many producers and one consumer (D. Vyukov's node-based MPSC queue):
 * the target is the queue node. A target is in the queue at most once at a time (its
 * {@code scheduled} flag, set under its lock before {@link #offer}), so the queue needs no
 * capacity and allocates nothing: a producer swaps the tail with one atomic exchange and links the
 * previous tail to the node; the worker follows the links.
 *
 * <p>Idle strategy: spin, then yield, then park ({@link LockSupport}, no locks or conditions). A
 * producer unparks the worker only if it announced that it parks; the announcement is made before
 * the worker's last look at the queue and read by the producer after it linked its node, so one of
 * the two always sees the other (no lost wake-up).
 */
final class DeliveryWorker implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryWorker.class);
    /** Empty polls spent in {@link Thread#onSpinWait()} before yielding. */
    private static final int SPINS = 100;
    /** Empty polls spent in {@link Thread#yield()} after spinning, before parking. */
    private static final int YIELDS = 20;
    private static final VarHandle TAIL;
    private static final VarHandle PARKED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(DeliveryWorker.class, "tail", Node.class);
            PARKED = lookup.findVarHandle(DeliveryWorker.class, "parked", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A queue node: a {@link Deliverable}, or the queue's stub. */
    static class Node {
        volatile Node next;
    }

    private final Node stub = new Node();
    /** Producers: the last node, swapped atomically. */
    @SuppressWarnings("unused") // through TAIL
    private volatile Node tail = stub;
    /** The worker only: the node before the next one to deliver. */
    private Node head = stub;
    /** The worker announces that it parks; the producer that clears it unparks it. */
    @SuppressWarnings("unused") // through PARKED
    private volatile boolean parked;
    private volatile boolean stopping;
    private volatile boolean aborted;
    private volatile boolean terminated;
    private final Thread thread;

    DeliveryWorker(String threadName) {
        thread = new Thread(this, threadName);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /**
     * Queues {@code d}, which must not be queued already. Any thread, lock-free, allocation-free.
     *
     * @return false when the worker has stopped (nothing will be delivered)
     */
    boolean offer(Deliverable d) {
        if (terminated) {
            return false;
        }
        push(d);
        if (parked && PARKED.compareAndSet(this, true, false)) {
            LockSupport.unpark(thread);
        }
        return true;
    }

    private void push(Node n) {
        n.next = null;
        Node previous = (Node) TAIL.getAndSet(this, n);
        previous.next = n;
    }

    /**
     * The worker only: the next queued target, or null when there is none or when a producer has
     * swapped the tail but not linked its node yet (it will; it then reads {@link #parked}).
     */
    private Deliverable poll() {
        Node h = head;
        Node next = h.next;
        if (h == stub) {
            if (next == null) {
                return null;
            }
            head = next;
            h = next;
            next = next.next;
        }
        if (next != null) {
            head = next;
            return (Deliverable) h;
        }
        if (h != tail) {
            return null;
        }
        push(stub);
        next = h.next;
        if (next != null) {
            head = next;
            return (Deliverable) h;
        }
        return null;
    }

    /** The worker only: nothing queued and no producer between swap and link. */
    private boolean drained() {
        return head == tail;
    }

    @Override
    public void run() {
        int idle = 0;
        try {
            while (!aborted) {
                Deliverable d = poll();
                if (d != null) {
                    idle = 0;
                    drain(d);
                } else if (stopping && drained()) {
                    return;
                } else if (idle < SPINS) {
                    idle++;
                    Thread.onSpinWait();
                } else if (idle < SPINS + YIELDS) {
                    idle++;
                    Thread.yield();
                } else {
                    idle = 0;
                    d = parkUntilOffered();
                    if (d != null) {
                        drain(d);
                    }
                }
            }
        } finally {
            terminated = true;
        }
    }

    private void drain(Deliverable d) {
        try {
            d.drainThreaded();
        } catch (Throwable failure) { // an Error rethrown by the delivery: keep delivering for the others
            LOG.error("Delivery for {} failed", d, failure);
        } finally {
            if (!aborted) {
                Thread.interrupted(); // a handler's interrupt must not end a later park at once
            }
        }
    }

    /** Announces the park, looks once more, parks until a producer (or {@link #stop}) unparks. */
    private Deliverable parkUntilOffered() {
        parked = true;
        Deliverable d = poll();
        if (d != null) {
            parked = false;
            return d;
        }
        while (parked && !stopping && !aborted) {
            LockSupport.park(this);
        }
        parked = false;
        return null;
    }

    /** Makes the thread deliver what is queued, then end. */
    void stop() {
        stopping = true;
        LockSupport.unpark(thread);
    }

    /** Waits up to {@code timeoutMillis} for the thread to end; whether it has. */
    boolean awaitStop(long timeoutMillis) throws InterruptedException {
        thread.join(timeoutMillis);
        return !thread.isAlive();
    }

    /** Ends the thread without delivering what is left (a handler does not return). */
    void abort() {
        aborted = true;
        thread.interrupt();
        LockSupport.unpark(thread);
    }

    Thread thread() {
        return thread;
    }

    @Override
    public String toString() {
        return "DeliveryWorker[" + thread.getName() + "]";
    }
}
