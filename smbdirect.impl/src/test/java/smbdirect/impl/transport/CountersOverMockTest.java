package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TimerScheduler;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.DetachableProvider;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testsupport.traffic.Traffic;

/**
 * The counters a monitoring system scrapes, with the real engine over the mock fabric: a provider's
 * and a listener's counters only go up while connections open, carry traffic and close, while the
 * listener follows a hot swap, and when a provider is replaced under the same name; at the end they
 * equal what was sent.
 */
class CountersOverMockTest {

    private static final int PORT = 445;

    @RegisterExtension
    final TransportOverMock rig = new TransportOverMock();
    private final MockFabric fabric = rig.fabric("f", DeliveryMode.THREADED);
    private final TimerScheduler timer = rig.timer();
    private final MultiProviderTransport transport = rig.transport();
    private final List<TransportDTO> snapshots = new ArrayList<>();

    @Test
    void providerAndListenerCountersOnlyGoUpAcrossClosesHotSwapAndReplacement() throws Exception {
        MockProvider a = fabric.provider("a");
        MockProvider peer = fabric.provider("peer");
        SmbDirectEngine remote = new SmbDirectEngine(peer, TransportSettings.DEFAULTS, timer);
        transport.addProvider(a, props("a", 10, 1));
        BlockingQueue<Traffic.Receiver> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", PORT), c -> {
            Traffic.Receiver r = new Traffic.Receiver();
            accepted.add(r);
            return r;
        });
        snapshot();

        long messages = 0;
        long bytes = 0;
        int rounds = 3;
        for (int round = 1; round <= rounds; round++) {
            Traffic.Receiver back = new Traffic.Receiver();
            SmbDirectConnection c = remote.connect(new InetSocketAddress(a.address(), PORT), Duration.ofSeconds(10), back)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            Traffic.Receiver here = accepted.poll(10, TimeUnit.SECONDS);
            assertNotNull(here, "accepted");
            int count = 20 * round;
            for (int seq = 0; seq < count; seq++) {
                c.send(Traffic.message(seq)).toCompletableFuture().get(10, TimeUnit.SECONDS);
                bytes += Traffic.size(seq);
            }
            messages += count;
            here.awaitReceived(count, "round " + round);
            long expectMessages = messages;
            snapshotUntil(t -> provider(t, "a").counters.messagesReceived == expectMessages);
            c.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
            int closed = round;
            snapshotUntil(t -> provider(t, "a").counters.connectionsClosed == closed);
        }

        CountersDTO onA = provider(last(), "a").counters;
        assertEquals(rounds, onA.connectionsOpened);
        assertEquals(rounds, onA.connectionsClosed);
        assertEquals(rounds, onA.closedByReason.values().stream().mapToLong(Long::longValue).sum(), onA.closedByReason.toString());
        assertEquals(messages, onA.messagesReceived);
        assertEquals(bytes, onA.bytesReceived);
        assertEquals(0, onA.protocolViolations);
        CountersDTO ofListener = listener(last()).counters;
        assertEquals(rounds, ofListener.connectionsOpened);
        assertEquals(messages, ofListener.messagesReceived);
        assertEquals(bytes, ofListener.bytesReceived);

        // a better provider arrives: the listener follows it and keeps its counts
        MockProvider b = fabric.provider("b");
        transport.addProvider(b, props("b", 20, 2));
        snapshotUntil(t -> "b".equals(listener(t).provider));
        assertEquals(messages, listener(last()).counters.messagesReceived);
        assertEquals(0, provider(last(), "b").counters.messagesReceived);

        // provider a is replaced by another of the same name: its counts carry on
        transport.removeProvider(a).toCompletableFuture().get(10, TimeUnit.SECONDS);
        MockProvider a2 = fabric.provider("a2");
        transport.addProvider(a2, props("a", 5, 3));
        snapshotUntil(t -> t.providers.length == 2);
        assertEquals(messages, provider(last(), "a").counters.messagesReceived);
        assertEquals(rounds, provider(last(), "a").counters.connectionsClosed);
    }

    @Test
    void countsStayWhenAProviderThatRefusesCallsAfterLeavingIsRemovedUnderTraffic() throws Exception {
        MockProvider device = fabric.provider("a");
        DetachableProvider a = new DetachableProvider(device); // refuses every call once detached
        MockProvider peer = fabric.provider("peer");
        SmbDirectEngine remote = new SmbDirectEngine(peer, TransportSettings.DEFAULTS, timer);
        transport.addProvider(a, props("a", 10, 1));
        BlockingQueue<Traffic.Receiver> accepted = new LinkedBlockingQueue<>();
        transport.listen(new InetSocketAddress("0.0.0.0", PORT), c -> {
            Traffic.Receiver r = new Traffic.Receiver();
            accepted.add(r);
            return r;
        });
        SmbDirectConnection c = remote.connect(new InetSocketAddress(device.address(), PORT), Duration.ofSeconds(10),
                new Traffic.Receiver()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        Traffic.Receiver here = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull(here, "accepted");
        for (int seq = 0; seq < 30; seq++) {
            c.send(Traffic.message(seq)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        here.awaitReceived(30, "traffic on a");
        snapshotUntil(t -> listener(t).counters.messagesReceived == 30);

        // the listener moves to a better provider; its old endpoint on a keeps the live connection
        transport.addProvider(fabric.provider("b"), props("b", 20, 2));
        snapshotUntil(t -> "b".equals(listener(t).provider));
        transport.removeProvider(a).toCompletableFuture().get(10, TimeUnit.SECONDS);
        a.detach(); // its component deactivated: counting must not ask it
        snapshotUntil(t -> listener(t).counters.connectionsClosed == 1);
        assertEquals(30, listener(last()).counters.messagesReceived);

        // a new provider named a: the counts of the one that left carry on
        transport.addProvider(fabric.provider("a2"), props("a", 5, 3));
        snapshotUntil(t -> t.providers.length == 2);
        assertEquals(30, provider(last(), "a").counters.messagesReceived);
        assertEquals(1, provider(last(), "a").counters.closedByReason.get("PROVIDER_REPLACED"));
    }

    /** Takes snapshots until {@code done} holds for one; each must count no less than the one before. */
    private void snapshotUntil(Predicate<TransportDTO> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.test(snapshot())) {
            if (System.nanoTime() > deadline) {
                fail("not reached within 10 s; last: providers " + java.util.Arrays.toString(last().providers)
                        + ", listener " + listener(last()));
            }
            Thread.onSpinWait();
        }
    }

    private TransportDTO snapshot() {
        TransportDTO t = transport.getTransportDTO();
        if (!snapshots.isEmpty()) {
            TransportDTO before = last();
            for (ProviderDTO p : t.providers) {
                for (ProviderDTO q : before.providers) {
                    if (q.name.equals(p.name)) {
                        assertNotLess(q.counters, p.counters, "provider " + p.name);
                    }
                }
            }
            assertNotLess(listener(before).counters, listener(t).counters, "listener");
        }
        snapshots.add(t);
        return t;
    }

    private static void assertNotLess(CountersDTO before, CountersDTO now, String what) {
        long[] b = values(before);
        long[] n = values(now);
        for (int i = 0; i < b.length; i++) {
            assertTrue(n[i] >= b[i], what + " counter " + i + " fell from " + b[i] + " to " + n[i]);
        }
        for (Map.Entry<String, Long> e : before.closedByReason.entrySet()) {
            assertTrue(now.closedByReason.getOrDefault(e.getKey(), 0L) >= e.getValue(), what + " " + e.getKey() + " fell");
        }
    }

    private static long[] values(CountersDTO c) {
        return new long[] {c.connectionsOpened, c.connectionsClosed, c.protocolViolations, c.messagesSent,
            c.messagesReceived, c.bytesSent, c.bytesReceived, c.rdmaReads, c.rdmaWrites, c.rdmaBytes, c.creditStalls};
    }

    private TransportDTO last() {
        return snapshots.get(snapshots.size() - 1);
    }

    private static ProviderDTO provider(TransportDTO t, String name) {
        for (ProviderDTO p : t.providers) {
            if (p.name.equals(name)) {
                return p;
            }
        }
        throw new AssertionError("no provider " + name);
    }

    private static ListenerDTO listener(TransportDTO t) {
        assertEquals(1, t.listeners.length);
        return t.listeners[0];
    }
}
