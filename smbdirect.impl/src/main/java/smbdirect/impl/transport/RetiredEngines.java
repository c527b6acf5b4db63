package smbdirect.impl.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.CountersDTO;
import smbdirect.impl.engine.Counters;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.TransportDTO;

/**
 * What the engines of providers that left, and of a stopped transport, leave to the runtime DTO:
 * their recently closed connections (those live at their end included), their negotiation failures
 * and the newest failure events. Guarded by the transport's lock, so that a snapshot of the live
 * engines and of this never counts an engine twice.
 */
final class RetiredEngines {

    private final Deque<ConnectionDTO> closed = new ArrayDeque<>();
    private long negotiationFailures;
    private String lastNegotiationFailure;
    private final Deque<ListenerEventDTO> failureEvents = new ArrayDeque<>();
    /** The final counters of the engines that shut down, by provider name. */
    private final Map<String, CountersDTO> counters = new HashMap<>();
    /** Providers that left and whose engines are still shutting down. */
    private final List<ProviderEntry> retiring = new ArrayList<>();

    /** What the retired engines left, as {@link #snapshot()} copies it. */
    record Snapshot(List<ConnectionDTO> closed, long negotiationFailures, String lastNegotiationFailure,
            List<ListenerEventDTO> failureEvents, Map<String, CountersDTO> counters, List<ProviderEntry> retiring) {
    }

    /**
     * {@code entry} left the transport (lock held, in the same step): its engine's counters stay in
     * its provider's name's until {@link #keep} takes its final ones.
     */
    void retiring(ProviderEntry entry) {
        retiring.add(entry);
    }

    /**
     * Keeps the final counters {@code last} of {@code entry}'s engine, which shut down, under its
     * provider's name (lock held).
     */
    void keepCounters(ProviderEntry entry, CountersDTO last) {
        retiring.remove(entry);
        Counters.add(counters.computeIfAbsent(entry.name, n -> Counters.zero()), last);
    }

    /** Keeps what {@code last}, the final state of an engine that shut down, shows (lock held). */
    void keep(TransportDTO last) {
        negotiationFailures += last.negotiationFailures;
        if (TransportDTOs.lastFailure(last) != null) {
            lastNegotiationFailure = TransportDTOs.lastFailure(last);
        }
        // the leaving engine's events first: on equal timestamps they are the later ones
        List<ListenerEventDTO> events = new ArrayList<>();
        if (last.negotiationFailureEvents != null) {
            events.addAll(List.of(last.negotiationFailureEvents));
        }
        events.addAll(failureEvents);
        failureEvents.clear();
        TransportDTOs.newestFirst(events, TransportDTOs.FAILURE_EVENTS).forEach(failureEvents::addLast);
        List<ConnectionDTO> all = new ArrayList<>(closed);
        if (last.recentlyClosed != null) {
            all.addAll(List.of(last.recentlyClosed));
        }
        if (last.connections != null) {
            all.addAll(List.of(last.connections));
        }
        all.sort(Comparator.comparingLong((ConnectionDTO c) -> c.closedMillis).reversed());
        closed.clear();
        all.stream().limit(TransportDTOs.CLOSED_HISTORY).forEach(closed::addLast);
    }

    /** A copy (lock held). */
    Snapshot snapshot() {
        Map<String, CountersDTO> copies = new HashMap<>();
        counters.forEach((name, c) -> copies.put(name, Counters.copy(c)));
        return new Snapshot(new ArrayList<>(closed), negotiationFailures, lastNegotiationFailure,
                new ArrayList<>(failureEvents), copies, List.copyOf(retiring));
    }
}
