package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;

/**
 * An RDMA CM CONNECT_REQUEST with the request's private data and the peer's IRD/ORD as the CM
 * reported them. A reject calls {@code rdma_reject} with the private data given, then destroys the
 * request's identifier. DiSNI 2.0 surfaces neither private data nor IRD/ORD ({@link #privateData()}
 * is then empty and the depths 0, unknown) and has no {@code rdma_reject}: its reject destroys the
 * identifier, which makes the CM reject it without private data. Thread-safe.
 */
final class VerbsConnectRequest implements RdmaConnectRequest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsConnectRequest.class);

    private final VerbsRdmaProvider provider;
    private final VerbsListener listener;
    private final VerbsBackend.CmId id;
    private final InetSocketAddress peerAddress;
    private final InetSocketAddress localAddress;
    /** The request's private data (read-only; the buffer itself is never handed out). */
    private final ByteBuffer privateData;
    private final int peerInboundReadDepth;
    private final int peerOutboundReadDepth;
    private VerbsEndpoint endpoint;
    private boolean rejected;

    VerbsConnectRequest(VerbsRdmaProvider provider, VerbsListener listener, VerbsBackend.CmEvent event) {
        this.provider = provider;
        this.listener = listener;
        this.id = event.id();
        this.privateData = ByteBuffer.wrap(event.privateData().clone()).asReadOnlyBuffer();
        // the CM reports the request's values from our side: initiator_depth is the peer's responder
        // resources (its IRD), responder_resources its initiator depth (its ORD)
        this.peerInboundReadDepth = event.initiatorDepth();
        this.peerOutboundReadDepth = event.responderResources();
        this.peerAddress = address(provider.backend(), id, true);
        this.localAddress = address(provider.backend(), id, false);
    }

    private static InetSocketAddress address(VerbsBackend backend, VerbsBackend.CmId id, boolean peer) {
        try {
            return peer ? backend.peerAddress(id) : backend.localAddress(id);
        } catch (IOException e) {
            LOG.debug("address of a connection request unavailable: {}", e.getMessage());
            return null;
        }
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peerAddress;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress != null ? localAddress : listener.localAddress();
    }

    @Override
    public ByteBuffer privateData() {
        return privateData.duplicate();
    }

    @Override
    public int peerInboundReadDepth() {
        return peerInboundReadDepth;
    }

    @Override
    public int peerOutboundReadDepth() {
        return peerOutboundReadDepth;
    }

    @Override
    public synchronized RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler)
            throws RdmaException {
        if (rejected) {
            throw new RdmaException("createEndpoint: the connection request from " + peerAddress + " was rejected");
        }
        if (endpoint != null) {
            throw new RdmaException("createEndpoint: an endpoint was already created for the request from "
                    + peerAddress);
        }
        provider.checkConfig(config);
        java.util.Objects.requireNonNull(handler, "handler");
        VerbsBackend.Device device;
        try {
            device = provider.backend().device(id);
        } catch (IOException e) {
            reject(null);
            throw new RdmaException("the device of the request from " + peerAddress + " is unavailable: "
                    + e.getMessage(), e);
        }
        try {
            endpoint = provider.openEndpoint(id, device, config, handler, true, localAddress(), peerAddress);
            endpoint.peerInboundReadDepth(peerInboundReadDepth);
        } catch (RdmaException e) {
            reject(null);
            throw e;
        }
        return endpoint;
    }

    @Override
    public synchronized void reject(ByteBuffer privateData) {
        if (rejected) {
            return;
        }
        rejected = true;
        ByteBuffer data = privateData == null ? ByteBuffer.allocate(0) : privateData.duplicate();
        VerbsBackend backend = provider.backend();
        boolean canReject = backend.features().privateData();
        if (data.hasRemaining() && !canReject) {
            LOG.warn("reject of {}: {} bytes of private data not sent (the {} backend has no rdma_reject)",
                    peerAddress, data.remaining(), backend.features().name());
        }
        if (data.remaining() > VerbsConstants.MAX_REJECT_PRIVATE_DATA) {
            LOG.warn("reject of {}: private data cut to {} of {} bytes (rdma_reject limit on InfiniBand)", peerAddress,
                    VerbsConstants.MAX_REJECT_PRIVATE_DATA, data.remaining());
            data.limit(data.position() + VerbsConstants.MAX_REJECT_PRIVATE_DATA);
        }
        if (endpoint != null) {
            if (endpoint.state() == VerbsEndpoint.State.REQUESTED) {
                endpoint.reject(data);
            } else {
                LOG.warn("reject of {} ignored: its endpoint was already accepted", peerAddress);
            }
            return;
        }
        if (canReject) {
            try {
                backend.reject(id, data);
            } catch (IOException e) {
                LOG.warn("rdma_reject of the request from {} failed ({}); destroying the identifier rejects it",
                        peerAddress, e.getMessage());
            }
        }
        backend.destroyId(id);
    }
}
