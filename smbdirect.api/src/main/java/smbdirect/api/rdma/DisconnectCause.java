package smbdirect.api.rdma;

/** Why an endpoint's connection ended or was never established. */
public enum DisconnectCause {
    /** {@link RdmaEndpoint#disconnect()} was called. */
    LOCAL,
    /** The peer disconnected. */
    PEER,
    /** The peer rejected the connection request. */
    REJECTED,
    /** No listener at the address, or the route or address could not be resolved. */
    UNREACHABLE,
    /** The connect attempt failed otherwise (timeout, CM error). */
    CONNECT_ERROR,
    /** A work request failed and the queue pair went to the error state. */
    QP_ERROR,
    /** The peer vanished without a disconnect (transport retries exceeded, keepalive of the fabric). */
    PEER_LOST,
    /** The RDMA device was removed (RDMA CM DEVICE_REMOVAL). */
    DEVICE_REMOVED,
    /** The provider is shutting down. */
    PROVIDER_SHUTDOWN
}
