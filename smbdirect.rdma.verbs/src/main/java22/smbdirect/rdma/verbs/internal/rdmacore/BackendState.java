package smbdirect.rdma.verbs.internal.rdmacore;

/**
 * Whether the backend was closed: shared by its concerns, each of which refuses a call once it is
 * ({@link NativeFunction#requireOpen}, ENODEV). Set once, under the CM lock; read anywhere.
 */
final class BackendState {

    volatile boolean closed;
}
