package smbdirect.ops.monitor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;

class TransportMonitorTest {

    private TransportDTO current = transport(List.of("mock"));
    private final TransportMonitor monitor = new TransportMonitor(() -> current);

    private static TransportDTO transport(List<String> providers, ConnectionDTO... connections) {
        TransportDTO t = new TransportDTO();
        t.providers = providers.stream().map(n -> {
            ProviderDTO p = new ProviderDTO();
            p.name = n;
            p.selected = true;
            return p;
        }).toArray(ProviderDTO[]::new);
        t.connections = connections;
        return t;
    }

    private static ConnectionDTO connection(String provider, long id, long created, long bytesOut, long bytesIn,
            long msgsOut, long msgsIn, long stalls, int sendCredits, int peerCredits) {
        ConnectionDTO c = new ConnectionDTO();
        c.provider = provider;
        c.id = id;
        c.createdMillis = created;
        c.bytesSent = bytesOut;
        c.bytesReceived = bytesIn;
        c.messagesSent = msgsOut;
        c.messagesReceived = msgsIn;
        c.creditStalls = stalls;
        c.sendCredits = sendCredits;
        c.peerCredits = peerCredits;
        return c;
    }

    @Test
    void ratesPerConnectionAndSumsPerProviderFromCounterDifferences() {
        monitor.sample(10_000);
        // connection 1 was up before the monitor saw it: its first sample is the baseline, not a spike
        current = transport(List.of("mock"), connection("mock", 1, 5_000, 1_000_000, 0, 100, 0, 7, 10, 200));
        monitor.sample(11_000);
        current = transport(List.of("mock"), connection("mock", 1, 5_000, 3_000_000, 500, 300, 5, 9, 4, 180),
                connection("mock", 2, 11_500, 0, 80_000, 0, 10, 0, 255, 0));
        monitor.sample(13_000);

        Map<String, Series> c = monitor.connectionHistory(List.of("mock/1", "mock/2", "mock/3"));
        assertEquals(List.of("mock/1", "mock/2"), new ArrayList<>(c.keySet()));
        Series one = c.get("mock/1");
        assertArrayEquals(new long[] { 11_000, 13_000 }, one.times());
        assertArrayEquals(new float[] { 0, 1_000_000 }, one.values(Metric.BYTES_SENT), "2 MB in 2 s");
        assertArrayEquals(new float[] { 0, 100 }, one.values(Metric.MESSAGES_SENT));
        assertArrayEquals(new float[] { 0, 2.5f }, one.values(Metric.MESSAGES_RECEIVED));
        assertArrayEquals(new float[] { 0, 1 }, one.values(Metric.CREDIT_STALLS));
        assertArrayEquals(new float[] { 10, 4 }, one.values(Metric.SEND_CREDITS));
        assertArrayEquals(new float[] { 200, 180 }, one.values(Metric.PEER_CREDITS));
        // connection 2 was created since the last sample: it counts from zero
        assertArrayEquals(new float[] { 40_000 }, c.get("mock/2").values(Metric.BYTES_RECEIVED));

        Series mock = monitor.providerHistory().get("mock");
        assertArrayEquals(new long[] { 10_000, 11_000, 13_000 }, mock.times());
        assertArrayEquals(new float[] { 0, 0, 1_000_000 }, mock.values(Metric.BYTES_SENT));
        assertArrayEquals(new float[] { 0, 0, 40_250 }, mock.values(Metric.BYTES_RECEIVED));
        assertArrayEquals(new float[] { 0, 10, 259 }, mock.values(Metric.SEND_CREDITS));
        assertEquals(1_000_000f, monitor.latestOfConnections(Metric.BYTES_SENT).get("mock/1"));
        assertSame(current, monitor.latest().transport());
        assertEquals(13_000, monitor.latest().timeMillis());
    }

    @Test
    void closedConnectionsAndGoneProvidersLoseTheirHistory() {
        current = transport(List.of("mock", "verbs"), connection("mock", 1, 0, 0, 0, 0, 0, 0, 1, 1));
        monitor.sample(1_000);
        current = transport(List.of("verbs"));
        monitor.sample(2_000);
        assertTrue(monitor.connectionHistory(List.of("mock/1")).isEmpty());
        assertEquals(List.of("verbs"), new ArrayList<>(monitor.providerHistory().keySet()));
    }

    @Test
    void historiesKeepTheLastFiveMinutesAndABoundedNumberOfConnections() {
        ConnectionDTO[] many = new ConnectionDTO[TransportMonitor.MAX_CONNECTION_HISTORIES + 10];
        for (int i = 0; i < many.length; i++) {
            many[i] = connection("mock", i, 0, 0, 0, 0, 0, 0, 0, 0);
        }
        current = transport(List.of("mock"), many);
        for (int s = 0; s < TransportMonitor.SAMPLES + 20; s++) {
            monitor.sample(s * 1000L);
        }
        Series mock = monitor.providerHistory().get("mock");
        assertEquals(TransportMonitor.SAMPLES, mock.size());
        assertEquals(20_000, mock.times()[0], "the oldest samples were dropped");
        List<String> keys = new ArrayList<>();
        for (ConnectionDTO c : many) {
            keys.add(TransportMonitor.key(c.provider, c.id));
        }
        assertEquals(TransportMonitor.MAX_CONNECTION_HISTORIES, monitor.connectionHistory(keys).size());
    }

    @Test
    void negotiationFailuresAreCountedOverTheWindow() {
        current = transport(List.of("mock"));
        current.negotiationFailures = 3;
        monitor.sample(1_000);
        assertEquals(0, monitor.negotiationFailuresInWindow());
        current = transport(List.of("mock"));
        current.negotiationFailures = 5;
        monitor.sample(2_000);
        assertEquals(2, monitor.negotiationFailuresInWindow());
        for (int s = 3; s < 3 + TransportMonitor.SAMPLES; s++) {
            monitor.sample(s * 1000L);
        }
        assertEquals(0, monitor.negotiationFailuresInWindow(), "older than five minutes");
    }

    @Test
    void aConnectionIsStarvedOnlyWhenItLacksCreditsForFiveSeconds() {
        ConnectionDTO c = connection("mock", 1, 0, 0, 0, 0, 0, 0, 0, 0);
        c.state = "ESTABLISHED";
        c.sendQueueDepth = 3;
        current = transport(List.of("mock"), c);
        for (long t = 0; t <= 4_000; t += 1_000) {
            monitor.sample(t);
            assertTrue(!monitor.starvedFor(c, TransportMonitor.STARVED_MILLIS), "only " + t + " ms");
        }
        monitor.sample(5_000);
        assertTrue(monitor.starvedFor(c, TransportMonitor.STARVED_MILLIS));
        assertEquals(smbdirect.ops.health.TransportHealth.Status.WARN,
                smbdirect.ops.health.TransportHealth.evaluate(current, monitor).status());
        c.sendCredits = 1; // a grant arrived: the streak ends
        monitor.sample(6_000);
        c.sendCredits = 0;
        monitor.sample(7_000);
        assertTrue(!monitor.starvedFor(c, TransportMonitor.STARVED_MILLIS));

        // a sender at full load: no credits at each sample, but messages go out
        for (long t = 8_000; t <= 20_000; t += 1_000) {
            c.messagesSent += 1000;
            monitor.sample(t);
        }
        assertTrue(!monitor.starvedFor(c, TransportMonitor.STARVED_MILLIS));
    }

    @Test
    void listenersSeeEverySnapshotAndAFailingOneDoesNotStopSampling() {
        List<Long> seen = new ArrayList<>();
        monitor.addListener(s -> {
            throw new IllegalStateException("broken listener");
        });
        monitor.addListener(s -> seen.add(s.timeMillis()));
        assertNull(monitor.latest());
        monitor.sample(1_000);
        monitor.sample(2_000);
        assertEquals(List.of(1_000L, 2_000L), seen);
    }
}
