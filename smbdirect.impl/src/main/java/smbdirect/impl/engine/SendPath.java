package smbdirect.impl.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectException;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;

/**
 * The send path of one connection: the upper layer's Send Message ([MS-SMBD] 3.1.4.2) into
 * Connection.SendQueue, Sending Upper Layer Messages (3.1.5.1) through the credit gate of
 * {@link CreditManager}, and Sending a Data Transfer Message (3.1.5.4), fragment by fragment
 * ({@link Fragmenter}) into registered send buffers; the negotiate messages (3.1.5.2, 3.1.5.3) also
 * go out from a send slot.
 *
 * <p>Owns Connection.SendQueue, the send buffers ({@link SendBuffers},
 * grown by need up to the usable send credits + 1) with the message each slot carries a fragment of,
 * the pooled send-queue entries ({@link OutMessage}), the messages flushed by a failing queue pair
 * and the send counters. Grants and flags ride on the next fragment, so no other message ever goes
 * between the fragments of one upper-layer message (R-3.1.5.4-21, peer-lessons 4). A message is
 * copied once, into send slots; steady-state sending allocates nothing. The receive side is reached
 * through {@link ReceiveSide} only (receives to post and grant, Connection.SendImmediate); the
 * settings the loop uses are given when it is made and when they change.
 *
 * <p>Not thread-safe except {@link #submit}, which hands over to the serial context.
 */
final class SendPath {

    private static final Logger LOG = LoggerFactory.getLogger(SendPath.class);

    /**
     * Entries the serial context keeps for reuse: covers the messages in flight at once (an upper
     * layer that counts delivered messages, not send completions, can have well over 64 while the
     * completions lag), so a steady stream allocates nothing; each entry is ~48 B.
     */
    private static final int OUT_POOL = 256;
    /**
     * Entries kept for sends queued by other threads while the connection is busy: an entry is in use
     * until its message completes, so this covers that many messages in flight (as {@link #OUT_POOL}).
     */
    private static final int SHARED_POOL = 64;
    private static final VarHandle SHARED;

    static {
        try {
            SHARED = MethodHandles.lookup().findVarHandle(SendPath.class, "shared", SharedPool.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Connection connection;
    private final SmbDirectEngine engine;
    private final SerialExecutor serial;
    private final CreditManager credits;
    private final Timers timers;
    private final ReceiveSide receives;
    private final ConnectionLoss loss;
    /** Runs the send loop on the serial context. */
    private final Runnable pumpTask;
    /** creditRefillFraction as the settings stand (given when made and on every change, from any thread). */
    private volatile double creditRefillFraction;
    /** Connection.SendQueue. */
    private final ArrayDeque<OutMessage> queue = new ArrayDeque<>();
    /** Entries of messages that completed successfully, for reuse (serial context only). */
    private final ArrayDeque<OutMessage> pool = new ArrayDeque<>();
    /** Entries for sends from threads that found the context busy (any thread; created on first use). */
    private volatile SharedPool<OutMessage> shared;
    /** Messages with a fragment flushed before the disconnect report: failed with the final reason. */
    private final List<OutMessage> flushed = new ArrayList<>();
    /** The send loop runs ({@link #pump}): a nested call returns at once, the running loop goes on. */
    private boolean pumping;
    /** Connection.MaxSendSize and MaxFragmentedSendSize as negotiated. */
    private int maxSendSize;
    private long maxFragmentedSendSize;
    private SendBuffers buffers;
    /** The message each send slot carries a fragment of (null: a control or negotiate message); grows with the slots. */
    private OutMessage[] owner;
    /** The most send slots: usable send credits + 1, within the send queue. */
    private int maxSlots = 1;
    private long messagesSent;
    private long bytesSent;
    private long fragmentsSent;
    private long creditGrantsSent;

    SendPath(Connection connection, SmbDirectEngine engine, SerialExecutor serial, TransportSettings settings,
            CreditManager credits, Timers timers, ReceiveSide receives, ConnectionLoss loss) {
        this.connection = connection;
        this.engine = engine;
        this.serial = serial;
        this.creditRefillFraction = settings.creditRefillFraction();
        this.credits = credits;
        this.timers = timers;
        this.receives = receives;
        this.loss = loss;
        this.pumpTask = this::pump;
    }

    /** From any thread: the transport's settings changed to {@code changed}; the send loop uses them from now on. */
    void settingsChanged(TransportSettings changed) {
        creditRefillFraction = changed.creditRefillFraction();
    }

    /** The send loop as a task for the serial context (made once). */
    Runnable pumpTask() {
        return pumpTask;
    }

    // ---- send buffers ----

    /** Sizing the queue pair: at most {@code slots} send slots (usable send credits + 1). */
    void limitSlots(int slots) {
        maxSlots = slots;
    }

    /** The most send slots. */
    int maxSlots() {
        return maxSlots;
    }

    /** Whether the send buffers are registered. */
    boolean hasBuffers() {
        return buffers != null;
    }

    /** Registers the first chunk of send slots of {@code slotSize} bytes (MaxSendSize as it stands). */
    void setUpBuffers(int slotSize) throws RdmaException {
        buffers = SendBuffers.register(connection.endpoint(), maxSlots, slotSize);
        owner = new OutMessage[buffers.capacity()];
    }

    /**
     * Every send slot is in use and a send waits: the send buffers grow (up to the usable send
     * credits + 1) unless the provider refused it lately.
     *
     * @return whether a slot is free now
     */
    private boolean growBuffers() {
        if (!buffers.growForWaitingSend(connection.endpoint(), connection.id)) {
            return false;
        }
        owner = Arrays.copyOf(owner, buffers.capacity());
        return true;
    }

    /** Send slots registered now (tests). */
    int slotCapacity() {
        return buffers == null ? 0 : buffers.capacity();
    }

    /** Send buffer chunks registered now (tests). */
    int bufferChunks() {
        return buffers == null ? 0 : buffers.chunks();
    }

    /** Growths of the send buffers the provider refused (tests). */
    long growthFailures() {
        return buffers == null ? 0 : buffers.growthFailures();
    }

    // ---- negotiate messages (3.1.5.2, 3.1.5.3) ----

    /** Takes a send slot for a negotiate message (owner none): encode it at {@link #slotOffset} of {@link #slotBuffer}. */
    int takeNegotiateSlot() {
        return buffers.take();
    }

    ByteBuffer slotBuffer(int slot) {
        return buffers.buffer(slot);
    }

    int slotOffset(int slot) {
        return buffers.offset(slot);
    }

    /**
     * Posts the negotiate message of {@code length} bytes encoded in {@code slot}.
     *
     * @throws RdmaException when the post was refused (the slot is free again)
     */
    void postNegotiate(int slot, int length) throws RdmaException {
        int off = buffers.offset(slot);
        try {
            connection.endpoint().postSend(buffers.region(slot), off, length, Connection.wr(Connection.K_SEND, slot));
        } catch (RdmaException e) {
            buffers.give(slot);
            throw e;
        }
        engine.trace(connection, true, buffers.buffer(slot), off, length);
    }

    /** Negotiation completed: the limits messages are sent by. */
    void open(int negotiatedMaxSendSize, long negotiatedMaxFragmentedSendSize) {
        this.maxSendSize = negotiatedMaxSendSize;
        this.maxFragmentedSendSize = negotiatedMaxFragmentedSendSize;
    }

    // ---- the upper layer's messages (3.1.4.2) ----

    /**
     * Hands a message to the serial context: at once with a pooled entry when the context is idle
     * or the caller is one of its callbacks with nothing queued (no allocation; the send queue and
     * the credit gate are consistent at every callback), else queued in a new entry behind the
     * work already waiting, which keeps each thread's sends in order.
     */
    void submit(ByteBuffer message, SendCompletion completion, boolean invalidate, int token) {
        if (serial.tryEnterIdle()) {
            try {
                enqueue(pooled().init(message, completion, invalidate, token));
            } finally {
                serial.exit();
            }
        } else if (serial.inContextAndNothingQueued()) {
            // from inside one of this connection's callbacks, with nothing queued before it
            enqueue(pooled().init(message, completion, invalidate, token));
        } else {
            // behind the work already waiting; the entry comes from the pool shared with other threads
            SharedPool<OutMessage> p = sharedPool();
            OutMessage m = p.poll();
            if (m == null) {
                m = new OutMessage(this);
                m.shared = true;
            }
            serial.execute(m.init(message, completion, invalidate, token));
        }
    }

    /** Entries for sends queued by threads that found the serial context busy (created on first use). */
    private SharedPool<OutMessage> sharedPool() {
        SharedPool<OutMessage> p = shared;
        if (p == null) {
            p = new SharedPool<>(SHARED_POOL);
            if (!SHARED.compareAndSet(this, null, p)) {
                p = shared;
            }
        }
        return p;
    }

    private OutMessage pooled() {
        OutMessage m = pool.pollFirst();
        return m != null ? m : new OutMessage(this);
    }

    /** A message completed successfully and nothing refers to its entry any more: reuse it. */
    private void recycle(OutMessage m) {
        m.clear();
        if (m.shared) {
            shared.offer(m);
        } else if (pool.size() < OUT_POOL) {
            pool.addFirst(m);
        }
    }

    /** Serial context: an upper-layer message enters Connection.SendQueue (R-3.1.5.1-02). */
    void enqueue(OutMessage m) {
        if (m.completion == null) {
            LOG.warn("connection {}: send without a completion refused", connection.id);
            return;
        }
        if (m.message == null || m.length == 0) {
            complete(m, new SmbDirectException(SmbDirectException.Kind.INVALID_ARGUMENT, "empty message"));
            return;
        }
        if (!connection.isEstablished()) {
            if (connection.closeReasonProvisional()) {
                flushed.add(m); // fails at the finish with the endpoint's own reason (R-3.1.7.1-01)
                return;
            }
            complete(m, connection.notEstablished());
            return;
        }
        if (m.length > maxFragmentedSendSize) {
            // R-3.1.4.2-02, -03, R-3.1.5.4-02: refused, nothing sent
            complete(m, new SmbDirectException(SmbDirectException.Kind.MESSAGE_TOO_LARGE, "message of " + m.length
                    + " bytes exceeds the peer's MaxFragmentedSize " + maxFragmentedSendSize + " (R-3.1.4.2-03)"));
            return;
        }
        queue.addLast(m);
        pump();
    }

    /** Messages in Connection.SendQueue. */
    int queueDepth() {
        return queue.size();
    }

    /** Connection.SendImmediate, which the receive side holds (tests). */
    boolean sendImmediate() {
        return receives.sendImmediate();
    }

    // ---- the send loop (3.1.5.1, 3.1.5.4) ----

    /**
     * The credit gate (3.1.5.1): sends fragments of the queue head, or one empty message when a
     * credit grant, keepalive or keepalive reply is due and nothing is queued. Because grants and
     * flags ride on the next fragment, no other message ever goes between the fragments of one
     * upper-layer message (R-3.1.5.4-21, peer-lessons 4).
     */
    void pump() {
        if (pumping) {
            return; // a completion taken by the loop below: the loop goes on with its effect
        }
        pumping = true;
        try {
            pumpLoop();
        } finally {
            pumping = false;
        }
    }

    private void pumpLoop() {
        if (!connection.isEstablished()) {
            return;
        }
        receives.refill();
        if (!connection.isEstablished()) {
            return;
        }
        for (;;) {
            if (!connection.isEstablished()) {
                return; // closed by something a taken completion did
            }
            OutMessage head = queue.peekFirst();
            boolean controlDue = head == null && (receives.sendImmediate()
                    || timers.keepalivePending()
                    || credits.grantDue(creditRefillFraction));
            if (head == null && !controlDue) {
                timers.creditsAvailable();
                return;
            }
            if (!credits.hasSendCredit()) { // R-3.1.5.1-04
                if (takeArrivedCompletions()) {
                    continue;
                }
                timers.creditStall();
                return;
            }
            if (buffers.available() == 0) {
                if (takeArrivedCompletions()) {
                    continue;
                }
                if (!growBuffers()) {
                    return; // resumes when a send completes
                }
            }
            if (credits.spendsLastCredit()) {
                // R-3.1.5.9-04, R-3.1.5.1-06, A-16: the last credit goes with a grant that includes one
                // more receive, so that the peer can answer and still grant back (no grant ping-pong)
                if (credits.mayPostExtra() && receives.bufferAvailable()) {
                    if (!receives.postOne(true)) {
                        return;
                    }
                } else if (credits.lastCreditWaits()) {
                    timers.creditStall(); // R-3.1.5.9-06
                    return;
                }
            }
            timers.creditsAvailable();
            sendOne(head);
        }
    }

    /**
     * The send loop is out of credits or send slots: handles the work completions the provider has
     * already delivered to this connection while the loop ran (queued behind it on the serial
     * context: send completions free slots, a receive may carry a credit grant), so the loop goes on
     * with hot slots and fresh credits instead of stalling until it returns. Their calls of
     * {@link #pump} return at once; this loop continues in their place, posting receives first.
     *
     * @return whether any completion was handled (the loop should look again)
     */
    private boolean takeArrivedCompletions() {
        if (connection.takeArrivedCompletions() == 0) {
            return false;
        }
        if (connection.isEstablished()) {
            receives.refill();
        }
        return true;
    }

    private void sendOne(OutMessage head) {
        int granted = credits.onSend(); // R-3.1.5.1-05, -08
        int flags = timers.flagsForNextMessage(); // R-3.1.5.1-10, -11, -12
        int slot = buffers.take();
        int chunk = buffers.chunk(slot);
        ByteBuffer buf = buffers.chunkBuffer(chunk);
        MemoryRegion region = buffers.chunkRegion(chunk);
        int base = buffers.offset(chunk, slot);
        // R-3.1.5.1-09, R-3.1.5.4-03..18
        int total = Fragmenter.next(buf, base, maxSendSize, head, credits.sendCreditTarget(), granted, flags);
        receives.clearSendImmediate(); // R-3.1.5.1-16
        owner[slot] = head;
        if (head == null) {
            if (granted > 0 && flags == 0) {
                creditGrantsSent++;
            }
        } else {
            head.pendingFragments++;
            if (head.unsent() == 0) {
                head.allPosted = true;
                queue.pollFirst(); // R-3.1.5.1-07
            }
        }
        fragmentsSent++;
        engine.trace(connection, true, buf, base, total);
        try {
            if (head != null && head.invalidate && !head.tokenAttached) {
                head.tokenAttached = true;
                if (connection.capabilities().sendWithInvalidate()) {
                    // R-3.1.5.4-19, R-3.1.5.1-13: exactly one fragment carries the token
                    connection.endpoint().postSendWithInvalidate(region, base, total, head.remoteToken,
                            Connection.wr(Connection.K_SEND, slot));
                    return;
                }
                // R-3.1.5.1-14: the provider cannot invalidate; the token is dropped
            }
            connection.endpoint().postSend(region, base, total, Connection.wr(Connection.K_SEND, slot)); // R-3.1.5.1-15
        } catch (RdmaException e) {
            owner[slot] = null;
            buffers.give(slot);
            if (head != null) {
                head.pendingFragments--;
                if (head.allPosted) {
                    // already off the send queue and now never sent completely: it must not complete as
                    // sent when its earlier fragments do, and fails with the final reason like flushed work
                    head.allPosted = false;
                    flushed.add(head);
                }
            }
            loss.closeAfterPostFailure("posting a Send", e);
        }
    }

    /** A Send (a fragment, a control or a negotiate message) completed. */
    void onCompleted(int slot, CompletionStatus status, int vendorError) {
        OutMessage m = owner[slot];
        owner[slot] = null;
        buffers.completed(slot);
        if (status == CompletionStatus.FLUSHED) {
            // the queue pair is going down; onDisconnected follows with the reason
            if (m != null) {
                m.pendingFragments--;
                flushed.add(m);
            }
            return;
        }
        if (status != CompletionStatus.SUCCESS) {
            CloseReason reason = loss.providerError(m != null && m.invalidate && m.tokenAttached
                    ? String.format("Send with Invalidate of the peer's token 0x%08x", m.remoteToken) : "Send",
                    status, vendorError);
            if (m != null) {
                m.pendingFragments--;
                CloseReason current = connection.closeReason();
                complete(m, SmbDirectException.closed(current != null ? current : reason));
            }
            connection.close(reason);
            return;
        }
        if (m != null) {
            m.pendingFragments--;
            if (m.allPosted && m.pendingFragments == 0 && !m.done) {
                messagesSent++;
                bytesSent += m.length;
                complete(m, null);
                recycle(m);
            }
        }
        if (connection.isEstablished()) {
            pump();
        }
    }

    private void complete(OutMessage m, Throwable failure) {
        if (m.done) {
            return;
        }
        m.done = true;
        try {
            m.completion.sendComplete(m.message, failure);
        } catch (Throwable e) {
            connection.callbackFailed("SendCompletion.sendComplete", e);
        }
    }

    /** The connection closes (3.1.7.1): the messages still queued fail now. */
    void failQueued(Throwable failure) {
        OutMessage m;
        while ((m = queue.pollFirst()) != null) {
            complete(m, failure);
        }
    }

    /**
     * The connection closes for a reason that may still give way to the endpoint's own (a refused
     * post): the queued messages fail when the connection finishes, with its final reason, as
     * flushed ones do.
     */
    void failQueuedWithTheFinalReason() {
        OutMessage m;
        while ((m = queue.pollFirst()) != null) {
            flushed.add(m);
        }
    }

    /** The connection finished: every message with a fragment in flight or flushed fails. */
    void failInFlight(Throwable failure) {
        if (owner != null) {
            for (int i = 0; i < owner.length; i++) {
                if (owner[i] != null) {
                    complete(owner[i], failure);
                    owner[i] = null;
                }
            }
        }
        for (OutMessage m : flushed) {
            complete(m, failure);
        }
        flushed.clear();
    }

    /**
     * Messages the upper layer handed over and not yet completed: queued, or with a fragment posted
     * and not acknowledged, or flushed and not yet failed (serial context).
     */
    int inFlight() {
        int n = queue.size() + flushed.size();
        if (owner != null) {
            OutMessage last = null;
            for (OutMessage m : owner) {
                if (m != null && m != last) {
                    n++;
                    last = m;
                }
            }
        }
        return n;
    }

    /** Fragments sent (tests, DTO). */
    long fragmentsSent() {
        return fragmentsSent;
    }

    /** Empty messages sent to grant credits (tests, DTO). */
    long creditGrantsSent() {
        return creditGrantsSent;
    }

    void describeTo(ConnectionDTO d) {
        d.sendQueueDepth = queue.size();
        d.messagesSent = messagesSent;
        d.bytesSent = bytesSent;
        d.fragmentsSent = fragmentsSent;
        d.creditGrantsSent = creditGrantsSent;
    }
}
