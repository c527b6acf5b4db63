package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.EndpointConfig;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;

/**
 * An RDMA CM CONNECT_REQUEST. DiSNI 2.0 surfaces neither the request's private data nor the peer's
 * IRD/ORD, so {@link #privateData()} is empty and the depths are 0 (unknown). A reject destroys the
 * request's identifier ({@code rdma_destroy_id}, which makes the CM reject it); DiSNI 2.0 has no
 * {@code rdma_reject}, so reject private data cannot be sent. Thread-safe.
 */
final class VerbsConnectRequest implements RdmaConnectRequest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsConnectRequest.class);
    /** Handed to handlers where DiSNI surfaces no private data (per instance: no shared mutable state). */
    private final ByteBuffer empty = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private final VerbsRdmaProvider provider;
    private final VerbsListener listener;
    private final VerbsBackend.CmId id;
    private final InetSocketAddress peerAddress;
    private final InetSocketAddress localAddress;
    private VerbsEndpoint endpoint;
    private boolean rejected;

    VerbsConnectRequest(VerbsRdmaProvider provider, VerbsListener listener, VerbsBackend.CmId id) {
        this.provider = provider;
        this.listener = listener;
        this.id = id;
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
        return empty;
    }

    @Override
    public int peerInboundReadDepth() {
        return 0;
    }

    @Override
    public int peerOutboundReadDepth() {
        return 0;
    }

    @Override
    public synchronized RdmaEndpoint createEndpoint(EndpointConfig config, RdmaEndpointHandler handler)
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
        if (privateData != null && privateData.hasRemaining()) {
            LOG.warn("reject of {}: {} bytes of private data not sent (DiSNI 2.0 has no rdma_reject)", peerAddress,
                    privateData.remaining());
        }
        if (endpoint != null) {
            if (endpoint.state() == VerbsEndpoint.State.REQUESTED) {
                endpoint.close();
            } else {
                LOG.warn("reject of {} ignored: its endpoint was already accepted", peerAddress);
            }
        } else {
            provider.backend().destroyId(id);
        }
    }
}
