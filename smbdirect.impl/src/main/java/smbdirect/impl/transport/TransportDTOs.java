package smbdirect.impl.transport;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.CountersDTO;
import smbdirect.impl.engine.Counters;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.impl.engine.TransportSettings;

/**
 * The runtime DTO of a {@link MultiProviderTransport}, put together from a snapshot: the providers
 * (the selected one first, then best ranked first) with their capabilities, settings and statistics
 * in words, every listener, the live connections of every engine (also of the engines of providers
 * that left and still drain), and the recently closed
 * connections, negotiation failures and failure events of every engine, retired ones included.
 * Stateless.
 */
final class TransportDTOs {

    /** Closed connections kept for the DTO. */
    static final int CLOSED_HISTORY = 64;

    /** Events kept per listener and negotiation failures kept for the DTO. */
    static final int FAILURE_EVENTS = 16;

    private TransportDTOs() {
    }

    /**
     * The DTO of {@code entries} (best first; {@code chosen} the selected one or null), the
     * transport's {@code listeners} and, after them, a copy of each of the {@code refused} ones
     * (configured listeners without an endpoint), the {@code settings} in force with the provider
     * {@code filter} (null: none) and what {@code retired} engines left. Asks every engine and
     * listener for its own DTO: call it without the transport's lock.
     */
    static TransportDTO assemble(List<ProviderEntry> entries, ProviderEntry chosen, List<RelocatingListener> listeners,
            List<ListenerDTO> refused, TransportSettings settings, ProviderFilter filter,
            RetiredEngines.Snapshot retired) {
        List<ConnectionDTO> closed = new ArrayList<>(retired.closed());
        long failures = retired.negotiationFailures();
        List<ListenerEventDTO> failureEvents = new ArrayList<>();
        TransportDTO dto = new TransportDTO();
        List<ProviderDTO> providerDTOs = new ArrayList<>();
        List<ConnectionDTO> live = new ArrayList<>();
        Map<ProviderEntry, Integer> listenersOn = new HashMap<>();
        List<ListenerDTO> listenerDTOs = new ArrayList<>();
        for (RelocatingListener l : listeners) {
            ProviderEntry on = l.currentEntry();
            if (on != null) {
                listenersOn.merge(on, 1, Integer::sum);
            }
            listenerDTOs.add(l.getListenerDTO());
        }
        for (ListenerDTO r : refused) {
            ListenerDTO copy = new ListenerDTO();
            copy.name = r.name;
            copy.address = r.address;
            copy.state = r.state;
            copy.stateDetail = r.stateDetail;
            copy.events = new ListenerEventDTO[0];
            copy.counters = Counters.zero();
            listenerDTOs.add(copy);
        }
        String selectedFailure = null;
        List<ProviderEntry> ordered = entries;
        if (chosen != null) {
            ordered = new ArrayList<>(entries);
            ordered.remove(chosen);
            ordered.add(0, chosen);
        }
        for (ProviderEntry entry : ordered) {
            TransportDTO engine = entry.engine.getTransportDTO();
            ProviderDTO p = new ProviderDTO();
            p.name = entry.name;
            p.transportType = entry.transportType;
            p.ranking = entry.ranking;
            p.selected = entry == chosen;
            p.connections = engine.connections == null ? 0 : engine.connections.length;
            p.listeners = listenersOn.getOrDefault(entry, 0);
            p.capabilities = capabilities(entry);
            p.settings = described(entry, RdmaProvider::describeSettings);
            p.statistics = described(entry, RdmaProvider::describeStatistics);
            p.counters = counters(entry, engine, retired);
            providerDTOs.add(p);
            if (engine.connections != null) {
                live.addAll(List.of(engine.connections));
            }
            if (engine.recentlyClosed != null) {
                closed.addAll(List.of(engine.recentlyClosed));
            }
            failures += engine.negotiationFailures;
            if (lastFailure(engine) != null) {
                if (entry == chosen || selectedFailure == null) {
                    selectedFailure = lastFailure(engine);
                }
            }
            if (engine.negotiationFailureEvents != null) {
                failureEvents.addAll(List.of(engine.negotiationFailureEvents));
            }
        }
        for (ProviderEntry draining : retired.retiring()) {
            // a provider that left and whose engine still drains: its connections are still live
            TransportDTO engine;
            try {
                engine = draining.engine.getTransportDTO();
            } catch (RuntimeException e) {
                continue; // an engine that cannot report shows nothing
            }
            if (engine.connections != null) {
                live.addAll(List.of(engine.connections));
            }
        }
        closed.sort(Comparator.comparingLong((ConnectionDTO c) -> c.closedMillis).reversed());
        dto.providers = providerDTOs.toArray(ProviderDTO[]::new);
        dto.listeners = listenerDTOs.toArray(ListenerDTO[]::new);
        dto.connections = live.toArray(ConnectionDTO[]::new);
        dto.recentlyClosed = closed.stream().limit(CLOSED_HISTORY).toArray(ConnectionDTO[]::new);
        dto.negotiationFailures = failures;
        setLastFailure(dto, selectedFailure != null ? selectedFailure : retired.lastNegotiationFailure());
        failureEvents.addAll(retired.failureEvents()); // after the live engines': on equal timestamps they are older
        dto.negotiationFailureEvents = newestFirst(failureEvents, FAILURE_EVENTS).toArray(ListenerEventDTO[]::new);
        dto.settings = settings.toDTO();
        if (filter != null) {
            dto.settings.provider_target = filter.toString();
        }
        return dto;
    }

    /**
     * The counters of {@code entry}'s provider name: its engine's ({@code engine} is its DTO), those
     * its predecessors of that name left, and those of its predecessors still shutting down.
     */
    private static CountersDTO counters(ProviderEntry entry, TransportDTO engine, RetiredEngines.Snapshot retired) {
        CountersDTO c = Counters.zero();
        if (engine.providers != null && engine.providers.length > 0) {
            Counters.add(c, engine.providers[0].counters);
        }
        Counters.add(c, retired.counters().get(entry.name));
        for (ProviderEntry gone : retired.retiring()) {
            if (gone.name.equals(entry.name) && gone != entry) {
                try {
                    Counters.add(c, gone.engine.counters());
                } catch (RuntimeException e) {
                    // an engine that cannot report counts nothing
                }
            }
        }
        return c;
    }

    @SuppressWarnings("removal")
    static String lastFailure(TransportDTO dto) {
        return dto.lastNegotiationFailure;
    }

    @SuppressWarnings("removal")
    private static void setLastFailure(TransportDTO dto, String text) {
        dto.lastNegotiationFailure = text;
    }

    /** The newest {@code limit} events, newest first; events of equal timestamps keep their order in {@code events}. */
    static List<ListenerEventDTO> newestFirst(List<ListenerEventDTO> events, int limit) {
        return events.stream().sorted(Comparator.comparingLong((ListenerEventDTO e) -> e.timestampMillis).reversed())
                .limit(limit).toList();
    }

    private static String capabilities(ProviderEntry entry) {
        try {
            return CapabilitiesText.describe(entry.provider.capabilities());
        } catch (RuntimeException e) {
            return "(not reported: " + e.getMessage() + ")";
        }
    }

    /** A provider's own description ({@code describeSettings}, {@code describeStatistics}), or null. */
    private static String described(ProviderEntry entry, Function<RdmaProvider, String> what) {
        try {
            return what.apply(entry.provider);
        } catch (RuntimeException e) {
            return "(not reported: " + e.getMessage() + ")";
        }
    }
}
