package smbdirect.impl.engine;

import java.nio.ByteBuffer;
import java.util.EnumSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.RdmaException;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.SmbdWire;
import smbdirect.impl.wire.Violation;

/**
 * The receive path of one established connection: posting receive buffers for the peer's credits
 * ([MS-SMBD] 3.1.5.9), Receiving a Data Transfer Message (3.1.5.8) with its checks, credits, flags
 * and remote invalidation, reassembly of fragmented messages ({@link Reassembler}) and delivery to
 * the upper layer ({@link ConnectionHandler#onMessage}).
 *
 * <p>Owns the receive buffers (one region of (ReceiveCreditMax + 1) x MaxReceiveSize registered
 * once and sliced), the reassembly buffer, the InvalidatedToken of the message being received,
 * Connection.SendImmediate (set by a message that requests a response, cleared by the send loop), the
 * reusable {@link ReceivedMessageImpl} and the receive counters. A single-fragment message is handed
 * up as a read-only view of its receive slot during the callback (zero copy); a fragmented one is
 * copied once into the reassembly buffer and its slots are reposted as soon as their bytes were
 * consumed. Allocation-free after set-up.
 *
 * <p>The send loop sees it as its {@link ReceiveSide}, the one way the two meet: the receive path
 * never calls the send loop, it tells its caller when the loop is to run ({@link #onCompleted}).
 * Not thread-safe: owned by the connection's serial context.
 */
final class ReceivePath implements ReceiveSide {

    private static final Logger LOG = LoggerFactory.getLogger(ReceivePath.class);

    private final Connection connection;
    private final SmbDirectEngine engine;
    private final CreditManager credits;
    private final Timers timers;
    private final MemoryRegistrations registrations;
    private final ConnectionLoss loss;
    private final ReceivedMessageImpl received = new ReceivedMessageImpl();
    private BufferPool pool;
    private ByteBuffer view;
    private Reassembler reassembler;
    private int maxFragmentedRecvSize;
    /** Connection.InvalidatedToken of the message being received. */
    private boolean hasInvalidatedToken;
    private int invalidatedToken;
    /** Connection.SendImmediate. */
    private boolean sendImmediate;
    private long messagesReceived;
    private long bytesReceived;
    private long fragmentsReceived;
    private long keepalivesReceived;

    ReceivePath(Connection connection, SmbDirectEngine engine, CreditManager credits, Timers timers,
            MemoryRegistrations registrations, ConnectionLoss loss) {
        this.connection = connection;
        this.engine = engine;
        this.credits = credits;
        this.timers = timers;
        this.registrations = registrations;
        this.loss = loss;
    }

    /**
     * Negotiation: registers the receive buffers, (ReceiveCreditMax + 1) receives of
     * {@code maxReceiveSize} bytes, and the reassembly of messages up to {@code maxFragmentedRecvSize}.
     */
    void setUp(int maxReceiveSize, int maxFragmentedRecvSize) throws RdmaException {
        this.maxFragmentedRecvSize = maxFragmentedRecvSize;
        reassembler = new Reassembler(maxFragmentedRecvSize);
        pool = BufferPool.register(connection.endpoint(), credits.receiveCapacity(), maxReceiveSize,
                EnumSet.of(MemoryAccess.LOCAL_WRITE));
        view = pool.buffer.asReadOnlyBuffer();
    }

    @Override
    public boolean bufferAvailable() {
        return pool.available() > 0;
    }

    @Override
    public void refill() {
        int want = credits.receivesWanted();
        while (want-- > 0 && pool.available() > 0) {
            if (!postOne(true)) {
                return;
            }
        }
    }

    /** 3.1.5.9 during negotiation: posts what it can, a refused post is answered by the caller. */
    void postNegotiationReceives() {
        int want = credits.receivesWanted();
        while (want-- > 0 && pool.available() > 0 && postOne(false)) {
            // posted
        }
    }

    /**
     * Posts one receive of MaxReceiveSize.
     *
     * @param fatal whether a refused post ends the connection (during negotiation the caller answers
     *     with a failure instead, R-3.1.5.6-17 / R-3.1.5.7-19)
     * @return whether it was posted
     */
    @Override
    public boolean postOne(boolean fatal) {
        int slot = pool.take();
        try {
            connection.endpoint().postReceive(pool.region, pool.offset(slot), pool.slotSize,
                    Connection.wr(Connection.K_RECV, slot));
            credits.onReceivePosted();
            return true;
        } catch (RdmaException e) {
            pool.give(slot);
            if (fatal) {
                loss.closeAfterPostFailure("posting a receive", e);
            } else {
                LOG.debug("connection {}: posting a receive during negotiation failed", connection.id, e);
            }
            return false;
        }
    }

    /**
     * A posted receive completed.
     *
     * @return whether the send loop is to run now: a message was taken and the connection is still
     *     established (its grant, a requested response or the credits it granted may go out,
     *     R-3.1.5.8-08, -09, -14)
     */
    boolean onCompleted(int slot, CompletionStatus status, int length, boolean invalidated, int token,
            int vendorError) {
        if (status == CompletionStatus.SUCCESS && (connection.isEstablished() || loss.deliversWhileClosing())) {
            return onDataTransfer(slot, length, invalidated, token);
        }
        pool.give(slot);
        credits.onReceiveFlushed();
        if (status != CompletionStatus.SUCCESS && status != CompletionStatus.FLUSHED) {
            connection.close(loss.providerError("receive", status, vendorError));
        }
        return false;
    }

    /** Receiving a Data Transfer Message; whether the send loop is to run now (see {@link #onCompleted}). */
    private boolean onDataTransfer(int slot, int length, boolean invalidated, int token) {
        int off = pool.offset(slot);
        ByteBuffer buffer = pool.buffer;
        engine.trace(connection, false, buffer, off, length);
        // R-3.1.5.5-03, -04: any message restarts the Idle Connection Timer and answers a keepalive
        timers.messageReceived();
        fragmentsReceived++;
        // R-3.1.5.8-01..06
        Violation v = DataTransfer.check(buffer, off, length, maxFragmentedRecvSize);
        if (v != null) {
            pool.give(slot);
            credits.onInvalidMessage();
            connection.close(Closing.reason(CloseReason.Kind.PROTOCOL_VIOLATION, v));
            return false;
        }
        if (!credits.onMessageReceived()) { // R-3.1.5.8-07
            pool.give(slot);
            connection.close(new CloseReason(CloseReason.Kind.PROTOCOL_VIOLATION, "R-3.1.5.1-04",
                    "the peer sent a message without holding a Send Credit; " + credits));
            return false;
        }
        long creditsRequested = DataTransfer.creditsRequested(buffer, off);
        long creditsGranted = DataTransfer.creditsGranted(buffer, off);
        long flags = DataTransfer.flags(buffer, off);
        long remaining = DataTransfer.remainingDataLength(buffer, off);
        long dataOffset = DataTransfer.dataOffset(buffer, off);
        long dataLength = DataTransfer.dataLength(buffer, off);
        credits.onCreditsRequested((int) creditsRequested); // R-3.1.5.8-10
        if ((flags & SmbdWire.FLAG_RESPONSE_REQUESTED) != 0) {
            // R-3.1.5.8-11, -12 as Windows and Linux do: reply promptly with Flags 0
            sendImmediate = true;
            keepalivesReceived++;
        }
        if (creditsGranted > 0) {
            credits.addSendCredits((int) creditsGranted); // R-3.1.5.8-13
        }
        if (invalidated) {
            // R-3.1.5.8-17: InvalidatedToken (A-36: on any fragment)
            hasInvalidatedToken = true;
            invalidatedToken = token;
            registrations.remotelyInvalidated(token);
        }
        Reassembler.Outcome outcome = reassembler.onFragment(buffer, off + (int) dataOffset, (int) dataLength,
                remaining); // R-3.1.5.8-15, -16
        switch (outcome) {
            case VIOLATION:
                pool.give(slot);
                connection.close(new CloseReason(CloseReason.Kind.PROTOCOL_VIOLATION, reassembler.violationRule(),
                        reassembler.violationDetail()));
                return false;
            case SINGLE:
                // zero copy: the receive slot itself, during the callback
                view.clear();
                view.position(off + (int) dataOffset);
                view.limit(off + (int) dataOffset + (int) dataLength);
                deliver(view, (int) dataLength);
                pool.give(slot);
                break;
            case REASSEMBLED:
                pool.give(slot); // the bytes were copied: repost first (peer-lessons 6)
                if (connection.isEstablished()) {
                    refill();
                }
                deliver(reassembler.message(), reassembler.messageLength());
                break;
            default:
                pool.give(slot);
                break;
        }
        return connection.isEstablished(); // the send loop runs: R-3.1.5.8-08, -09, -14
    }

    private void deliver(ByteBuffer payload, int length) {
        messagesReceived++;
        bytesReceived += length;
        // R-3.1.5.8-19, -20: the token goes up with the complete message, then is cleared
        received.set(payload, length, hasInvalidatedToken, invalidatedToken);
        hasInvalidatedToken = false;
        invalidatedToken = 0;
        ConnectionHandler h = connection.handler();
        if (h == null) {
            return;
        }
        try {
            h.onMessage(connection, received);
        } catch (Throwable e) {
            connection.callbackFailed("ConnectionHandler.onMessage", e);
        }
    }

    @Override
    public boolean sendImmediate() {
        return sendImmediate;
    }

    @Override
    public void clearSendImmediate() {
        sendImmediate = false;
    }

    /** Whether part of a fragmented message arrived and the rest has not (serial context). */
    boolean receiving() {
        return reassembler != null && reassembler.inProgress();
    }

    /**
     * A note on the fragmented message being received, or null when none is: how much of it arrived,
     * e.g. {@code a message the peer had partly sent was dropped: 2680 of 10000 bytes received}.
     */
    String partialMessage() {
        if (reassembler == null || !reassembler.inProgress()) {
            return null;
        }
        long received = reassembler.messageLength();
        return "a message the peer had partly sent was dropped: " + received + " of "
                + (received + reassembler.remaining()) + " bytes received";
    }

    /** Messages handed to the upper layer (tests, DTO). */
    long messagesReceived() {
        return messagesReceived;
    }

    /** Messages received, fragments counted one by one (tests, DTO). */
    long fragmentsReceived() {
        return fragmentsReceived;
    }

    /** Messages received with SMB_DIRECT_RESPONSE_REQUESTED (tests, DTO). */
    long keepalivesReceived() {
        return keepalivesReceived;
    }

    void describeTo(ConnectionDTO d) {
        d.messagesReceived = messagesReceived;
        d.bytesReceived = bytesReceived;
        d.fragmentsReceived = fragmentsReceived;
        d.keepalivesReceived = keepalivesReceived;
    }
}
