package smbdirect.api.rdma;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ProviderType;

/** An incoming connection request (RDMA CM CONNECT_REQUEST). Thread-safe. */
@ProviderType
public interface RdmaConnectRequest {

    /** The peer's address. */
    InetSocketAddress peerAddress();

    /** The local address the request arrived on. */
    InetSocketAddress localAddress();

    /**
     * The private data the peer sent with its request (read-only; empty when none or when the
     * provider cannot surface it).
     */
    ByteBuffer privateData();

    /** The peer's IRD (responder resources) as the CM reported it, 0 when unknown. */
    int peerInboundReadDepth();

    /** The peer's ORD (initiator depth) as the CM reported it, 0 when unknown. */
    int peerOutboundReadDepth();

    /**
     * Creates the endpoint (queue pair) for this request. Post receives on it, then call
     * {@link RdmaEndpoint#accept}.
     *
     * @throws RdmaException when the device refuses the queue pair (the request is then rejected)
     */
    RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException;

    /**
     * Rejects the request, sending {@code privateData} (may be empty) to the peer, whose
     * endpoint sees {@link DisconnectCause#REJECTED}. Also releases an endpoint created from the
     * request and not yet accepted.
     */
    void reject(ByteBuffer privateData);
}
