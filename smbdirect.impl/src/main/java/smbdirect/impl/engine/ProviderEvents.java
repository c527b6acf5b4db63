package smbdirect.impl.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * The provider's callbacks of one endpoint (work completions, then established and disconnected)
 * that arrive while the connection's serial context is busy, in arrival order, until the context
 * takes them.
 *
 * <p>A single-producer, single-consumer queue of primitive records, so queueing a completion
 * allocates nothing and copies seven values: the producer is the provider, which never calls one
 * endpoint's handler concurrently (its successive calls are ordered by the provider's own
 * hand-offs); the consumer is this object's {@link #run()} on the serial context. Only the first
 * record that finds the queue unscheduled puts this task into the serial context; the rest of a
 * burst (a {@code pump} posting a window of fragments whose completions the provider delivers inline)
 * costs three array stores and a release store each, and one task runs the whole burst.
 *
 * <p>The queue starts small and grows by linking a segment twice as large when the producer finds
 * it full (the consumer follows the link at the index where the producer switched), so it grows to
 * the largest burst the connection has seen and then stays allocation-free. Records in the queue are
 * bounded by the work requests outstanding on the endpoint, since the engine reposts a receive or
 * reuses a send slot only after handling its completion.
 *
 * <p>One pass of {@link #run()} handles the records present when it starts; records added meanwhile
 * (inline completions of posts made while handling) go to the next pass, which is queued behind
 * the tasks already waiting in the serial context, so a long burst does not starve them. Every
 * provider callback of the endpoint that does not run directly goes through this one queue, which
 * keeps the provider's order: {@code onDisconnected} stays the last.
 */
final class ProviderEvents implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderEvents.class);

    /** Records in the first segment. */
    static final int INITIAL_CAPACITY = 16;

    private static final int STRIDE = 3;
    private static final long TAG_COMPLETION = 0;
    private static final long TAG_ESTABLISHED = 1;
    private static final long TAG_DISCONNECTED = 2;
    private static final WorkRequestType[] TYPES = WorkRequestType.values();
    private static final CompletionStatus[] STATUSES = CompletionStatus.values();

    private static final VarHandle PRODUCED;
    private static final VarHandle CONSUMED;
    private static final VarHandle SCHEDULED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PRODUCED = l.findVarHandle(ProviderEvents.class, "produced", long.class);
            CONSUMED = l.findVarHandle(ProviderEvents.class, "consumed", long.class);
            SCHEDULED = l.findVarHandle(ProviderEvents.class, "scheduled", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A segment of records; {@code next} and {@code jumpAt} are set once, when the producer leaves it. */
    private static final class Segment {
        final long[] records;
        final int mask;
        Segment next;
        long jumpAt = Long.MAX_VALUE;

        Segment(int capacity) {
            records = new long[capacity * STRIDE];
            mask = capacity - 1;
        }

        int capacity() {
            return mask + 1;
        }
    }

    /** What handles the records on the serial context. */
    interface Sink {
        void completion(long wrId, WorkRequestType type, CompletionStatus status, int length, boolean invalidated,
                int token, int vendorError);

        void established(ByteBuffer peerPrivateData);

        void disconnected(DisconnectCause cause, String detail);
    }

    private final SerialExecutor serial;
    private final Sink sink;
    /** Producer's segment (written by the producer only). */
    private volatile Segment producerSegment;
    /** Consumer's segment (serial context only). */
    private Segment consumerSegment;
    /** Records published (producer writes with release). */
    @SuppressWarnings("unused")
    private volatile long produced;
    /** Records taken (consumer writes with release). */
    @SuppressWarnings("unused")
    private volatile long consumed;
    /** Whether this task is queued in or running on the serial context. */
    @SuppressWarnings("unused")
    private volatile boolean scheduled;
    /** Segments added after the first (for tests and diagnostics). */
    private volatile int grown;
    /** The peer's private data of the establishment, kept until the serial context takes the event. */
    private ByteBuffer establishedData;
    /** The cause of the disconnect, kept until the serial context takes the event. */
    private DisconnectCause goneCause;
    private String goneDetail;

    ProviderEvents(SerialExecutor serial, Sink sink) {
        this.serial = serial;
        this.sink = sink;
        Segment first = new Segment(INITIAL_CAPACITY);
        producerSegment = first;
        consumerSegment = first;
    }

    // ---- producer (the provider's callback thread, one at a time) ----

    /** Queues a work completion; {@code wc} is read during the call only. */
    void completion(WorkCompletion wc) {
        long meta = TAG_COMPLETION << 56 | (long) wc.type().ordinal() << 48 | (long) wc.status().ordinal() << 40
                | (wc.hasInvalidatedToken() ? 1L << 32 : 0L) | (wc.byteLength() & 0xFFFF_FFFFL);
        long aux = (long) wc.invalidatedToken() << 32 | (wc.vendorError() & 0xFFFF_FFFFL);
        offer(wc.wrId(), meta, aux);
    }

    /**
     * The endpoint is established: handled at once when the serial context is idle and nothing
     * waits, else queued behind the completions that arrived before it.
     */
    void onEstablished(ByteBuffer peerPrivateData) {
        if (serial.tryEnterIdle()) {
            try {
                if (isEmpty()) {
                    sink.established(peerPrivateData);
                } else {
                    established(peerPrivateData);
                }
            } finally {
                serial.exit();
            }
        } else {
            established(peerPrivateData);
        }
    }

    /** The endpoint disconnected (its last callback): handled at once or queued, as {@link #onEstablished}. */
    void onDisconnected(DisconnectCause cause, String detail) {
        if (serial.tryEnterIdle()) {
            try {
                if (isEmpty()) {
                    sink.disconnected(cause, detail);
                } else {
                    disconnected(cause, detail);
                }
            } finally {
                serial.exit();
            }
        } else {
            disconnected(cause, detail);
        }
    }

    /** Queues the endpoint's establishment; its data is kept until the event is taken. */
    void established(ByteBuffer peerPrivateData) {
        establishedData = peerPrivateData;
        offer(0, TAG_ESTABLISHED << 56, 0);
    }

    /** Queues the endpoint's disconnect; its cause is kept until the event is taken. */
    void disconnected(DisconnectCause cause, String detail) {
        goneCause = cause;
        goneDetail = detail;
        offer(0, TAG_DISCONNECTED << 56, 0);
    }

    private void offer(long wrId, long meta, long aux) {
        long p = (long) PRODUCED.getOpaque(this);
        Segment s = producerSegment;
        if (p - (long) CONSUMED.getAcquire(this) >= s.capacity()) {
            Segment bigger = new Segment(s.capacity() * 2);
            s.next = bigger;
            s.jumpAt = p; // published with the record below
            producerSegment = bigger;
            grown++;
            s = bigger;
        }
        int i = (int) (p & s.mask) * STRIDE;
        long[] r = s.records;
        r[i] = wrId;
        r[i + 1] = meta;
        r[i + 2] = aux;
        if (serial.isOwner()) {
            // delivered inline from a post made on the context: the consumer is this thread, which
            // takes the records before it leaves the context; no fence, no shared-ring operation
            PRODUCED.setRelease(this, p + 1);
            if (!scheduled) {
                SCHEDULED.setRelease(this, true);
                serial.executeFromOwner(this);
            }
            return;
        }
        // A volatile store and load on each side (here: produced then scheduled; in run(): scheduled
        // then produced), so that at least one side sees the other's store and no record is left
        // without a scheduled task (a release store could be reordered after the load).
        PRODUCED.setVolatile(this, p + 1);
        if (!(boolean) SCHEDULED.getVolatile(this) && SCHEDULED.compareAndSet(this, false, true)) {
            serial.execute(this);
        }
    }

    // ---- consumer (the serial context) ----

    @Override
    public void run() {
        long limit = (long) PRODUCED.getAcquire(this);
        long c;
        // the position is read again for every record: a record's handler may have taken the next
        // ones already (takeCompletions, from the send loop)
        while ((c = (long) CONSUMED.getOpaque(this)) < limit) {
            take(consumerSegmentAt(c), c);
        }
        if (c != (long) PRODUCED.getAcquire(this)) {
            serial.execute(this); // more arrived during the pass: next pass behind the waiting tasks
            return;
        }
        SCHEDULED.setVolatile(this, false);
        if (c != (long) PRODUCED.getVolatile(this) && SCHEDULED.compareAndSet(this, false, true)) {
            serial.execute(this);
        }
    }

    /**
     * Serial context, from inside one of its tasks: handles the work completions that have arrived
     * and wait here, in order, now instead of when this task's turn comes; stops at the first record
     * that is not a work completion (establishment and disconnect keep their place). The send loop
     * uses it to reuse send slots and see credit grants whose completions arrived while it ran.
     *
     * @return how many were handled
     */
    int takeCompletions() {
        int taken = 0;
        long c;
        while ((c = (long) CONSUMED.getOpaque(this)) < (long) PRODUCED.getAcquire(this)) {
            Segment s = consumerSegmentAt(c);
            if ((int) (s.records[(int) (c & s.mask) * STRIDE + 1] >>> 56) != (int) TAG_COMPLETION) {
                break;
            }
            take(s, c);
            taken++;
        }
        return taken;
    }

    /** Consumer: the segment holding record {@code c}, the next one to take (follows the producer's link). */
    private Segment consumerSegmentAt(long c) {
        Segment s = consumerSegment;
        if (c == s.jumpAt) {
            s = s.next;
            consumerSegment = s;
        }
        return s;
    }

    /** Consumer: takes record {@code c} (the next one, in segment {@code s}) off the queue and handles it. */
    private void take(Segment s, long c) {
        int i = (int) (c & s.mask) * STRIDE;
        long[] r = s.records;
        long wrId = r[i];
        long meta = r[i + 1];
        long aux = r[i + 2];
        CONSUMED.setRelease(this, c + 1);
        dispatch(wrId, meta, aux);
    }

    private void dispatch(long wrId, long meta, long aux) {
        try {
            switch ((int) (meta >>> 56)) {
                case (int) TAG_COMPLETION:
                    sink.completion(wrId, TYPES[(int) (meta >>> 48) & 0xFF], STATUSES[(int) (meta >>> 40) & 0xFF],
                            (int) meta, (meta & 1L << 32) != 0, (int) (aux >>> 32), (int) aux);
                    break;
                case (int) TAG_ESTABLISHED:
                    sink.established(establishedData);
                    break;
                default:
                    sink.disconnected(goneCause, goneDetail);
                    break;
            }
        } catch (RuntimeException | Error e) {
            LOG.error("provider event failed on a connection's serial context", e);
        }
    }

    /** Segments added since creation (the queue grew that many times). */
    int grown() {
        return grown;
    }

    /** Whether no record waits (any thread; exact when the producer asks). */
    boolean isEmpty() {
        return (long) PRODUCED.getVolatile(this) == (long) CONSUMED.getVolatile(this);
    }

    /** Records queued and not yet taken. */
    long size() {
        return (long) PRODUCED.getAcquire(this) - (long) CONSUMED.getAcquire(this);
    }
}
