package smbdirect.api.rdma;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives the connection events and work completions of one endpoint. Never called concurrently
 * for one endpoint; must not block; may be called from inside a {@code post} call.
 */
@ConsumerType
public interface RdmaEndpointHandler {

    /**
     * The connection is established (RDMA CM ESTABLISHED).
     *
     * @param peerPrivateData on the active side the private data of the peer's accept (read-only,
     *     may be empty); empty on the passive side. Valid only during the call.
     */
    void onEstablished(ByteBuffer peerPrivateData);

    /**
     * A work request completed. The completion object is reused by the provider: valid only
     * during the call.
     */
    void onCompletion(WorkCompletion completion);

    /**
     * The connection ended or could not be established. Called exactly once, as the endpoint's
     * last callback, after every outstanding work request has completed.
     *
     * @param cause why
     * @param detail provider-specific text (vendor error, CM event), never {@code null}
     * @param privateData for {@link DisconnectCause#REJECTED} the reject's private data
     *     (read-only, may be empty); empty otherwise. Valid only during the call.
     */
    void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData);
}
