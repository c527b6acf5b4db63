package smbdirect.api.rdma;

import org.osgi.annotation.versioning.ConsumerType;

/** Told of connection requests arriving at a listener. Must not block. */
@ConsumerType
public interface RdmaListenHandler {

    /**
     * A peer asks to connect. The handler either creates an endpoint from the request, posts its
     * receives and calls {@link RdmaEndpoint#accept}, or calls {@link RdmaConnectRequest#reject}.
     * The request object is valid until one of those is done; it may be done later, from another
     * thread.
     */
    void onConnectRequest(RdmaConnectRequest request);

    /**
     * The listener stopped because of the provider (device removed, provider shut down), not
     * because {@link RdmaListener#close} was called. The last callback of the listener.
     */
    void onListenerFailed(DisconnectCause cause, String detail);
}
