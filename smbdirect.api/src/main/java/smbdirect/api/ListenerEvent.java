package smbdirect.api;

import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Objects;

/**
 * What happened to one connection request on a listener (passive role, [MS-SMBD] 3.1.7.2): it was
 * accepted, declined by the accept handler after negotiating, refused before negotiation, or its
 * negotiation failed (3.1.5.6, 3.1.6.1).
 *
 * <p>Given to the {@link ListenerEventHandler} passed to
 * {@link SmbDirectTransport#listen(InetSocketAddress, AcceptHandler, ListenerEventHandler)} and to
 * every {@link ListenerEventHandler} whiteboard service; the last events of each listener are also in
 * its {@link smbdirect.api.dto.ListenerDTO#events}.
 *
 * @param kind what happened
 * @param listenerAddress the listener's bound local address
 * @param peerAddress the address of the peer that asked to connect, or {@code null} when the
 *     provider did not report one
 * @param provider the name of the RDMA provider the listener is bound on
 * @param connectionId the id of the connection the request became, or {@code 0} when it was refused
 *     before a connection existed
 * @param reason why the request was refused or the negotiation failed, with the rule of [MS-SMBD]
 *     (for a peer's violation) and the offending value in its detail; {@code null} for
 *     {@link Kind#ACCEPTED}
 * @param timestamp when it happened, on the transport's clock
 */
public record ListenerEvent(Kind kind, InetSocketAddress listenerAddress, InetSocketAddress peerAddress,
        String provider, long connectionId, CloseReason reason, Instant timestamp) {

    /** Kinds of listener events. */
    public enum Kind {
        /** The connection negotiated and the accept handler took it (returned its handler). */
        ACCEPTED,
        /**
         * The connection negotiated, but the accept handler did not take it: it returned
         * {@code null} (the reason is {@link CloseReason.Kind#LOCAL_CLOSE}) or threw (the reason is
         * {@link CloseReason.Kind#HANDLER_FAILED} naming the exception). The connection was closed.
         *
         * @since 1.2
         */
        DECLINED,
        /**
         * Refused before negotiation: {@code maxConnectionsPerListener} or
         * {@code maxNegotiatingPerListener} reached (the detail names which and its value).
         */
        REFUSED_CAP,
        /** Refused before negotiation: the transport's {@code receiveBufferBudget} would be exceeded. */
        REFUSED_BUDGET,
        /** Refused because the listener was closing when the request arrived. */
        REFUSED_CLOSED,
        /** The Negotiation Timer expired before the peer's Negotiate Request arrived (3.1.6.1). */
        NEGOTIATION_TIMEOUT,
        /**
         * Negotiation failed otherwise: the peer's Negotiate Request violated 3.1.5.6 (the reason names
         * the rule and the value), the peer disconnected, or the connection was closed locally while
         * negotiating.
         */
        NEGOTIATION_FAILED;

        /** Whether this kind is a refusal before negotiation. */
        public boolean isRefusal() {
            return this == REFUSED_CAP || this == REFUSED_BUDGET || this == REFUSED_CLOSED;
        }
    }

    public ListenerEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(timestamp, "timestamp");
        if (kind != Kind.ACCEPTED) {
            Objects.requireNonNull(reason, "reason");
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(kind.name()).append(" peer ").append(peerAddress).append(" on ")
                .append(listenerAddress).append(" (").append(provider).append(')');
        if (connectionId != 0) {
            b.append(" connection ").append(connectionId);
        }
        if (reason != null) {
            b.append(": ").append(reason);
        }
        return b.toString();
    }
}
