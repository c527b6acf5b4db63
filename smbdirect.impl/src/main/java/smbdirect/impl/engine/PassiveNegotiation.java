package smbdirect.impl.engine;

import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.TransportType;
import smbdirect.impl.wire.IrdOrdHeader;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.impl.wire.SmbdWire;
import smbdirect.impl.wire.Violation;

/**
 * The passive side's establishment and negotiation: Connection Arrival ([MS-SMBD] 3.1.7.2) with the
 * IRD/ORD negotiation of appendix 6.2, Receiving a Negotiate Request (3.1.5.6) and Sending a
 * Negotiate Response (3.1.5.3), a success from a send slot or a failure from the initial region
 * followed by a graceful termination. The upper layer learns of the connection only once it
 * negotiated: its accept handler gets it then.
 *
 * <p>Owns the connection request until it is accepted and the reason to close with once a failure
 * response went out. Not thread-safe: owned by the connection's serial context.
 */
final class PassiveNegotiation extends Negotiation {

    private static final Logger LOG = LoggerFactory.getLogger(PassiveNegotiation.class);

    /** The initial region of the passive side: the initial receive and a negotiate failure response. */
    private static final int INITIAL_REGION = 1024;
    private static final int FAILURE_RESPONSE_OFFSET = 512;

    private RdmaConnectRequest request;
    /** The reason to close with once the failure response went out (R-3.1.5.3-08). */
    private CloseReason pendingClose;

    PassiveNegotiation(Connection connection, SmbDirectEngine engine, SerialExecutor serial, CreditManager credits,
            Timers timers, ReceivePath receivePath, SendPath sendPath, RdmaOperations rdma, ConnectionLoss loss,
            TransportSettings settings) {
        super(connection, engine, serial, credits, timers, receivePath, sendPath, rdma, loss, settings, Role.PASSIVE,
                settings.maxReadWriteSize());
    }

    /** Connection Arrival (3.1.7.2): from the listener's thread; the work runs on the serial context. */
    void start(RdmaConnectRequest connectRequest) {
        serial.execute(() -> {
            this.request = connectRequest;
            connection.arrived(connectRequest.localAddress(), connectRequest.peerAddress());
            // R-3.1.7.2-03: Negotiation Timer from arrival
            timers.startPassiveNegotiationTimer();
            try {
                RdmaCapabilities caps = engine.provider().capabilities();
                connection.useCapabilities(caps);
                int ird = Math.min(initial.inboundReadDepth(), caps.maxInboundReadDepth());
                int ord = Math.min(initial.outboundReadDepth(), caps.maxOutboundReadDepth());
                int peerIrd = connectRequest.peerInboundReadDepth();
                int peerOrd = connectRequest.peerOutboundReadDepth();
                ByteBuffer priv = connectRequest.privateData();
                boolean header = false;
                if (engine.provider().transportType() == TransportType.IWARP
                        && priv.remaining() >= SmbdWire.IRD_ORD_HEADER_SIZE
                        && IrdOrdHeader.check(priv, priv.position(), priv.remaining()) == null) {
                    // R-6.2-01: the requester's IRD/ORD header, in either byte order
                    peerIrd = IrdOrdHeader.clampToInt(IrdOrdHeader.ird(priv, priv.position()));
                    peerOrd = IrdOrdHeader.clampToInt(IrdOrdHeader.ord(priv, priv.position()));
                    header = true;
                }
                // R-6.2-02: our IRD bounded by the peer's ORD and vice versa
                if (peerOrd > 0) {
                    ird = Math.min(ird, peerOrd);
                }
                if (peerIrd > 0) {
                    ord = Math.min(ord, peerIrd);
                }
                if (ird <= 0 || ord <= 0) {
                    // R-6.2-03
                    refuse(CloseReason.of(CloseReason.Kind.CONNECT_FAILED,
                            "IRD/ORD negotiated to 0 (IRD " + ird + ", ORD " + ord + ") (R-6.2-03)"));
                    return;
                }
                inboundReadDepth = ird;
                outboundReadDepth = ord;
                connection.attach(connectRequest.createEndpoint(endpointSettings(), connection)); // R-3.1.7.2-04
                setUpInitialRegion(INITIAL_REGION);
                try {
                    postInitialReceive(); // R-3.1.7.2-05: at least one receive of at least 512 bytes
                } catch (RdmaException e) {
                    // R-3.1.7.2-06
                    refuse(CloseReason.of(CloseReason.Kind.RESOURCE_LIMIT,
                            "posting the initial receive failed (R-3.1.7.2-06): " + e.getMessage()));
                    return;
                }
                ByteBuffer reply = ByteBuffer.allocate(0);
                if (header) {
                    reply = ByteBuffer.allocate(SmbdWire.IRD_ORD_HEADER_SIZE);
                    IrdOrdHeader.encode(reply, 0, ird, ord); // R-6.2-01: echo a header
                }
                connection.endpointStarted();
                connection.endpoint().accept(new ConnectParameters(reply, ird, ord));
            } catch (RdmaException | RuntimeException e) {
                refuse(CloseReason.of(CloseReason.Kind.RESOURCE_LIMIT, "accepting failed: " + e.getMessage()));
            }
        });
    }

    /** Refuses the request before accepting it: {@link #rejectUnaccepted()} rejects it when the connection finishes. */
    private void refuse(CloseReason reason) {
        connection.close(reason);
    }

    @Override
    void rejectUnaccepted() {
        if (request != null && !connection.isEndpointStarted()) {
            request.reject(ByteBuffer.allocate(0)); // also releases an endpoint created from it
        }
    }

    @Override
    void established(ByteBuffer peerPrivateData) {
        // R-6-01: the provider negotiated the depths at connect time; where it reports lower ones
        // than were asked for at accept, those bound our RDMA Reads (as on the active side)
        if (connection.endpoint().outboundReadDepth() > 0) {
            outboundReadDepth = Math.min(outboundReadDepth, connection.endpoint().outboundReadDepth());
        }
        if (connection.endpoint().inboundReadDepth() > 0) {
            // the IRD is the device's to set (the peer's reads are served by it): the one in effect, also
            // when the device set more than was asked (siw), is what this connection has and shows
            inboundReadDepth = connection.endpoint().inboundReadDepth();
        }
        // then the passive side waits for the Negotiate Request (3.1.5.5)
    }

    @Override
    void onNegotiationMessage(int length) {
        if (role == Role.PASSIVE) {
            onNegotiateRequest(length); // R-3.1.5.5-01
        }
    }

    /** Receiving a Negotiate Request (3.1.5.6). */
    private void onNegotiateRequest(int length) {
        Violation v = NegotiateRequest.check(initBuf, 0, length);
        if (v != null) {
            CloseReason reason = Closing.reason(CloseReason.Kind.NEGOTIATION_FAILED, v);
            if (v.action() == Violation.Action.FAIL_RESPONSE) {
                // R-3.1.5.6-04: failure response, then graceful termination (R-3.1.5.3-08)
                sendFailureResponse(v.status(), reason);
            } else {
                connection.close(reason); // R-3.1.5.6-02, -09: terminate without a response
            }
            return;
        }
        long preferredSendSize = NegotiateRequest.preferredSendSize(initBuf, 0);
        long peerMaxReceiveSize = NegotiateRequest.maxReceiveSize(initBuf, 0);
        long peerMaxFragmented = NegotiateRequest.maxFragmentedSize(initBuf, 0);
        long creditsRequested = NegotiateRequest.creditsRequested(initBuf, 0);
        // R-3.1.5.6-10, -11
        maxReceiveSize = (int) Math.max(SmbdWire.MIN_RECEIVE_SIZE, Math.min(maxReceiveSize, preferredSendSize));
        protocol = SmbdWire.PROTOCOL_V1; // R-3.1.5.6-12
        credits.onCreditsRequested((int) creditsRequested); // R-3.1.5.6-13
        maxSendSize = (int) Math.min(maxSendSize, peerMaxReceiveSize); // R-3.1.5.6-14
        maxFragmentedSendSize = peerMaxFragmented; // R-3.1.5.6-15
        // R-3.1.5.6-16: receives and receive credits through 3.1.5.9
        try {
            setUpDataRegions();
            receivePath.postNegotiationReceives();
        } catch (RdmaException e) {
            LOG.debug("connection {}: receive set-up failed", connection.id, e);
        }
        if (credits.noReceivePosted()) {
            // R-3.1.5.6-17: failure response with an error status
            sendFailureResponse(SmbdWire.STATUS_INSUFFICIENT_RESOURCES,
                    new CloseReason(CloseReason.Kind.RESOURCE_LIMIT, "R-3.1.5.6-17",
                            "no receive could be posted for the peer"));
            return;
        }
        int granted = credits.takeGrant();
        // R-3.1.5.6-18, 3.1.5.3: the success response
        // (from a send slot, owner none: the initial region is free once it is posted)
        int slot = sendPath.takeNegotiateSlot();
        NegotiateResponse.encode(sendPath.slotBuffer(slot), sendPath.slotOffset(slot), SmbdWire.PROTOCOL_V1,
                SmbdWire.PROTOCOL_V1, protocol, credits.sendCreditTarget(), granted, SmbdWire.STATUS_SUCCESS,
                maxReadWriteSize, maxSendSize, maxReceiveSize, maxFragmentedRecvSize);
        try {
            sendPath.postNegotiate(slot, SmbdWire.NEGOTIATE_RESPONSE_SIZE);
        } catch (RdmaException e) {
            connection.close(CloseReason.of(CloseReason.Kind.PROVIDER_ERROR,
                    "posting the Negotiate Response failed: " + e.getMessage()));
            return;
        }
        releaseInitialRegion(); // its receive completed (the request); nothing else uses it
        // R-3.1.5.6-20..22 (the upper layer is told right after, A-41)
        completed();
        // R-3.1.5.6-19, A-41: indicate the negotiated connection to the upper layer
        ConnectionHandler h;
        try {
            h = connection.listener.acceptHandler().accepted(connection);
        } catch (Throwable e) {
            connection.callbackFailed("AcceptHandler.accepted", e); // closes with HANDLER_FAILED
            connection.listener.onDeclined(connection, connection.closeReason());
            return;
        }
        if (h == null) {
            CloseReason declined = CloseReason.of(CloseReason.Kind.LOCAL_CLOSE,
                    "the accept handler declined the connection (returned null)");
            connection.close(declined);
            connection.listener.onDeclined(connection, declined);
            return;
        }
        connection.accepted(h);
        connection.listener.onAccepted(connection);
        serial.execute(sendPath.pumpTask());
    }

    /** Sending a failed Negotiate Response (3.1.5.3) from the initial region, then closing with {@code reason}. */
    private void sendFailureResponse(int status, CloseReason reason) {
        // R-3.1.5.3-02..07: versions 0x0100, status, every other field 0
        NegotiateResponse.encodeFailure(initBuf, FAILURE_RESPONSE_OFFSET, status);
        pendingClose = reason;
        try {
            connection.endpoint().postSend(initRegion, FAILURE_RESPONSE_OFFSET, SmbdWire.NEGOTIATE_RESPONSE_SIZE,
                    Connection.wr(Connection.K_NEG_SEND, 0));
            engine.trace(connection, true, initBuf, FAILURE_RESPONSE_OFFSET,
                    SmbdWire.NEGOTIATE_RESPONSE_SIZE);
        } catch (RdmaException e) {
            connection.close(reason);
        }
    }

    @Override
    void onInitialSendCompleted(CompletionStatus status, int vendorError) {
        if (status == CompletionStatus.FLUSHED) {
            return;
        }
        if (status != CompletionStatus.SUCCESS) {
            connection.close(loss.providerError("negotiate Send", status, vendorError));
        } else if (pendingClose != null) {
            connection.close(pendingClose); // graceful termination after a failure response (R-3.1.5.3-08)
        }
    }
}
