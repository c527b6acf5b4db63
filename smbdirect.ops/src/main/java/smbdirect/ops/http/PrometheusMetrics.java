package smbdirect.ops.http;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.ops.health.TransportHealth;

/**
 * The transport in the Prometheus text format (written by Prometheus's Java client,
 * {@code prometheus-metrics-exposition-textformats}): per provider ({@code provider} label) and per
 * listener ({@code listener} label: its name, or its address when it has none) the counters of
 * {@link CountersDTO}, which only go up; connections closed by {@code reason} and protocol violations
 * by {@code rule}; the listeners' request counters; gauges of live connections, listener state,
 * the selected provider and the health status. Counter names end in {@code _total}. Stateless.
 */
public final class PrometheusMetrics {

    /** The content type of the exposition. */
    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();

    private PrometheusMetrics() {
    }

    /** Writes the metrics of {@code transport} and its {@code health} to {@code out}. */
    public static void write(OutputStream out, TransportDTO transport, TransportHealth.Report health)
            throws IOException {
        WRITER.write(out, snapshots(transport, health), EscapingScheme.UNDERSCORE_ESCAPING);
    }

    /** The metric families of {@code transport} and its {@code health}. */
    static MetricSnapshots snapshots(TransportDTO transport, TransportHealth.Report health) {
        List<MetricSnapshot> all = new ArrayList<>();
        Map<String, CountersDTO> providers = new LinkedHashMap<>();
        for (ProviderDTO p : list(transport.providers)) {
            providers.put(p.name, p.counters);
        }
        Map<String, ListenerDTO> listeners = new LinkedHashMap<>();
        Map<String, CountersDTO> listenerCounters = new LinkedHashMap<>();
        for (ListenerDTO l : list(transport.listeners)) {
            listeners.put(listenerName(l), l);
            listenerCounters.put(listenerName(l), l.counters);
        }
        counters(all, "provider", providers);
        counters(all, "listener", listenerCounters);

        Map<Labels, Long> connections = new LinkedHashMap<>();
        Map<Labels, Long> selected = new LinkedHashMap<>();
        for (ProviderDTO p : list(transport.providers)) {
            connections.put(Labels.of("provider", p.name), (long) p.connections);
            selected.put(Labels.of("provider", p.name), p.selected ? 1L : 0L);
        }
        all.add(gauge("smbdirect_provider_connections", "Live connections on the RDMA provider", connections));
        all.add(gauge("smbdirect_provider_selected", "1 for the RDMA provider new connections and listeners use",
                selected));

        Map<Labels, Long> open = new LinkedHashMap<>();
        Map<Labels, Long> live = new LinkedHashMap<>();
        listeners.forEach((name, l) -> {
            Labels labels = Labels.of("listener", name);
            open.put(labels.add("state", String.valueOf(l.state)), "OPEN".equals(l.state) ? 1L : 0L);
            live.put(labels, (long) l.connections);
        });
        all.add(gauge("smbdirect_listener_open", "1 while the listener is OPEN (its state is the state label)", open));
        all.add(gauge("smbdirect_listener_connections", "Live connections the listener accepted", live));
        all.add(counter("smbdirect_listener_connect_requests", "Connection requests that reached the listener",
                listeners, "listener", l -> l.connectRequests));
        all.add(counter("smbdirect_listener_accepted", "Negotiated connections the accept handler took", listeners,
                "listener", l -> l.accepted));
        all.add(counter("smbdirect_listener_declined", "Negotiated connections the accept handler declined", listeners,
                "listener", l -> l.declined));
        all.add(counter("smbdirect_listener_refused", "Connection requests refused before negotiation", listeners,
                "listener", l -> l.refused));
        all.add(counter("smbdirect_listener_negotiation_failures", "Negotiations of the listener that failed",
                listeners, "listener", l -> l.negotiationFailures));
        all.add(counter("smbdirect_negotiation_failures", "Negotiations that failed, both roles",
                Map.of(Labels.EMPTY, transport.negotiationFailures)));

        Map<Labels, Long> status = new LinkedHashMap<>();
        for (TransportHealth.Status s : TransportHealth.Status.values()) {
            status.put(Labels.of("status", s.name()), s == health.status() ? 1L : 0L);
        }
        all.add(gauge("smbdirect_health", "1 for the transport's health status (OK, WARN, CRITICAL), 0 for the others",
                status));
        return new MetricSnapshots(all);
    }

    /** The counter families of {@link CountersDTO}, one data point per owner ({@code label} = its name). */
    private static void counters(List<MetricSnapshot> all, String label, Map<String, CountersDTO> owners) {
        String prefix = "smbdirect_" + label + "_";
        String of = "listener".equals(label) ? " of the listener's connections" : " on the RDMA provider";
        all.add(counter(prefix + "connections_opened", "Connections that negotiated" + of, owners, label,
                c -> c.connectionsOpened));
        Map<Labels, Long> closed = new LinkedHashMap<>();
        Map<Labels, Long> violations = new LinkedHashMap<>();
        owners.forEach((name, c) -> {
            if (c != null) {
                c.closedByReason.forEach((reason, n) -> closed.put(Labels.of(label, name, "reason", reason), n));
                c.violationsByRule.forEach((rule, n) -> violations.put(Labels.of(label, name, "rule", rule), n));
            }
        });
        all.add(counter(prefix + "connections_closed", "Connections closed" + of + ", by close reason kind", closed));
        all.add(counter(prefix + "protocol_violations",
                "Connections closed for a protocol violation" + of + ", by the rule broken", violations));
        all.add(counter(prefix + "messages_sent", "Upper-layer messages sent" + of, owners, label, c -> c.messagesSent));
        all.add(counter(prefix + "messages_received", "Upper-layer messages received" + of, owners, label,
                c -> c.messagesReceived));
        all.add(counter(prefix + "sent_bytes", "Upper-layer payload bytes sent" + of, owners, label, c -> c.bytesSent));
        all.add(counter(prefix + "received_bytes", "Upper-layer payload bytes received" + of, owners, label,
                c -> c.bytesReceived));
        all.add(counter(prefix + "rdma_reads", "RDMA Reads completed" + of, owners, label, c -> c.rdmaReads));
        all.add(counter(prefix + "rdma_writes", "RDMA Writes completed" + of, owners, label, c -> c.rdmaWrites));
        all.add(counter(prefix + "rdma_bytes", "Bytes moved by RDMA Read and Write" + of, owners, label,
                c -> c.rdmaBytes));
        all.add(counter(prefix + "credit_stalls", "Times sending stopped for lack of Send Credits" + of, owners, label,
                c -> c.creditStalls));
    }

    /** One data point per owner ({@code label} = its name; 0 for a null owner). */
    private static <T> MetricSnapshot counter(String name, String help, Map<String, T> owners, String label,
            ToLongFunction<T> value) {
        Map<Labels, Long> points = new LinkedHashMap<>();
        owners.forEach((owner, c) -> points.put(Labels.of(label, owner), c == null ? 0L : value.applyAsLong(c)));
        return counter(name, help, points);
    }

    private static MetricSnapshot counter(String name, String help, Map<Labels, Long> points) {
        CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
        points.forEach((labels, v) -> b.dataPoint(
                CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(v).build()));
        return b.build();
    }

    private static MetricSnapshot gauge(String name, String help, Map<Labels, Long> points) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        points.forEach((labels, v) -> b.dataPoint(
                GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(v).build()));
        return b.build();
    }

    /** A listener's name in metrics: its configured name, or its address. */
    static String listenerName(ListenerDTO l) {
        return l.name != null && !l.name.isBlank() ? l.name : String.valueOf(l.address);
    }

    private static <T> List<T> list(T[] a) {
        return a == null ? List.of() : List.of(a);
    }
}
