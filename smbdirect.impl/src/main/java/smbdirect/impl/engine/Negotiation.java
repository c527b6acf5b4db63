package smbdirect.impl.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaException;
import smbdirect.impl.wire.SmbdWire;

/**
 * Establishing and negotiating one connection: what both roles share. The active side
 * ({@link ActiveNegotiation}: Connecting to the Peer, 3.1.4.1; Sending a Negotiate Request, 3.1.5.2;
 * Receiving a Negotiate Response, 3.1.5.7) and the passive side ({@link PassiveNegotiation}:
 * Connection Arrival, 3.1.7.2; Receiving a Negotiate Request, 3.1.5.6; Sending a Negotiate
 * Response, 3.1.5.3) differ in the messages; here are the ADM values they negotiate ([MS-SMBD]
 * 3.1.1.1: Role, Protocol, MaxSendSize, MaxReceiveSize, MaxFragmentedSendSize, MaxFragmentedRecvSize,
 * MaxReadWriteSize, with the IRD and ORD of appendix 6), the initial receive region and the first
 * message's dispatch by Role (Receiving Any Message, 3.1.5.5), and the hand-over to the send and
 * receive paths and the RDMA operations once negotiation completed.
 *
 * <p>The initial region holds the initial 512-byte receive (and, on the passive side, room for a
 * negotiate failure response); it is deregistered as soon as negotiation succeeded. The negotiate
 * messages of a success go out from send slots. Not thread-safe: owned by the connection's serial
 * context; the negotiated values are read by other threads for the DTO and the connection
 * parameters once negotiation completed. Made after the send and receive paths and the RDMA
 * operations, which it hands over to, it is given them when it is made; {@link Closing} is made after
 * it and is reached through {@link ConnectionLoss}.
 */
abstract sealed class Negotiation permits ActiveNegotiation, PassiveNegotiation {

    private static final Logger LOG = LoggerFactory.getLogger(Negotiation.class);

    final Connection connection;
    final SmbDirectEngine engine;
    final SerialExecutor serial;
    /** The settings the connection was created with. */
    final TransportSettings initial;
    final CreditManager credits;
    final Timers timers;
    final SendPath sendPath;
    final ReceivePath receivePath;
    final RdmaOperations rdma;
    final ConnectionLoss loss;

    // ---- ADM (3.1.1.1) ----
    Role role;
    int protocol;
    int maxSendSize;
    int maxReceiveSize;
    long maxFragmentedSendSize;
    int maxFragmentedRecvSize;
    int maxReadWriteSize;
    int inboundReadDepth;
    int outboundReadDepth;

    ByteBuffer initBuf;
    MemoryRegion initRegion;

    Negotiation(Connection connection, SmbDirectEngine engine, SerialExecutor serial, CreditManager credits,
            Timers timers, ReceivePath receivePath, SendPath sendPath, RdmaOperations rdma, ConnectionLoss loss,
            TransportSettings initial, Role role, int maxReadWriteSize) {
        this.connection = connection;
        this.engine = engine;
        this.serial = serial;
        this.initial = initial;
        this.credits = credits;
        this.timers = timers;
        this.sendPath = sendPath;
        this.receivePath = receivePath;
        this.rdma = rdma;
        this.loss = loss;
        // R-3.1.4.1-04..09 / R-3.1.7.2-07..10: initial values
        this.role = role;
        this.maxSendSize = initial.maxSendSize();
        this.maxReceiveSize = initial.maxReceiveSize();
        this.maxFragmentedRecvSize = initial.maxFragmentedRecvSize();
        this.maxReadWriteSize = maxReadWriteSize;
    }

    /** The negotiation of a connection in {@code role} (ACTIVE or PASSIVE), given what it uses. */
    static Negotiation of(Connection connection, SmbDirectEngine engine, SerialExecutor serial, CreditManager credits,
            Timers timers, ReceivePath receivePath, SendPath sendPath, RdmaOperations rdma, ConnectionLoss loss,
            TransportSettings settings, boolean initiator) {
        return initiator
                ? new ActiveNegotiation(connection, engine, serial, credits, timers, receivePath, sendPath, rdma, loss,
                        settings)
                : new PassiveNegotiation(connection, engine, serial, credits, timers, receivePath, sendPath, rdma, loss,
                        settings);
    }

    /**
     * Queue-pair sizing within the device's limits: the receive queue holds ReceiveCreditMax + 1
     * data receives plus the initial one (ReceiveCreditMax is lowered to fit, peer-lessons 17); the
     * send queue holds the send slots, the negotiate message, ORD reads, the RDMA Write and local
     * invalidate budgets (send slots are lowered to fit).
     */
    EndpointSettings endpointSettings() {
        RdmaCapabilities caps = connection.capabilities();
        int rq = Math.min(caps.maxReceiveWorkRequests(), initial.receiveCreditMax() + 2);
        credits.limitReceiveCreditMax(Math.max(1, rq - 2));
        int fixed = 1 + initial.outboundReadDepth() + RdmaOperations.WRITE_BUDGET
                + MemoryRegistrations.INVALIDATE_BUDGET;
        int sendSlots = Math.max(1, Math.min(Math.min(initial.sendCreditTarget(), 255) + 1,
                caps.maxSendWorkRequests() - fixed));
        sendPath.limitSlots(sendSlots);
        int sq = Math.min(caps.maxSendWorkRequests(), sendSlots + fixed);
        return new EndpointSettings(Math.max(1, sq), Math.max(3, rq));
    }

    // ---- the initial region ----

    /** Registers the initial region of {@code size} bytes on the connection's endpoint. */
    void setUpInitialRegion(int size) throws RdmaException {
        initBuf = ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
        initRegion = connection.endpoint().register(initBuf, EnumSet.of(MemoryAccess.LOCAL_WRITE));
    }

    /** Posts the initial receive of 512 bytes (R-3.1.4.1-11, R-3.1.7.2-05). */
    void postInitialReceive() throws RdmaException {
        connection.endpoint().postReceive(initRegion, 0, SmbdWire.INITIAL_RECEIVE_SIZE,
                Connection.wr(Connection.K_INIT_RECV, 0));
    }

    /**
     * Negotiation succeeded and the initial receive completed: the initial region is not needed any
     * more (nothing was sent from it: the negotiate messages of a success go out from send slots).
     */
    void releaseInitialRegion() {
        MemoryRegion r = initRegion;
        initRegion = null;
        initBuf = null;
        if (r != null) {
            try {
                connection.endpoint().deregister(r);
            } catch (RdmaException | RuntimeException e) {
                // still released with the endpoint
                LOG.debug("connection {}: deregistering the initial region failed", connection.id, e);
            }
        }
    }

    /** Whether the initial negotiation region is still registered (tests). */
    boolean holdsInitialRegion() {
        return initRegion != null;
    }

    // ---- events ----

    /** The endpoint reported its establishment with the peer's private data. */
    void onEstablished(ByteBuffer peerPrivateData) {
        if (!connection.isOpen()) {
            return;
        }
        connection.endpointEstablished();
        established(peerPrivateData);
    }

    /** The RDMA connection is established: what the role does next. */
    abstract void established(ByteBuffer peerPrivateData);

    /** The initial receive completed. */
    void onInitialReceive(CompletionStatus status, int length, int vendorError) {
        if (status == CompletionStatus.SUCCESS) {
            if (connection.isNegotiating()) {
                engine.trace(connection, false, initBuf, 0, length);
                onNegotiationMessage(length);
            }
        } else if (status != CompletionStatus.FLUSHED) {
            connection.close(loss.providerError("initial receive", status, vendorError));
        }
    }

    /** Receiving Any Message (3.1.5.5) before negotiation completed: the first message, dispatched by Role. */
    abstract void onNegotiationMessage(int length);

    /** A negotiate message sent from the initial region completed. */
    abstract void onInitialSendCompleted(CompletionStatus status, int vendorError);

    /**
     * Registers the receive buffers and, on the passive side, the send buffers (the active side
     * registered them before its Negotiate Request).
     */
    void setUpDataRegions() throws RdmaException {
        receivePath.setUp(maxReceiveSize, maxFragmentedRecvSize);
        if (!sendPath.hasBuffers()) {
            sendPath.setUpBuffers(maxSendSize);
        }
    }

    /**
     * Negotiation completed (R-3.1.5.6-20..22, R-3.1.5.7-20..22): the timers switch over, the send
     * path and the RDMA operations get the negotiated limits, Role and the state become ESTABLISHED.
     */
    void completed() {
        timers.negotiated();
        sendPath.open(maxSendSize, maxFragmentedSendSize);
        rdma.open(maxReadWriteSize, outboundReadDepth);
        role = Role.ESTABLISHED;
        connection.established();
    }

    /** The connection finishes before its endpoint is closed: a request not accepted is rejected. */
    void rejectUnaccepted() {
    }

    /**
     * The connection finished: a connect stage still pending fails with {@code reason}.
     *
     * @return whether the upper layer was told so (it gets no {@code onDisconnected} then)
     */
    boolean failPendingConnect(CloseReason reason) {
        return false;
    }

    // ---- the negotiated values ----

    /** Connection.Role. */
    Role role() {
        return role;
    }

    /** Connection.Protocol. */
    int protocol() {
        return protocol;
    }

    /** Connection.MaxSendSize. */
    int maxSendSize() {
        return maxSendSize;
    }

    /** Connection.MaxReceiveSize. */
    int maxReceiveSize() {
        return maxReceiveSize;
    }

    /** Connection.MaxFragmentedSendSize. */
    long maxFragmentedSendSize() {
        return maxFragmentedSendSize;
    }

    /** Connection.MaxFragmentedRecvSize. */
    int maxFragmentedRecvSize() {
        return maxFragmentedRecvSize;
    }

    /** Connection.MaxReadWriteSize. */
    int maxReadWriteSize() {
        return maxReadWriteSize;
    }

    /** The inbound RDMA Read depth (IRD). */
    int inboundReadDepth() {
        return inboundReadDepth;
    }

    /** The outbound RDMA Read depth (ORD). */
    int outboundReadDepth() {
        return outboundReadDepth;
    }

    void describeTo(ConnectionDTO d) {
        d.protocol = protocol;
        d.maxSendSize = maxSendSize;
        d.maxReceiveSize = maxReceiveSize;
        d.maxFragmentedSendSize = maxFragmentedSendSize;
        d.maxFragmentedRecvSize = maxFragmentedRecvSize;
        d.maxReadWriteSize = maxReadWriteSize;
        d.inboundReadDepth = inboundReadDepth;
        d.outboundReadDepth = outboundReadDepth;
    }

    /** The negotiated values for the log line of an established connection. */
    String describeNegotiated() {
        return "MaxSendSize=" + maxSendSize + " MaxReceiveSize=" + maxReceiveSize + " MaxFragmentedSendSize="
                + maxFragmentedSendSize + " MaxFragmentedRecvSize=" + maxFragmentedRecvSize + " MaxReadWriteSize="
                + maxReadWriteSize + " IRD=" + inboundReadDepth + " ORD=" + outboundReadDepth;
    }
}
