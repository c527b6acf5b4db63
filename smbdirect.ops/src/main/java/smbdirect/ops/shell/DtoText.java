package smbdirect.ops.shell;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;

/** Plain-text tables of the transport DTOs, as the Gogo commands print them. Stateless. */
public final class DtoText {

    private DtoText() {
    }

    /** The providers table. */
    public static String providers(TransportDTO dto) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-10s %-10s %8s %9s %12s %10s  %s%n", "PROVIDER", "TYPE", "RANKING",
                "SELECTED", "CONNECTIONS", "LISTENERS", "CAPABILITIES"));
        for (ProviderDTO p : list(dto.providers)) {
            b.append(String.format(Locale.ROOT, "%-10s %-10s %8d %9s %12d %10d  %s%n", p.name, p.transportType,
                    p.ranking, p.selected ? "yes" : "no", p.connections, p.listeners, p.capabilities));
            if (p.settings != null) {
                b.append(String.format(Locale.ROOT, "%-10s settings:   %s%n", "", p.settings));
            }
            if (p.statistics != null) {
                b.append(String.format(Locale.ROOT, "%-10s statistics: %s%n", "", p.statistics));
            }
        }
        if (list(dto.providers).isEmpty()) {
            b.append("(no RDMA provider: connections and listeners wait for one)\n");
        }
        return b.toString();
    }

    /** The listeners table, then each listener's last events, newest first. */
    public static String listeners(TransportDTO dto) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-12s %-22s %-9s %-8s %9s %9s %9s %8s %8s %6s  %s%n", "NAME",
                "ADDRESS", "PROVIDER", "STATE", "REQUESTS", "ACCEPTED", "DECLINED", "REFUSED", "NEGFAIL", "LIVE",
                "DETAIL"));
        for (ListenerDTO l : list(dto.listeners)) {
            b.append(String.format(Locale.ROOT, "%-12s %-22s %-9s %-8s %9d %9d %9d %8d %8d %6d  %s%n",
                    l.name == null ? "-" : l.name, l.address, l.provider == null ? "-" : l.provider, l.state,
                    l.connectRequests, l.accepted, l.declined, l.refused, l.negotiationFailures, l.connections,
                    l.stateDetail == null ? "" : l.stateDetail));
        }
        if (list(dto.listeners).isEmpty()) {
            b.append("(no listener)\n");
        }
        for (ListenerDTO l : list(dto.listeners)) {
            if (!list(l.events).isEmpty()) {
                b.append("events of ").append(l.name == null ? l.address : l.name + " " + l.address)
                        .append(", newest first:\n");
                for (ListenerEventDTO e : list(l.events)) {
                    b.append("  ").append(event(e)).append('\n');
                }
            }
        }
        return b.toString();
    }

    /** One event as a line: time, kind, peer, provider, connection, reason kind, rule and detail. */
    public static String event(ListenerEventDTO e) {
        StringBuilder b = new StringBuilder();
        b.append(Instant.ofEpochMilli(e.timestampMillis)).append(' ')
                .append(String.format(Locale.ROOT, "%-19s", e.kind)).append(" peer ")
                .append(e.peerAddress == null ? "-" : e.peerAddress).append(" on ").append(e.provider);
        if (e.connectionId != 0) {
            b.append(" connection ").append(e.connectionId);
        }
        if (e.reasonKind != null) {
            b.append(": ").append(e.reasonKind);
            if (e.rule != null) {
                b.append(' ').append(e.rule);
            }
            if (e.detail != null && !e.detail.isEmpty()) {
                b.append(": ").append(e.detail);
            }
        }
        return b.toString();
    }

    /** The connections table (live ones, then the recently closed). */
    public static String connections(TransportDTO dto) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%5s %-7s %-11s %-22s %-22s %7s %7s %7s %10s %10s %7s%n", "ID", "ROLE",
                "STATE", "LOCAL", "PEER", "SEND", "RECV", "CRMAX", "MSGS OUT", "MSGS IN", "STALLS"));
        for (ConnectionDTO c : list(dto.connections)) {
            row(b, c);
        }
        if (list(dto.connections).isEmpty()) {
            b.append("(no live connection)\n");
        }
        if (!list(dto.recentlyClosed).isEmpty()) {
            b.append("recently closed:\n");
            for (ConnectionDTO c : list(dto.recentlyClosed)) {
                b.append(String.format(Locale.ROOT, "%5d %-7s %-22s %s%n", c.id, c.role, c.peerAddress,
                        c.closeReason));
            }
        }
        return b.toString();
    }

    private static void row(StringBuilder b, ConnectionDTO c) {
        b.append(String.format(Locale.ROOT, "%5d %-7s %-11s %-22s %-22s %7d %7d %7d %10d %10d %7d%n", c.id, c.role,
                c.state, c.localAddress, c.peerAddress, c.maxSendSize, c.maxReceiveSize, c.receiveCreditMax,
                c.messagesSent, c.messagesReceived, c.creditStalls));
    }

    /** Every field of one connection. */
    public static String connection(ConnectionDTO c) {
        StringBuilder b = new StringBuilder();
        line(b, "id", c.id);
        line(b, "role", c.role);
        line(b, "state", c.state);
        line(b, "provider", c.provider);
        if (c.providerDetail != null) {
            line(b, "provider detail", c.providerDetail);
        }
        line(b, "local", c.localAddress);
        line(b, "peer", c.peerAddress);
        line(b, "created", Instant.ofEpochMilli(c.createdMillis));
        line(b, "protocol", String.format(Locale.ROOT, "0x%04X", c.protocol));
        line(b, "maxSendSize", c.maxSendSize);
        line(b, "maxReceiveSize", c.maxReceiveSize);
        line(b, "maxFragmentedSendSize", c.maxFragmentedSendSize);
        line(b, "maxFragmentedRecvSize", c.maxFragmentedRecvSize);
        line(b, "maxReadWriteSize", c.maxReadWriteSize);
        line(b, "keepaliveInterval", c.keepaliveIntervalMillis + " ms");
        line(b, "IRD / ORD", c.inboundReadDepth + " / " + c.outboundReadDepth);
        line(b, "sendCredits (held)", c.sendCredits);
        line(b, "sendCreditTarget", c.sendCreditTarget);
        line(b, "receiveCredits (posted)", c.receiveCredits);
        line(b, "receiveCredits ungranted", c.receiveCreditsUngranted);
        line(b, "peerCredits (granted)", c.peerCredits);
        line(b, "receiveCreditTarget", c.receiveCreditTarget);
        line(b, "receiveCreditMax", c.receiveCreditMax);
        line(b, "keepaliveRequested", c.keepaliveRequested);
        line(b, "sendQueueDepth", c.sendQueueDepth);
        line(b, "rdmaInFlight", c.rdmaInFlight);
        line(b, "registrations", c.registrations);
        line(b, "messages sent / received", c.messagesSent + " / " + c.messagesReceived);
        line(b, "bytes sent / received", c.bytesSent + " / " + c.bytesReceived);
        line(b, "fragments sent / received", c.fragmentsSent + " / " + c.fragmentsReceived);
        line(b, "keepalives sent / received", c.keepalivesSent + " / " + c.keepalivesReceived);
        line(b, "credit grants sent", c.creditGrantsSent);
        line(b, "credit stalls", c.creditStalls);
        line(b, "RDMA reads / writes / bytes", c.rdmaReads + " / " + c.rdmaWrites + " / " + c.rdmaBytes);
        if (c.closeReason != null) {
            line(b, "closed", Instant.ofEpochMilli(c.closedMillis));
            line(b, "close reason", c.closeReason);
        }
        return b.toString();
    }

    private static void line(StringBuilder b, String name, Object value) {
        b.append(String.format(Locale.ROOT, "%-28s %s%n", name, value));
    }

    /** The connection {@code id} among the live and recently closed ones, or {@code null}. */
    public static ConnectionDTO find(TransportDTO dto, long id) {
        for (ConnectionDTO c : list(dto.connections)) {
            if (c.id == id) {
                return c;
            }
        }
        for (ConnectionDTO c : list(dto.recentlyClosed)) {
            if (c.id == id) {
                return c;
            }
        }
        return null;
    }

    /** The array as a list, empty for {@code null}. */
    public static <T> List<T> list(T[] a) {
        return a == null ? List.of() : Arrays.asList(a);
    }
}
