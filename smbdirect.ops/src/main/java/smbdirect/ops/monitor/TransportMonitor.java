package smbdirect.ops.monitor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;

/**
 * The transport's recent history, kept on the server so that a status page opened now shows the
 * last minutes: every {@value #INTERVAL_MILLIS} ms a snapshot of the runtime DTO, and from the
 * difference to the previous one, per provider and per live connection, throughput and messages per
 * second both ways, credits held and granted, and credit stalls per second
 * ({@link Metric}), for the last {@value #SAMPLES} samples (five minutes). Connection histories are
 * kept for up to {@value #MAX_CONNECTION_HISTORIES} connections at a time (about 8 KB each); the
 * newest snapshot also serves the JMX MBeans and anything else that polls, so that a poller does
 * not build a DTO of every connection per attribute read.
 *
 * <p>Owns one thread, {@value #THREAD_NAME}. Thread-safe: sampling and readers are serialized by
 * this object's lock; snapshot listeners run on the sampling thread outside it.
 */
@Component(service = TransportMonitor.class, immediate = true)
public final class TransportMonitor {

    /** Sampling interval. */
    public static final long INTERVAL_MILLIS = 1000;
    /** Samples kept per series (five minutes). */
    public static final int SAMPLES = 300;
    /** How long a connection must lack Send Credits with messages queued to count as starved. */
    public static final long STARVED_MILLIS = 5000;
    /** Connections with a history at a time. */
    public static final int MAX_CONNECTION_HISTORIES = 256;
    static final String THREAD_NAME = "smbdirect-monitor";

    private static final Logger LOG = LoggerFactory.getLogger(TransportMonitor.class);
    private static final int METRICS = Metric.values().length;

    /** One sample of the transport. */
    public record Snapshot(long timeMillis, TransportDTO transport) {
    }

    /** The counters a rate is computed from. */
    private record Counters(long bytesSent, long bytesReceived, long messagesSent, long messagesReceived,
            long creditStalls) {
        static Counters of(ConnectionDTO c) {
            return new Counters(c.bytesSent, c.bytesReceived, c.messagesSent, c.messagesReceived, c.creditStalls);
        }
    }

    private final Supplier<TransportDTO> source;
    private final ScheduledExecutorService sampler;
    private final List<Consumer<Snapshot>> listeners = new CopyOnWriteArrayList<>();

    // guarded by this
    private Snapshot latest;
    private final Map<String, Series> providers = new LinkedHashMap<>();
    private final Map<String, Series> connections = new LinkedHashMap<>();
    private Map<String, Counters> previous = new HashMap<>();
    private final ArrayDeque<long[]> negotiationFailures = new ArrayDeque<>();
    private final Map<String, Long> starvedSince = new HashMap<>();

    @Activate
    public TransportMonitor(@Reference SmbDirectTransport transport) {
        this.source = transport::getTransportDTO;
        this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        sampler.scheduleAtFixedRate(this::sampleNow, 0, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** A monitor sampled only by {@link #sample} (tests). */
    TransportMonitor(Supplier<TransportDTO> source) {
        this.source = source;
        this.sampler = null;
    }

    @Deactivate
    void deactivate() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
    }

    private void sampleNow() {
        try {
            sample(System.currentTimeMillis());
        } catch (RuntimeException e) {
            LOG.warn("Transport sample failed: {}", e.toString(), e);
        }
    }

    /** Takes one sample at {@code nowMillis} and tells the listeners. */
    void sample(long nowMillis) {
        Snapshot s = record(nowMillis, source.get());
        for (Consumer<Snapshot> l : listeners) {
            try {
                l.accept(s);
            } catch (RuntimeException e) {
                LOG.warn("Snapshot listener {} failed: {}", l, e.toString(), e);
            }
        }
    }

    private synchronized Snapshot record(long now, TransportDTO dto) {
        Snapshot before = latest;
        double seconds = before == null ? 0 : Math.max(0.001, (now - before.timeMillis()) / 1000.0);
        Map<String, float[]> perProvider = new LinkedHashMap<>();
        for (ProviderDTO p : list(dto.providers)) {
            perProvider.put(p.name, new float[METRICS]);
        }
        Map<String, Counters> seen = new HashMap<>();
        for (ConnectionDTO c : list(dto.connections)) {
            String key = key(c.provider, c.id);
            Counters now0 = Counters.of(c);
            seen.put(key, now0);
            Counters prev = previous.get(key);
            boolean progressed = prev != null && now0.messagesSent() > prev.messagesSent();
            if (prev == null) {
                // new since the last sample: count from zero if it was created since, else start here
                prev = before != null && c.createdMillis >= before.timeMillis() ? new Counters(0, 0, 0, 0, 0) : now0;
            }
            float[] sample = new float[METRICS];
            if (seconds > 0) {
                sample[Metric.BYTES_SENT.ordinal()] = rate(now0.bytesSent() - prev.bytesSent(), seconds);
                sample[Metric.BYTES_RECEIVED.ordinal()] = rate(now0.bytesReceived() - prev.bytesReceived(), seconds);
                sample[Metric.MESSAGES_SENT.ordinal()] = rate(now0.messagesSent() - prev.messagesSent(), seconds);
                sample[Metric.MESSAGES_RECEIVED.ordinal()] = rate(now0.messagesReceived() - prev.messagesReceived(),
                        seconds);
                sample[Metric.CREDIT_STALLS.ordinal()] = rate(now0.creditStalls() - prev.creditStalls(), seconds);
            }
            sample[Metric.SEND_CREDITS.ordinal()] = c.sendCredits;
            sample[Metric.PEER_CREDITS.ordinal()] = c.peerCredits;
            if (starvedNow(c) && !progressed) {
                starvedSince.putIfAbsent(key, now);
            } else {
                starvedSince.remove(key);
            }
            float[] total = perProvider.computeIfAbsent(c.provider, p -> new float[METRICS]);
            for (int m = 0; m < METRICS; m++) {
                total[m] += sample[m];
            }
            Series series = connections.get(key);
            if (series == null && connections.size() < MAX_CONNECTION_HISTORIES) {
                series = new Series(SAMPLES);
                connections.put(key, series);
            }
            if (series != null) {
                series.add(now, sample);
            }
        }
        connections.keySet().retainAll(seen.keySet());
        starvedSince.keySet().retainAll(seen.keySet());
        providers.keySet().retainAll(perProvider.keySet());
        for (Map.Entry<String, float[]> e : perProvider.entrySet()) {
            providers.computeIfAbsent(e.getKey(), p -> new Series(SAMPLES)).add(now, e.getValue());
        }
        previous = seen;
        negotiationFailures.addLast(new long[] { now, dto.negotiationFailures });
        while (negotiationFailures.size() > SAMPLES) {
            negotiationFailures.removeFirst();
        }
        latest = new Snapshot(now, dto);
        return latest;
    }

    private static float rate(long delta, double seconds) {
        return delta <= 0 ? 0 : (float) (delta / seconds);
    }

    /** The key of a connection's history: {@code provider/id} (ids are unique per provider). */
    public static String key(String provider, long id) {
        return provider + "/" + id;
    }

    /** The newest snapshot, or {@code null} before the first. */
    public synchronized Snapshot latest() {
        return latest;
    }

    /** Copies of the provider histories, by provider name. */
    public synchronized Map<String, Series> providerHistory() {
        Map<String, Series> m = new LinkedHashMap<>();
        providers.forEach((k, v) -> m.put(k, v.copy()));
        return m;
    }

    /** Copies of the histories of the connections {@code keys} that have one. */
    public synchronized Map<String, Series> connectionHistory(Collection<String> keys) {
        Map<String, Series> m = new LinkedHashMap<>();
        for (String k : keys) {
            Series s = connections.get(k);
            if (s != null) {
                m.put(k, s.copy());
            }
        }
        return m;
    }

    /** The newest value of {@code metric} of each connection that has a history, by key. */
    public synchronized Map<String, Float> latestOfConnections(Metric metric) {
        Map<String, Float> m = new HashMap<>();
        connections.forEach((k, v) -> m.put(k, v.last(metric)));
        return m;
    }

    /** The newest sample of every connection that has a history (values by {@link Metric} ordinal), by key. */
    public synchronized Map<String, float[]> latestOfConnections() {
        Map<String, float[]> m = new LinkedHashMap<>();
        connections.forEach((k, v) -> {
            float[] last = new float[METRICS];
            for (Metric metric : Metric.values()) {
                last[metric.ordinal()] = v.last(metric);
            }
            m.put(k, last);
        });
        return m;
    }

    /**
     * Whether connection {@code c} has been starved of Send Credits (established, none held, messages
     * queued, none sent since the sample before) in every sample of at least the last {@code millis}.
     * A sender at full load holds no credits at most instants, but its messages go out: that is no
     * starvation.
     */
    public synchronized boolean starvedFor(ConnectionDTO c, long millis) {
        Long since = starvedSince.get(key(c.provider, c.id));
        return since != null && latest != null && latest.timeMillis() - since >= millis;
    }

    /** Starved of Send Credits now: established, none held, messages queued. */
    public static boolean starvedNow(ConnectionDTO c) {
        return "ESTABLISHED".equals(c.state) && c.sendCredits == 0 && c.sendQueueDepth > 0;
    }

    /** Negotiation failures within the history window (the last five minutes): newest minus oldest count. */
    public synchronized long negotiationFailuresInWindow() {
        return negotiationFailures.isEmpty() ? 0
                : negotiationFailures.getLast()[1] - negotiationFailures.getFirst()[1];
    }

    /** Calls {@code listener} with every new snapshot (on the sampling thread). */
    public void addListener(Consumer<Snapshot> listener) {
        listeners.add(listener);
    }

    public void removeListener(Consumer<Snapshot> listener) {
        listeners.remove(listener);
    }

    private static <T> List<T> list(T[] a) {
        return a == null ? List.of() : new ArrayList<>(List.of(a));
    }
}
