package smbdirect.rdma.mock.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.rdma.mock.DeliveryMode;

/**
 * Something that receives callbacks (an endpoint or a listener): a FIFO of queued callbacks and
 * the rules that deliver them one at a time, never under a lock, never concurrently.
 *
 * <p>All fields are guarded by {@link #lock}, which an endpoint shares with its peer (one lock per
 * connection, so a transmission touching both sides needs one lock and different connections
 * never contend; the whole protocol is written at the top of {@link MockQueuePair}).
 */
abstract class Deliverable extends DeliveryWorker.Node {
    private static final Logger LOG = LoggerFactory.getLogger(Deliverable.class);
    private static final int THREADED_BATCH = 64;
    private static final VarHandle QUEUED;
    private static final VarHandle SCHEDULED;

    static {
        try {
            QUEUED = MethodHandles.lookup().findVarHandle(Deliverable.class, "queued", int.class);
            SCHEDULED = MethodHandles.lookup().findVarHandle(Deliverable.class, "scheduled", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final FabricImpl fabric;
    final Object lock;
    final ArrayDeque<Event> events = new ArrayDeque<>();
    /**
     * The size of {@link #events}, written under the lock (release) and read without it by
     * {@link #signal()}: a target with nothing queued is passed over without taking the lock. A
     * stale zero is harmless, because whoever queues a callback signals after queuing it and
     * reads its own write.
     */
    @SuppressWarnings("unused") // through QUEUED
    private volatile int queued;
    private final ArrayDeque<Event> eventPool = new ArrayDeque<>();
    private Thread deliverer;
    boolean held;
    private int budget;
    /**
     * THREADED: in its worker's queue or being delivered by it (so queued at most once at a time).
     * Written under the lock (release), read without it by {@link #schedule()}: a producer that
     * queued its callback and then reads true need not take the lock, because the worker clears
     * the flag after that read and then looks at the queue under the lock again.
     */
    @SuppressWarnings("unused") // through SCHEDULED
    private volatile boolean scheduled;
    private int parkedTickets;
    /** THREADED: the callbacks taken for one batch (the worker only; made on first use). */
    private Event[] batch;
    /** THREADED: the worker that delivers this target's callbacks, for its life; else null. */
    private final DeliveryWorker worker;

    Deliverable(FabricImpl fabric, Object lock) {
        this.fabric = fabric;
        this.lock = lock;
        this.worker = fabric.assignWorker();
    }

    /** Under lock. */
    final Event obtainEvent() {
        Event e = eventPool.poll();
        return e != null ? e : new Event();
    }

    /** Under lock: queues a callback. */
    final void enqueue(Event e) {
        events.add(e);
        queuedChanged();
        if (fabric.mode == DeliveryMode.DETERMINISTIC) {
            fabric.addTask(this);
        }
    }

    /** Under lock: drops every queued callback without delivering it. */
    final void discardEvents() {
        Event e;
        while ((e = events.poll()) != null) {
            discarded(e);
            recycle(e);
        }
        queuedChanged();
    }

    /** Under lock, after {@link #events} changed. */
    final void queuedChanged() {
        QUEUED.setRelease(this, events.size());
    }

    /** Under lock: accounting for a callback removed from the queue (delivered or discarded). */
    abstract void discarded(Event e);

    /** Called outside any lock: hands {@code e} to the consumer. */
    abstract void dispatch(Event e);

    /** Outside locks: makes queued callbacks run according to the delivery mode. */
    final void signal() {
        if ((int) QUEUED.getAcquire(this) == 0) {
            return; // nothing to deliver (see queued)
        }
        switch (fabric.mode) {
            case INLINE -> signalInline();
            case THREADED -> schedule();
            case DETERMINISTIC -> {
                // the test steps the fabric
            }
        }
    }

    /**
     * INLINE: delivers on the calling thread, re-entrantly up to {@link FabricImpl#INLINE_DEPTH}
     * nested deliveries; deeper work is handed to the outermost delivery on this thread, which
     * finishes it before returning (a ping-pong of handlers cannot overflow the stack).
     */
    private void signalInline() {
        FabricImpl.InlineState s = fabric.inlineState();
        if (s.depth >= FabricImpl.INLINE_DEPTH) {
            if (!s.deferred.contains(this)) {
                s.deferred.add(this);
            }
            return;
        }
        s.depth++;
        try {
            deliver(Integer.MAX_VALUE);
        } finally {
            s.depth--;
        }
        if (s.depth == 0) {
            Deliverable next;
            while ((next = s.deferred.poll()) != null) {
                next.signalInline();
            }
        }
    }

    /**
     * Delivers up to {@code max} queued callbacks on the calling thread, one at a time, unless
     * another thread is delivering for this target (that thread will pick them up) or callbacks
     * are held. Putting one callback's event back and taking the next share one lock.
     *
     * @return how many were delivered
     */
    final int deliver(int max) {
        Thread current = Thread.currentThread();
        Event e;
        Thread previous;
        synchronized (lock) {
            e = takeNext(current);
            previous = deliverer;
            if (e != null) {
                deliverer = current;
            }
        }
        int delivered = 0;
        while (e != null) {
            delivered++;
            Error fatal = dispatchRecorded(e);
            if (fatal != null) {
                synchronized (lock) {
                    putBack(e, previous);
                }
                throw fatal;
            }
            synchronized (lock) {
                putBack(e, previous);
                e = delivered < max ? takeNext(current) : null;
                if (e != null) {
                    deliverer = current;
                }
            }
        }
        return delivered;
    }

    /**
     * Hands {@code e} to the consumer; a handler's failure is logged and recorded for the fabric's
     * leak report.
     *
     * @return an {@link Error} the handler threw ({@link AssertionError} included: a test's assertion
     *     in a handler must fail the test, not vanish in a log), for the caller to rethrow once its
     *     events are back in the pool; null when it returned or threw a {@link RuntimeException}
     */
    private Error dispatchRecorded(Event e) {
        try {
            dispatch(e);
            return null;
        } catch (RuntimeException | Error failure) {
            LOG.error("Handler of {} threw on {}", this, e, failure);
            fabric.recordHandlerFailure(this + " threw on " + describe(e) + ": " + failure);
            return failure instanceof Error err ? err : null;
        }
    }

    /** Under lock: a delivered event goes back to the pool, and delivery to whoever delivered before. */
    private void putBack(Event e, Thread previous) {
        deliverer = previous;
        recycle(e);
    }

    /** Under lock: an event no longer queued or delivered goes back to the pool. */
    private void recycle(Event e) {
        e.clear();
        eventPool.add(e);
    }

    /** Under lock: the next callback to deliver on {@code current}, taken off the queue, or null. */
    private Event takeNext(Thread current) {
        if (blocked() || events.isEmpty() || (deliverer != null && deliverer != current)) {
            return null;
        }
        if (held) {
            budget--;
        }
        Event e = events.poll();
        queuedChanged();
        discarded(e);
        return e;
    }

    /** Delivers the next queued callback on the calling thread (see {@link #deliver(int)}). */
    final boolean deliverOne() {
        return deliver(1) == 1;
    }

    /** DETERMINISTIC: a ticket of this target came up. */
    final boolean stepTicket() {
        synchronized (lock) {
            if (blocked()) {
                parkedTickets++;
                return false;
            }
        }
        return deliverOne();
    }

    private static String describe(Event e) {
        return switch (e.kind) {
            case Event.COMPLETION -> e.toString();
            case Event.ESTABLISHED -> "onEstablished";
            case Event.DISCONNECTED -> "onDisconnected(" + e.cause + ")";
            case Event.CONNECT_REQUEST -> "onConnectRequest";
            default -> "onListenerFailed(" + e.cause + ")";
        };
    }

    /** Under lock: held and no released deliveries left. */
    private boolean blocked() {
        return held && budget <= 0;
    }

    /** Holds delivery. */
    final void hold() {
        synchronized (lock) {
            held = true;
            budget = 0;
        }
    }

    /** Lets the next {@code count} held callbacks through and keeps holding the rest. */
    final void releaseSome(int count) {
        synchronized (lock) {
            if (!held) {
                return;
            }
            budget += count;
            if (fabric.mode == DeliveryMode.DETERMINISTIC) {
                int tickets = Math.min(count, parkedTickets);
                parkedTickets -= tickets;
                for (int i = 0; i < tickets; i++) {
                    fabric.addTask(this);
                }
            }
        }
        signal();
    }

    /** Ends holding and delivers what was held. */
    final void release() {
        int tickets;
        synchronized (lock) {
            held = false;
            budget = 0;
            tickets = parkedTickets;
            parkedTickets = 0;
            if (fabric.mode == DeliveryMode.DETERMINISTIC) {
                for (int i = 0; i < tickets; i++) {
                    fabric.addTask(this);
                }
            }
        }
        signal();
    }

    final int queuedCallbacks() {
        synchronized (lock) {
            return events.size();
        }
    }

    private void schedule() {
        if ((boolean) SCHEDULED.getAcquire(this)) {
            return; // the worker has it (see scheduled)
        }
        synchronized (lock) {
            if (scheduled || blocked() || events.isEmpty()) {
                return;
            }
            scheduled = true;
        }
        if (!worker.offer(this)) {
            LOG.debug("{} is shut down; callback of {} not delivered", fabric, this);
            synchronized (lock) {
                scheduled = false;
            }
        }
    }

    /**
     * THREADED, on this target's worker: takes up to {@value #THREADED_BATCH} queued callbacks under
     * one lock (as a poll of a completion queue takes a batch; their work requests leave the queue
     * depth at once), delivers them in order outside it, puts them back under one lock, then queues
     * the target again if more arrived. A handler that throws does not stop the batch; an
     * {@link Error} ({@link AssertionError} included) is rethrown after it (the worker logs it and
     * goes on).
     */
    final void drainThreaded() {
        try {
            deliverBatch();
        } finally {
            synchronized (lock) {
                scheduled = false;
            }
            schedule();
        }
    }

    private void deliverBatch() {
        Event[] b = batch;
        if (b == null) {
            b = batch = new Event[THREADED_BATCH]; // only this target's worker touches it
        }
        Thread current = Thread.currentThread();
        Thread previous;
        int n = 0;
        synchronized (lock) {
            previous = deliverer;
            Event e;
            while (n < b.length && (e = takeNext(current)) != null) {
                b[n++] = e;
            }
            if (n == 0) {
                return;
            }
            deliverer = current;
        }
        Error rethrow = null;
        for (int i = 0; i < n; i++) {
            Error fatal = dispatchRecorded(b[i]);
            if (rethrow == null) {
                rethrow = fatal;
            }
        }
        synchronized (lock) {
            for (int i = 0; i < n; i++) {
                recycle(b[i]);
                b[i] = null;
            }
            deliverer = previous;
        }
        if (rethrow != null) {
            throw rethrow;
        }
    }
}
