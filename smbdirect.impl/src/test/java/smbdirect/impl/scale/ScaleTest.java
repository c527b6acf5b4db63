package smbdirect.impl.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.impl.engine.ManualScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * Many negotiated connections in one JVM over the mock (INLINE delivery, virtual time): opens
 * them, keeps them alive across several keepalive intervals and measures heap and direct memory
 * per connection and the setup rate; one side's heap and direct memory beyond its posted receive
 * buffers must stay within 16 KiB. Bounded by count: 1,000 connections by default, 10,000 with
 * {@code -Dsmbdirect.scale=full}.
 *
 * <p>Settings that make 10,000 fit a modest heap: receiveCreditMax 16, sendCreditTarget 16,
 * MaxSendSize = MaxReceiveSize = 1364.
 */
class ScaleTest {

    private static final Logger LOG = LoggerFactory.getLogger(ScaleTest.class);
    private static final int INTERVALS = 3;
    private static final Duration KEEPALIVE = Duration.ofSeconds(120);
    /** What one side may hold beyond its posted receive buffers. */
    private static final long OVERHEAD_TARGET = 16 * 1024;

    /** Counts messages and disconnects of every connection of one side. */
    private static final class Counting implements ConnectionHandler {
        final AtomicInteger messages = new AtomicInteger();
        final AtomicInteger disconnects = new AtomicInteger();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            messages.incrementAndGet();
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            disconnects.incrementAndGet();
            LOG.warn("connection {} closed: {}", connection.id(), reason);
        }
    }

    @Test
    void manyConnectionsStayAliveAcrossKeepaliveIntervalsWithBoundedMemoryEach() throws Exception {
        boolean full = "full".equals(System.getProperty("smbdirect.scale"));
        int n = full ? 10_000 : 1_000;
        TransportSettings settings = TransportSettings.builder()
                .receiveCreditMax(16)
                .sendCreditTarget(16)
                .maxSendSize(1364)
                .maxReceiveSize(1364)
                .keepaliveInterval(KEEPALIVE)
                .maxConnectionsPerListener(n)
                .maxNegotiatingPerListener(n)
                .receiveBufferBudget(1L << 30)
                .build();
        ManualScheduler time = new ManualScheduler();
        Counting clientSide = new Counting();
        Counting serverSide = new Counting();
        List<SmbDirectConnection> accepted = new ArrayList<>(n);
        List<SmbDirectConnection> clients = new ArrayList<>(n);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();

        try (MockFabric fabric = MockFabric.builder().name("scale").mode(DeliveryMode.INLINE).build()) {
            MockProvider serverDevice = fabric.provider("server");
            MockProvider clientDevice = fabric.provider("client");
            SmbDirectEngine server = new SmbDirectEngine(serverDevice, settings, time);
            SmbDirectEngine client = new SmbDirectEngine(clientDevice, settings, time);
            SmbDirectListener listener = server.listen(new InetSocketAddress(serverDevice.address(), 445), c -> {
                synchronized (accepted) {
                    accepted.add(c);
                }
                return serverSide;
            });

            long[] before = settled(memory, direct);
            long heapBefore = before[0];
            long directBefore = before[1];

            long start = System.nanoTime();
            List<CompletableFuture<SmbDirectConnection>> pending = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                pending.add(client.connect(listener.localAddress(), Duration.ofSeconds(120), clientSide)
                        .toCompletableFuture());
            }
            for (CompletableFuture<SmbDirectConnection> f : pending) {
                clients.add(f.get(30, TimeUnit.SECONDS));
            }
            long setupNanos = System.nanoTime() - start;
            pending = null;
            assertEquals(n, clients.size());
            synchronized (accepted) {
                assertEquals(n, accepted.size(), "every connection negotiated and accepted");
            }

            long[] after = settled(memory, direct);
            long heapAfter = after[0];
            long directAfter = after[1];
            int postedReceives = fabric.stats().postedReceives();
            int sides = 2 * n;
            long heapPerSide = (heapAfter - heapBefore) / sides;
            long directPerSide = (directAfter - directBefore) / sides;
            long postedPerSide = (long) postedReceives * settings.maxReceiveSize() / sides;

            long keepalivesBefore = keepalives(clients) + keepalives(accepted);
            for (int i = 0; i < INTERVALS; i++) {
                time.advance(KEEPALIVE.plusSeconds(1));
            }
            long exchanged = keepalives(clients) + keepalives(accepted) - keepalivesBefore;

            double rate = n / (setupNanos / 1e9);
            LOG.warn(String.format("scale: %d connections (%d sides) set up in %.2f s = %.0f connections/s;"
                    + " per side: heap %d B, direct %d B, posted receive buffers %d B (%d receives in all),"
                    + " heap+direct-posted %d B (target <= %d B); keepalives in %d intervals: %d",
                    n, sides, setupNanos / 1e9, rate, heapPerSide, directPerSide, postedPerSide, postedReceives,
                    heapPerSide + directPerSide - postedPerSide, OVERHEAD_TARGET, INTERVALS, exchanged));

            assertEquals(0, clientSide.disconnects.get(), "no client connection closed");
            assertEquals(0, serverSide.disconnects.get(), "no server connection closed");
            for (SmbDirectConnection c : clients) {
                assertTrue(c.isOpen(), () -> "connection " + c.id() + " is open");
            }
            // every interval at least one side of every connection asks for a keepalive reply
            assertTrue(exchanged >= (long) INTERVALS * n, "keepalives exchanged: " + exchanged);
            assertEquals(0, clientSide.messages.get() + serverSide.messages.get(),
                    "keepalives never reach the upper layer");
            assertTrue(postedReceives >= sides, "receives posted: " + postedReceives);
            // the per-connection memory target: heap and direct memory of one side beyond its posted
            // receive buffers at most 16 KiB (send buffers sized by need, initial region released)
            assertTrue(heapPerSide + directPerSide - postedPerSide <= OVERHEAD_TARGET,
                    "per side: heap " + heapPerSide + " B + direct " + directPerSide + " B - posted receives "
                            + postedPerSide + " B = " + (heapPerSide + directPerSide - postedPerSide)
                            + " B, target <= " + OVERHEAD_TARGET + " B");

            for (SmbDirectConnection c : clients) {
                c.close();
            }
            time.advance(Duration.ofSeconds(1));
            listener.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertEquals(n, clientSide.disconnects.get(), "each client connection closed once");
        }
    }

    private static long keepalives(List<SmbDirectConnection> connections) {
        long sum = 0;
        synchronized (connections) {
            for (SmbDirectConnection c : connections) {
                ConnectionDTO d = c.getConnectionDTO();
                sum += d.keepalivesSent;
            }
        }
        return sum;
    }

    /**
     * Heap and direct memory in use after the collector has run until both figures are stable. Direct
     * buffers are freed by the reference handler after a collection, so the direct figure counts
     * only when it did not change across a collection whose references were processed.
     */
    /**
     * Runs a collection and waits until the reference handler has processed the references it
     * found (a sentinel's phantom reference is enqueued), which is when the direct buffers the
     * collection found unreachable are freed.
     */
    private static void collect() throws InterruptedException {
        java.lang.ref.ReferenceQueue<Object> queue = new java.lang.ref.ReferenceQueue<>();
        java.lang.ref.PhantomReference<Object> sentinel = new java.lang.ref.PhantomReference<>(new Object(), queue);
        System.gc();
        queue.remove(1_000);
        java.lang.ref.Reference.reachabilityFence(sentinel);
    }

    private static long[] settled(MemoryMXBean memory, BufferPoolMXBean direct) throws InterruptedException {
        long lastHeap = Long.MAX_VALUE;
        long lastDirect = -1;
        for (int i = 0; i < 20; i++) {
            collect();
            long heap = memory.getHeapMemoryUsage().getUsed();
            long d = direct.getMemoryUsed();
            if (Math.abs(lastHeap - heap) < 64 * 1024 && d == lastDirect) {
                return new long[] {heap, d};
            }
            lastHeap = heap;
            lastDirect = d;
        }
        return new long[] {lastHeap, lastDirect};
    }
}
