package smbdirect.api;

import java.util.Objects;

/**
 * Why a connection ended (3.1.7.1), as reported once to the upper layer, in the log and in the
 * connection's DTO.
 *
 * @param kind the category
 * @param rule the rule behind it, or {@code null} when no single rule applies: a requirement of
 *     [MS-SMBD] ({@code R-<section>-<nn>}, e.g. {@code R-3.1.5.8-03}: DataOffset is not a multiple
 *     of 8) or a point where the specification is silent or ambiguous and this transport follows
 *     Windows or Linux ({@code A-<nn>}, e.g. {@code A-30}: a fragment's DataLength plus
 *     RemainingDataLength does not match the bytes still expected). Every ID a close reason can
 *     carry, with the sentence it stands for, is in the
 *     <a href="doc-files/close-reason-rules.html">table of rule IDs</a> (also
 *     {@code docs/close-reason-rules.md} in the source tree).
 * @param detail a human-readable account naming the offending field and value where there is one
 */
public record CloseReason(Kind kind, String rule, String detail) {

    /** Categories of connection loss. */
    public enum Kind {
        /** The local upper layer (or an operator) closed the connection. */
        LOCAL_CLOSE,
        /**
         * The transport was shut down (component deactivated, runtime stopping, a provider's service
         * withdrawn while the framework stops). New connections were refused from the start of the
         * shutdown; an established connection was first given the transport's drain time
         * ({@code drainTimeoutSeconds}) to finish what was in flight (messages handed over and not
         * yet acknowledged, RDMA Reads and Writes posted, a message being received or delivered) and
         * closed with this reason once nothing was, or when the drain time ran out.
         */
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
        /** The RDMA provider the connection ran on went away (it shut its endpoints down itself). */
        PROVIDER_GONE,
        /** A local resource limit was hit (memory budget, connection cap, registration failure). */
        RESOURCE_LIMIT,
        /**
         * A callback of the upper layer threw ({@link ConnectionHandler#onMessage},
         * {@link SendCompletion}, {@link RdmaCompletionHandler}, {@link AcceptHandler#accepted}): the
         * transport closed the connection, since the upper layer's state for it is unknown. The
         * detail names the callback and the exception ({@code ConnectionHandler.onMessage threw
         * java.lang.IllegalStateException: ...}); sends and RDMA operations still pending fail with a
         * {@link SmbDirectException} whose cause is that exception.
         *
         * @since 1.2
         */
        HANDLER_FAILED,
        /**
         * The RDMA provider the connection ran on was withdrawn in an orderly way while the transport
         * runs: its service was unregistered to be replaced (its configuration changed, its bundle
         * was updated or stopped, a hot swap). As at {@link #SHUTDOWN}, the provider's listeners
         * stopped accepting on it (they move to the next selected provider, if any) and each
         * established connection was drained first: given the transport's drain time
         * ({@code drainTimeoutSeconds}) to finish what was in flight and closed with this reason
         * once nothing was, or when the drain time ran out. The detail names the provider.
         *
         * @since 2.0
         */
        PROVIDER_REPLACED
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
