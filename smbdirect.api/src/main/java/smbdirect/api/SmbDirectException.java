package smbdirect.api;

import java.io.IOException;
import java.util.Objects;

/**
 * A failure reported by the transport: an operation refused locally, or an operation that failed
 * because its connection ended (then {@link #closeReason()} says why).
 */
public class SmbDirectException extends IOException {

    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** The connection is closed or closing; {@link SmbDirectException#closeReason()} is set. */
        CONNECTION_CLOSED,
        /** A message is longer than the peer's MaxFragmentedSize (R-3.1.4.2-03); nothing was sent. */
        MESSAGE_TOO_LARGE,
        /** An RDMA transfer exceeds the negotiated MaxReadWriteSize or the descriptors' extent. */
        TRANSFER_TOO_LARGE,
        /** An argument is unusable (empty message, heap buffer where a direct one is needed, ...). */
        INVALID_ARGUMENT,
        /** Connecting or negotiating failed; {@link SmbDirectException#closeReason()} is set. */
        CONNECT_FAILED,
        /** No RDMA provider is available. */
        NO_PROVIDER,
        /** The provider refused a memory registration or another resource. */
        RESOURCE,
        /** The RDMA provider reported an error. */
        PROVIDER_ERROR
    }

    private final Kind kind;
    private final CloseReason closeReason;

    public SmbDirectException(Kind kind, String message) {
        this(kind, message, null, null);
    }

    public SmbDirectException(Kind kind, String message, CloseReason closeReason, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.closeReason = closeReason;
    }

    /** A failure caused by the connection having ended for {@code reason}. */
    public static SmbDirectException closed(CloseReason reason) {
        return new SmbDirectException(Kind.CONNECTION_CLOSED, "connection closed: " + reason, reason, null);
    }

    public Kind kind() {
        return kind;
    }

    /** The reason the connection ended, or {@code null} when the connection is not involved. */
    public CloseReason closeReason() {
        return closeReason;
    }
}
