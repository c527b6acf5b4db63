package smbdirect.impl.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.TransportType;
import smbdirect.impl.wire.IrdOrdHeader;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.impl.wire.SmbdWire;
import smbdirect.impl.wire.Violation;

/**
 * The active side's establishment and negotiation: Connecting to the Peer ([MS-SMBD] 3.1.4.1) with
 * the IRD/ORD header of appendix 6 on iWARP, Sending a Negotiate Request (3.1.5.2) once the RDMA
 * connection is established, and Receiving a Negotiate Response (3.1.5.7), which completes the
 * upper layer's connect stage.
 *
 * <p>Owns the connect stage until it completes (with the connection, or with the failure the
 * connection finished with). Not thread-safe: owned by the connection's serial context.
 */
final class ActiveNegotiation extends Negotiation {

    private static final Logger LOG = LoggerFactory.getLogger(ActiveNegotiation.class);

    private CompletableFuture<SmbDirectConnection> connectFuture;

    ActiveNegotiation(Connection connection, SmbDirectEngine engine, SerialExecutor serial, CreditManager credits,
            Timers timers, ReceivePath receivePath, SendPath sendPath, RdmaOperations rdma, ConnectionLoss loss,
            TransportSettings settings) {
        super(connection, engine, serial, credits, timers, receivePath, sendPath, rdma, loss, settings, Role.ACTIVE, 0);
    }

    /** Connecting to the Peer (3.1.4.1): from the upper layer's thread; the work runs on the serial context. */
    void start(InetSocketAddress peer, Duration timeout, ConnectionHandler handler,
            CompletableFuture<SmbDirectConnection> future) {
        this.connectFuture = future;
        connection.connecting(peer, handler);
        serial.execute(() -> {
            // R-3.1.4.1-10: the Negotiation Timer covers connect and negotiation
            timers.startNegotiationTimer(timeout.toNanos());
            try {
                connection.useCapabilities(engine.provider().capabilities());
                connection.attach(engine.provider().createEndpoint(endpointSettings(), connection)); // R-3.1.4.1-03
                // the active side sends nothing from the initial region (its Negotiate Request goes out
                // from a send slot): the region is free as soon as the response arrived in it
                setUpInitialRegion(SmbdWire.INITIAL_RECEIVE_SIZE);
                sendPath.setUpBuffers(maxSendSize); // MaxSendSize as it stands: negotiation only lowers it
                postInitialReceive(); // R-3.1.4.1-11: one receive of at least 512 bytes before connecting
                RdmaCapabilities caps = connection.capabilities();
                inboundReadDepth = Math.min(initial.inboundReadDepth(), caps.maxInboundReadDepth());
                outboundReadDepth = Math.min(initial.outboundReadDepth(), caps.maxOutboundReadDepth());
                ByteBuffer priv = ByteBuffer.allocate(0);
                if (engine.provider().transportType() == TransportType.IWARP) {
                    // R-6.1-01: the IRD/ORD header leads the connect private data on iWARP
                    priv = ByteBuffer.allocate(SmbdWire.IRD_ORD_HEADER_SIZE);
                    IrdOrdHeader.encode(priv, 0, inboundReadDepth, outboundReadDepth);
                }
                connection.endpointStarted();
                connection.endpoint().connect(peer, new ConnectParameters(priv, Math.max(1, inboundReadDepth),
                        Math.max(1, outboundReadDepth))); // R-3.1.4.1-12
            } catch (RdmaException | RuntimeException e) {
                // R-3.1.4.1-13: the lower layer's error goes back to the upper layer
                connection.close(CloseReason.of(CloseReason.Kind.CONNECT_FAILED,
                        "connect to " + peer + " failed: " + e.getMessage()));
            }
        });
    }

    @Override
    void established(ByteBuffer peerPrivateData) {
        connection.negotiating();
        if (engine.provider().transportType() == TransportType.IWARP
                && peerPrivateData.remaining() >= SmbdWire.IRD_ORD_HEADER_SIZE
                && IrdOrdHeader.check(peerPrivateData, 0, peerPrivateData.remaining()) == null) {
            // R-6.2-05: program the values the acceptor returned
            long peerIrd = IrdOrdHeader.ird(peerPrivateData, 0);
            long peerOrd = IrdOrdHeader.ord(peerPrivateData, 0);
            outboundReadDepth = (int) Math.min(outboundReadDepth, peerIrd);
            inboundReadDepth = (int) Math.min(inboundReadDepth, peerOrd);
        }
        if (connection.endpoint().outboundReadDepth() > 0) {
            outboundReadDepth = Math.min(outboundReadDepth, connection.endpoint().outboundReadDepth());
        }
        if (connection.endpoint().inboundReadDepth() > 0) {
            // the IRD is the device's to set (the peer's reads are served by it): the one in effect, also
            // when the device set more than was asked (siw), is what this connection has and shows
            inboundReadDepth = connection.endpoint().inboundReadDepth();
        }
        // R-3.1.4.1-14, 3.1.5.2: the first message is the Negotiate Request (from a send slot, owner none)
        int slot = sendPath.takeNegotiateSlot();
        NegotiateRequest.encode(sendPath.slotBuffer(slot), sendPath.slotOffset(slot), SmbdWire.PROTOCOL_V1,
                SmbdWire.PROTOCOL_V1, credits.sendCreditTarget(), maxSendSize, maxReceiveSize, maxFragmentedRecvSize);
        try {
            sendPath.postNegotiate(slot, SmbdWire.NEGOTIATE_REQUEST_SIZE);
        } catch (RdmaException e) {
            connection.close(CloseReason.of(CloseReason.Kind.CONNECT_FAILED,
                    "posting the Negotiate Request failed: " + e.getMessage()));
        }
    }

    @Override
    void onNegotiationMessage(int length) {
        if (role == Role.ACTIVE) {
            onNegotiateResponse(length); // R-3.1.5.5-02
        }
    }

    /** Receiving a Negotiate Response (3.1.5.7). */
    private void onNegotiateResponse(int length) {
        Violation v = NegotiateResponse.check(initBuf, 0, length, maxReceiveSize);
        if (v != null) {
            // R-3.1.5.7-09: terminate and fail the connect
            connection.close(Closing.reason(CloseReason.Kind.NEGOTIATION_FAILED, v));
            return;
        }
        protocol = SmbdWire.PROTOCOL_V1; // R-3.1.5.7-10
        credits.onCreditsRequested(NegotiateResponse.creditsRequested(initBuf, 0)); // R-3.1.5.7-11
        long preferred = NegotiateResponse.preferredSendSize(initBuf, 0);
        maxReceiveSize = (int) Math.max(SmbdWire.MIN_RECEIVE_SIZE, Math.min(maxReceiveSize, preferred)); // -12, -13
        maxSendSize = (int) Math.min(maxSendSize, NegotiateResponse.maxReceiveSize(initBuf, 0)); // -14
        maxReadWriteSize = (int) Math.min(initial.maxReadWriteSize(),
                NegotiateResponse.maxReadWriteSize(initBuf, 0)); // -15
        credits.addSendCredits(NegotiateResponse.creditsGranted(initBuf, 0)); // -16
        maxFragmentedSendSize = NegotiateResponse.maxFragmentedSize(initBuf, 0); // -17
        releaseInitialRegion(); // its receive completed (the response); the request went from a send slot
        try {
            setUpDataRegions();
            receivePath.postNegotiationReceives(); // R-3.1.5.7-18
        } catch (RdmaException e) {
            LOG.debug("connection {}: receive set-up failed", connection.id, e);
        }
        if (credits.noReceivePosted()) {
            connection.close(new CloseReason(CloseReason.Kind.RESOURCE_LIMIT, "R-3.1.5.7-19",
                    "no receive could be posted"));
            return;
        }
        completed(); // -20, -21, -22
        CompletableFuture<SmbDirectConnection> f = connectFuture;
        connectFuture = null;
        f.complete(connection); // -23
        // the upper layer's first message (queued by its completion stage) carries the grant
        serial.execute(sendPath.pumpTask());
    }

    @Override
    void onInitialSendCompleted(CompletionStatus status, int vendorError) {
        // the active side sends nothing from the initial region
    }

    @Override
    boolean failPendingConnect(CloseReason reason) {
        CompletableFuture<SmbDirectConnection> f = connectFuture;
        connectFuture = null;
        if (f == null) {
            return false;
        }
        f.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.CONNECT_FAILED,
                "connect to " + connection.peerAddress() + " failed: " + reason, reason, null));
        return true;
    }
}
