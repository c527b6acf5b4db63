package smbdirect.impl.engine;

import java.util.Map;
import java.util.TreeMap;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;

/**
 * Arithmetic on {@link CountersDTO}s: the counters that only go up, of an engine, a listener, a
 * provider over its replacements. An owner keeps the totals of its closed connections in one
 * {@code CountersDTO} (added to once per connection, when it opens and when it closes, never on the
 * data path) and adds its live connections' counters when asked for a snapshot. Stateless; the
 * DTOs are guarded by their owners.
 */
public final class Counters {

    /**
     * The counters of {@code listener} (a listener of an engine: without asking its provider) and
     * whether they are final (it has no live or negotiating connection left).
     */
    public static ListenerCounts ofListener(SmbDirectListener listener) {
        if (listener instanceof EngineListener l) {
            // connections first: a connection counts itself before it leaves these numbers
            boolean finished = l.connections.get() == 0 && l.negotiating.get() == 0;
            return new ListenerCounts(l.engine().counters(l), finished);
        }
        ListenerDTO d = listener.getListenerDTO();
        return new ListenerCounts(d.counters, d.connections == 0 && d.negotiating == 0);
    }

    /**
     * A listener's counters and whether they are final.
     *
     * @param counters the counters (may be {@code null} for a listener that keeps none)
     * @param finished no connection of the listener is live or negotiating
     */
    public record ListenerCounts(CountersDTO counters, boolean finished) {
    }

    /** The key of a protocol violation whose close reason names no rule. */
    public static final String NO_RULE = "none";

    private Counters() {
    }

    /** All zero, empty maps. */
    public static CountersDTO zero() {
        CountersDTO d = new CountersDTO();
        d.closedByReason = new TreeMap<>();
        d.violationsByRule = new TreeMap<>();
        return d;
    }

    /** A copy of {@code d} (its maps copied too). */
    public static CountersDTO copy(CountersDTO d) {
        CountersDTO c = zero();
        add(c, d);
        return c;
    }

    /** Adds every counter of {@code from} (may be {@code null}) to {@code into}. */
    public static void add(CountersDTO into, CountersDTO from) {
        if (from == null) {
            return;
        }
        into.connectionsOpened += from.connectionsOpened;
        into.connectionsClosed += from.connectionsClosed;
        merge(into.closedByReason, from.closedByReason);
        into.protocolViolations += from.protocolViolations;
        merge(into.violationsByRule, from.violationsByRule);
        into.messagesSent += from.messagesSent;
        into.messagesReceived += from.messagesReceived;
        into.bytesSent += from.bytesSent;
        into.bytesReceived += from.bytesReceived;
        into.rdmaReads += from.rdmaReads;
        into.rdmaWrites += from.rdmaWrites;
        into.rdmaBytes += from.rdmaBytes;
        into.creditStalls += from.creditStalls;
    }

    /** Adds a connection's traffic counters (messages, bytes, RDMA, credit stalls) to {@code into}. */
    static void addTraffic(CountersDTO into, ConnectionDTO c) {
        into.messagesSent += c.messagesSent;
        into.messagesReceived += c.messagesReceived;
        into.bytesSent += c.bytesSent;
        into.bytesReceived += c.bytesReceived;
        into.rdmaReads += c.rdmaReads;
        into.rdmaWrites += c.rdmaWrites;
        into.rdmaBytes += c.rdmaBytes;
        into.creditStalls += c.creditStalls;
    }

    /**
     * Counts a connection's close for {@code reason} ({@code null}: {@code LOCAL_CLOSE}): by kind and,
     * for a protocol violation or failed negotiation, by rule.
     */
    public static void addClose(CountersDTO into, CloseReason reason) {
        CloseReason.Kind kind = reason == null ? CloseReason.Kind.LOCAL_CLOSE : reason.kind();
        into.connectionsClosed++;
        into.closedByReason.merge(kind.name(), 1L, Long::sum);
        if (isViolation(kind)) {
            into.protocolViolations++;
            String rule = reason.rule();
            into.violationsByRule.merge(rule == null || rule.isEmpty() ? NO_RULE : rule, 1L, Long::sum);
        }
    }

    /** Whether a close of {@code kind} is counted as a protocol violation. */
    private static boolean isViolation(CloseReason.Kind kind) {
        return kind == CloseReason.Kind.PROTOCOL_VIOLATION || kind == CloseReason.Kind.NEGOTIATION_FAILED;
    }

    private static void merge(Map<String, Long> into, Map<String, Long> from) {
        if (from != null) {
            from.forEach((k, v) -> into.merge(k, v, Long::sum));
        }
    }
}
