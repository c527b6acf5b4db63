package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.rdma.mock.DeliveryMode;

/**
 * Real threads: completions on the mock's completion threads (THREADED) or inline from post calls
 * (INLINE); several upper-layer threads send concurrently on both sides. Waits use latches with
 * time limits, never sleeps.
 */
class ConcurrencyOverMockTest {

    @ParameterizedTest
    @EnumSource(value = DeliveryMode.class, names = {"THREADED", "INLINE"})
    void concurrentSendersBothWaysDeliverEverythingInPerThreadOrder(DeliveryMode mode) throws Exception {
        TransportSettings s = TransportSettings.builder().sendCreditTarget(8).receiveCreditMax(8).build();
        try (MockPair pair = new MockPair(mode, s, s)) {
            CompletableFuture<SmbDirectConnection> f = pair.connectAsync();
            SmbDirectConnection c = f.get(10, TimeUnit.SECONDS);
            SmbDirectConnection srv = pair.awaitAccepted(Duration.ofSeconds(10));
            int threads = 3;
            int perThread = 150;
            CountDownLatch completions = new CountDownLatch(2 * threads * perThread);
            AtomicInteger failures = new AtomicInteger();
            List<Thread> senders = new ArrayList<>();
            for (SmbDirectConnection conn : List.of(c, srv)) {
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    senders.add(new Thread(() -> {
                        for (int i = 0; i < perThread; i++) {
                            byte[] m = new byte[4 + (i % 7) * 700];
                            ByteBuffer.wrap(m).putShort((short) id).putShort((short) i);
                            conn.send(ByteBuffer.wrap(m), (b, x) -> {
                                if (x != null) {
                                    failures.incrementAndGet();
                                }
                                completions.countDown();
                            });
                        }
                    }));
                }
            }
            senders.forEach(Thread::start);
            for (Thread t : senders) {
                t.join(TimeUnit.SECONDS.toMillis(20));
            }
            assertTrue(completions.await(20, TimeUnit.SECONDS), "all sends completed");
            assertEquals(0, failures.get());
            assertTrue(pair.serverSide.awaitMessages(threads * perThread, Duration.ofSeconds(10)));
            assertTrue(pair.clientSide.awaitMessages(threads * perThread, Duration.ofSeconds(10)));
            for (List<byte[]> got : List.of(pair.serverSide.messages, pair.clientSide.messages)) {
                assertEquals(threads * perThread, got.size());
                int[] next = new int[threads];
                for (byte[] m : List.copyOf(got)) {
                    ByteBuffer b = ByteBuffer.wrap(m);
                    int id = b.getShort();
                    int seq = b.getShort();
                    assertEquals(next[id]++, seq, "messages of one sender arrive in send order");
                    assertEquals(4 + (seq % 7) * 700, m.length);
                }
            }
            CompletableFuture<Void> closed = c.close().toCompletableFuture();
            closed.get(10, TimeUnit.SECONDS);
            assertTrue(pair.serverSide.awaitDisconnect(Duration.ofSeconds(10)));
            assertEquals(CloseReason.Kind.PEER_DISCONNECT, pair.serverSide.disconnects.get(0).kind());
            pair.client.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "end")).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            pair.server.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "end")).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            pair.fabric.close();
            pair.fabric.assertNoLeaks();
        }
    }

    @ParameterizedTest
    @EnumSource(value = DeliveryMode.class, names = {"THREADED", "INLINE"})
    void largeMessagesAndRdmaUnderRealThreads(DeliveryMode mode) throws Exception {
        TransportSettings s = TransportSettings.DEFAULTS;
        try (MockPair pair = new MockPair(mode, s, s)) {
            SmbDirectConnection c = pair.connectAsync().get(10, TimeUnit.SECONDS);
            byte[] data = Harness.bytes(1 << 20, 3);
            c.send(ByteBuffer.wrap(data)).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertTrue(pair.serverSide.awaitMessages(1, Duration.ofSeconds(10)));
            assertArrayEquals(data, pair.serverSide.messages.get(0));
            var src = c.register(MockPair.direct(data), smbdirect.api.RemoteAccess.READ).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            SmbDirectConnection srv = pair.awaitAccepted(Duration.ofSeconds(10));
            ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
            var local = srv.register(dst, smbdirect.api.RemoteAccess.LOCAL_ONLY).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            CompletableFuture<Long> read = new CompletableFuture<>();
            srv.rdmaRead(local, 0, 1 << 20, src.descriptors(), 0, (n, x) -> {
                if (x == null) {
                    read.complete(n);
                } else {
                    read.completeExceptionally(x);
                }
            });
            assertEquals(1 << 20, read.get(10, TimeUnit.SECONDS));
            byte[] got = new byte[1 << 20];
            dst.duplicate().get(got);
            assertArrayEquals(data, got);
            src.deregister().toCompletableFuture().get(10, TimeUnit.SECONDS);
            local.deregister().toCompletableFuture().get(10, TimeUnit.SECONDS);
            pair.client.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "end")).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            pair.server.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "end")).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            pair.fabric.close();
            pair.fabric.assertNoLeaks();
        }
    }

    @ParameterizedTest
    @EnumSource(value = DeliveryMode.class, names = {"THREADED", "INLINE"})
    void repliesFromInsideCallbacksKeepOrder(DeliveryMode mode) throws Exception {
        TransportSettings s = TransportSettings.builder().sendCreditTarget(4).receiveCreditMax(4).build();
        try (MockPair pair = new MockPair(mode, s, s)) {
            pair.serverSide.echo = true;
            SmbDirectConnection c = pair.connectAsync().get(10, TimeUnit.SECONDS);
            int threads = 2;
            int perThread = 150;
            List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                senders.add(new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        byte[] m = new byte[4 + (i % 5) * 900];
                        ByteBuffer.wrap(m).putShort((short) id).putShort((short) i);
                        c.send(ByteBuffer.wrap(m), (b, x) -> { });
                    }
                }));
            }
            senders.forEach(Thread::start);
            for (Thread t : senders) {
                t.join(TimeUnit.SECONDS.toMillis(20));
            }
            assertTrue(pair.clientSide.awaitMessages(threads * perThread, Duration.ofSeconds(20)), "all echoed");
            int[] next = new int[threads];
            for (byte[] m : List.copyOf(pair.clientSide.messages)) {
                ByteBuffer b = ByteBuffer.wrap(m);
                int id = b.getShort();
                assertEquals(next[id]++, b.getShort(), "echoes keep each sender's order");
            }
            pair.client.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "end")).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            pair.server.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "end")).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            pair.fabric.close();
            pair.fabric.assertNoLeaks();
        }
    }
}
