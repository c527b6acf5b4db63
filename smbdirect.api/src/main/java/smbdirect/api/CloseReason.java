package smbdirect.api;

import java.util.Objects;

/**
 * Why a connection ended (3.1.7.1), as reported once to the upper layer, in the log and in the
 * connection's DTO.
 *
 * @param kind the category
 * @param rule the requirement of [MS-SMBD] behind it (e.g. {@code R-3.1.5.8-03}) or {@code null}
 *     when no single rule applies
 * @param detail a human-readable account naming the offending field and value where there is one
 */
public record CloseReason(Kind kind, String rule, String detail) {

    /** Categories of connection loss. */
    public enum Kind {
        /** The local upper layer (or an operator) closed the connection. */
        LOCAL_CLOSE,
        /** The transport was shut down (component deactivated, runtime stopping). */
        SHUTDOWN,
        /** The peer disconnected. */
        PEER_DISCONNECT,
        /** The connection could not be established (refused, rejected, unreachable). */
        CONNECT_FAILED,
        /** The peer violated [MS-SMBD]; {@link CloseReason#rule()} names the rule. */
        PROTOCOL_VIOLATION,
        /** Negotiation ended with a failure status or unacceptable parameters. */
        NEGOTIATION_FAILED,
        /** The Negotiation Timer expired (3.1.6.1). */
        NEGOTIATION_TIMEOUT,
        /** No message arrived after a keepalive within the keepalive response timeout (3.1.6.2). */
        KEEPALIVE_TIMEOUT,
        /** The peer granted no Send Credit within the credit-grant timeout. */
        CREDIT_GRANT_TIMEOUT,
        /** The RDMA provider reported an error (failed work completion, QP error). */
        PROVIDER_ERROR,
        /** The RDMA device was removed. */
        DEVICE_REMOVED,
        /** The RDMA provider the connection ran on went away. */
        PROVIDER_GONE,
        /** A local resource limit was hit (memory budget, connection cap, registration failure). */
        RESOURCE_LIMIT
    }

    public CloseReason {
        Objects.requireNonNull(kind, "kind");
        detail = detail == null ? "" : detail;
    }

    /** A reason without a rule. */
    public static CloseReason of(Kind kind, String detail) {
        return new CloseReason(kind, null, detail);
    }

    /** A protocol violation of {@code rule}. */
    public static CloseReason violation(String rule, String detail) {
        return new CloseReason(Kind.PROTOCOL_VIOLATION, rule, detail);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(kind.name());
        if (rule != null) {
            b.append(' ').append(rule);
        }
        if (!detail.isEmpty()) {
            b.append(": ").append(detail);
        }
        return b.toString();
    }
}
