package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;

/**
 * The public API used from many threads at once while completions arrive on the provider's
 * threads (THREADED mock): per connection, several threads send concurrently, one registers and
 * deregisters in a loop, one runs RDMA Write + Read-back, and a closer thread closes one
 * connection in the middle of it all. Checks: every message of one thread arrives byte-exact and in
 * that thread's order, every completion is called exactly once, the closed connection's sends fail
 * with CONNECTION_CLOSED and the others are untouched, nothing leaks, and nothing deadlocks (every
 * wait is bounded and prints a thread dump with deadlock detection).
 */
class ConcurrencyStressTest {

    private static final int CONNECTIONS = 4;
    private static final int SENDERS = 4;
    private static final int MESSAGES_PER_SENDER = 150;

    /** Receiver side: per sender thread, the next expected sequence number. */
    static final class Checker implements ConnectionHandler {
        final Map<Integer, Integer> next = new ConcurrentHashMap<>();
        final List<String> failures;
        final AtomicLong received = new AtomicLong();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
        final AtomicInteger told = new AtomicInteger();

        Checker(List<String> failures) {
            this.failures = failures;
        }

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
            ByteBuffer p = m.payload().order(ByteOrder.BIG_ENDIAN); // the senders' order (the payload comes little-endian)
            int base = p.position();
            int sender = p.getInt(base);
            int seq = p.getInt(base + 4);
            int len = p.getInt(base + 8);
            int want = next.getOrDefault(sender, 0);
            if (seq != want) {
                failures.add("sender " + sender + ": message " + seq + " arrived, expected " + want);
            }
            next.put(sender, seq + 1);
            ByteBuffer expected = payload(sender, seq, len);
            if (len != m.length() || Rig.crc(expected) != Rig.crc(p)) {
                failures.add("sender " + sender + " message " + seq + ": bytes differ (length " + m.length() + ")");
            }
            received.incrementAndGet();
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
            told.incrementAndGet();
            closed.complete(reason);
        }
    }

    static ByteBuffer payload(int sender, int seq, int len) {
        ByteBuffer b = Rig.message(len, sender * 1_000_003L + seq);
        b.putInt(0, sender).putInt(4, seq).putInt(8, len);
        return b;
    }

    @Test
    @DisplayName("API from many threads under THREADED completions: per-thread order, byte-exact, exactly-once completions, no deadlock, no leak")
    void manyThreadsOneTransport() throws Exception {
        List<String> failures = new CopyOnWriteArrayList<>();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        TransportSettings s = TransportSettings.builder().receiveCreditMax(16).sendCreditTarget(16)
                .keepaliveInterval(Duration.ofMillis(20)).keepaliveResponseTimeout(Duration.ofSeconds(60))
                .creditGrantTimeout(Duration.ofSeconds(60)).build();
        try (MockFabric fabric = MockFabric.builder().name("stress").mode(DeliveryMode.THREADED).completionThreads(3)
                .build()) {
            SmbDirectEngine server = new SmbDirectEngine(fabric.provider("server"), s, new ExecutorScheduler(timer));
            SmbDirectEngine client = new SmbDirectEngine(fabric.provider("client"), s, new ExecutorScheduler(timer));
            List<Checker> serverSides = new CopyOnWriteArrayList<>();
            Map<InetSocketAddress, SmbDirectConnection> serverConns = new ConcurrentHashMap<>();
            Map<InetSocketAddress, Checker> serverCheckers = new ConcurrentHashMap<>();
            SmbDirectListener l = server.listen(new InetSocketAddress(fabric.provider("server").address(), 0), c -> {
                Checker k = new Checker(failures);
                serverSides.add(k);
                serverCheckers.put(c.peerAddress(), k);
                serverConns.put(c.peerAddress(), c);
                return k;
            });
            List<SmbDirectConnection> conns = new ArrayList<>();
            List<SmbDirectConnection> peers = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                SmbDirectConnection c = client.connect(l.localAddress(), Duration.ofSeconds(60), new Checker(failures))
                        .toCompletableFuture().get(60, TimeUnit.SECONDS);
                conns.add(c);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!serverConns.containsKey(c.localAddress())) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("not accepted" + Rig.threadDump());
                    }
                    Thread.onSpinWait();
                }
                peers.add(serverConns.get(c.localAddress()));
            }
            int victim = 1;
            int threads = CONNECTIONS * (SENDERS + 2) + 1;
            CyclicBarrier start = new CyclicBarrier(threads);
            CountDownLatch finished = new CountDownLatch(threads);
            AtomicLong sends = new AtomicLong();
            AtomicLong sendCallbacks = new AtomicLong();
            AtomicLong succeeded = new AtomicLong();
            List<AtomicLong> okPerConnection = new ArrayList<>();
            AtomicLong badFailures = new AtomicLong();
            List<Thread> all = new ArrayList<>();
            for (int ci = 0; ci < CONNECTIONS; ci++) {
                SmbDirectConnection c = conns.get(ci);
                SmbDirectConnection peer = peers.get(ci);
                AtomicLong ok = new AtomicLong();
                okPerConnection.add(ok);
                boolean isVictim = ci == victim;
                for (int t = 0; t < SENDERS; t++) {
                    int sender = ci * 100 + t;
                    all.add(new Thread(() -> {
                        run(start, finished, failures, () -> {
                            SplittableRandom r = new SplittableRandom(sender);
                            Semaphore window = new Semaphore(4);
                            for (int seq = 0; seq < MESSAGES_PER_SENDER; seq++) {
                                if (!window.tryAcquire(60, TimeUnit.SECONDS)) {
                                    throw new AssertionError("sender " + sender + " stuck" + Rig.threadDump());
                                }
                                int len = 12 + r.nextInt(r.nextInt(10) == 0 ? 200_000 : 3000);
                                AtomicInteger calls = new AtomicInteger();
                                sends.incrementAndGet();
                                c.send(payload(sender, seq, len), (m, failure) -> {
                                    if (calls.incrementAndGet() != 1) {
                                        failures.add("send completion called twice");
                                    }
                                    sendCallbacks.incrementAndGet();
                                    if (failure == null) {
                                        ok.incrementAndGet();
                                        succeeded.incrementAndGet();
                                    } else if (!(isVictim && failure instanceof SmbDirectException e
                                            && e.kind() == SmbDirectException.Kind.CONNECTION_CLOSED)) {
                                        badFailures.incrementAndGet();
                                        failures.add("unexpected send failure: " + failure);
                                    }
                                    window.release();
                                });
                            }
                            if (!window.tryAcquire(4, 60, TimeUnit.SECONDS)) {
                                throw new AssertionError("sender " + sender + " never drained" + Rig.threadDump());
                            }
                        });
                    }, "sender-" + sender));
                }
                all.add(new Thread(() -> run(start, finished, failures, () -> {
                    for (int i = 0; i < 40; i++) {
                        CompletableFuture<RegisteredBuffer> f = c.register(ByteBuffer.allocateDirect(4096),
                                RemoteAccess.values()[i % 4]).toCompletableFuture();
                        try {
                            RegisteredBuffer rb = f.get(60, TimeUnit.SECONDS);
                            rb.deregister().toCompletableFuture().get(60, TimeUnit.SECONDS);
                        } catch (java.util.concurrent.ExecutionException e) {
                            if (!isVictim) {
                                failures.add("register/deregister failed: " + e.getCause());
                            }
                        }
                    }
                }), "registrar-" + ci));
                all.add(new Thread(() -> run(start, finished, failures, () -> rdmaLoop(c, peer, isVictim, failures)),
                        "rdma-" + ci));
            }
            all.add(new Thread(() -> run(start, finished, failures, () -> {
                // close the victim in the middle of its traffic
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (okPerConnection.get(victim).get() < SENDERS * MESSAGES_PER_SENDER / 3
                        && System.nanoTime() < until) {
                    Thread.onSpinWait();
                    Thread.yield();
                }
                conns.get(victim).close().toCompletableFuture().get(60, TimeUnit.SECONDS);
                assertTrue(okPerConnection.get(victim).get() < SENDERS * MESSAGES_PER_SENDER,
                        "the victim closed while it still had traffic");
            }), "closer"));
            all.forEach(Thread::start);
            if (!finished.await(150, TimeUnit.SECONDS)) {
                throw new AssertionError("threads did not finish" + Rig.threadDump());
            }
            assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
            assertEquals(sends.get(), sendCallbacks.get(), "every send completed exactly once");
            assertEquals(0, badFailures.get());
            // everything sent on the surviving connections arrives
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int ci = 0; ci < CONNECTIONS; ci++) {
                if (ci == victim) {
                    continue;
                }
                assertEquals((long) SENDERS * MESSAGES_PER_SENDER, okPerConnection.get(ci).get(),
                        "all sends of a surviving connection succeed");
            }
            // survivors: everything arrives. The closed connection: what arrived is, per sender, an
            // in-order prefix (checked on arrival) of what was sent; a Send completion reports the
            // message placed in the peer's receive buffer, and the peer may have begun closing
            // before handing it up (no end-to-end acknowledgement in SMB Direct)
            Checker victimSide = serverCheckers.get(conns.get(victim).localAddress());
            long expected = succeeded.get() - okPerConnection.get(victim).get();
            while (serverSides.stream().filter(k -> k != victimSide).mapToLong(k -> k.received.get())
                    .sum() < expected) {
                if (System.nanoTime() > deadline) {
                    StringBuilder sb = new StringBuilder("messages missing:");
                    for (int ci = 0; ci < CONNECTIONS; ci++) {
                        Checker k = serverCheckers.get(conns.get(ci).localAddress());
                        sb.append("\n connection ").append(ci).append(ci == victim ? " (closed)" : "")
                                .append(": sent ok ").append(okPerConnection.get(ci).get()).append(", received ")
                                .append(k.received.get()).append(", per sender next ").append(k.next)
                                .append(", client DTO ").append(conns.get(ci).getConnectionDTO().messagesSent)
                                .append(" server DTO ").append(peers.get(ci).getConnectionDTO().messagesReceived);
                    }
                    throw new AssertionError(sb + Rig.threadDump());
                }
                Thread.onSpinWait();
                Thread.yield();
            }
            assertTrue(victimSide.received.get() <= okPerConnection.get(victim).get(), "nothing invented");
            assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
            CompletableFuture<Void> a = server.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "end"))
                    .toCompletableFuture();
            CompletableFuture<Void> b = client.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "end"))
                    .toCompletableFuture();
            a.get(60, TimeUnit.SECONDS);
            b.get(60, TimeUnit.SECONDS);
            for (Checker k : serverSides) {
                k.closed.get(60, TimeUnit.SECONDS);
                assertEquals(1, k.told.get(), "told once");
            }
            long leakDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!fabric.leaks().isEmpty() && System.nanoTime() < leakDeadline) {
                Thread.onSpinWait();
                Thread.yield();
            }
            fabric.assertNoLeaks();
        } finally {
            timer.shutdownNow();
        }
    }

    /** RDMA Write into the peer's registration and read it back, from one thread, while everything else runs. */
    private static void rdmaLoop(SmbDirectConnection c, SmbDirectConnection peer, boolean isVictim,
            List<String> failures) throws Exception {
        RegisteredBuffer target;
        RegisteredBuffer scratch;
        try {
            target = peer.register(ByteBuffer.allocateDirect(32768), RemoteAccess.READ_WRITE).toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            scratch = c.register(ByteBuffer.allocateDirect(32768), RemoteAccess.LOCAL_ONLY).toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!isVictim) {
                failures.add("RDMA setup failed: " + e.getCause());
            }
            return;
        }
        List<BufferDescriptor> remote = target.descriptors();
        SplittableRandom r = new SplittableRandom(c.id());
        ByteBuffer sb = scratch.buffer();
        for (int i = 0; i < 30; i++) {
            int len = 1 + r.nextInt(16384);
            byte[] pattern = new byte[len];
            r.nextBytes(pattern);
            for (int j = 0; j < len; j++) {
                sb.put(j, pattern[j]);
            }
            Throwable wt = rdma(c, true, scratch, 0, len, remote, failures);
            Throwable rt = wt != null ? wt : rdma(c, false, scratch, 16384, len, remote, failures);
            if (wt != null || rt != null) {
                Throwable t = wt != null ? wt : rt;
                if (!(isVictim && t instanceof SmbDirectException)) {
                    failures.add("RDMA failed on a surviving connection: " + t);
                }
                return;
            }
            for (int j = 0; j < len; j++) {
                if (sb.get(16384 + j) != pattern[j]) {
                    failures.add("RDMA read-back differs at " + j + " of " + len);
                    return;
                }
            }
        }
        if (!isVictim) {
            target.deregister().toCompletableFuture().get(60, TimeUnit.SECONDS);
            scratch.deregister().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    private static Throwable rdma(SmbDirectConnection c, boolean write, RegisteredBuffer local, int offset, int len,
            List<BufferDescriptor> remote, List<String> failures) throws Exception {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        AtomicInteger calls = new AtomicInteger();
        smbdirect.api.RdmaCompletionHandler k = (n, t) -> {
            if (calls.incrementAndGet() != 1) {
                failures.add("RDMA completion called twice");
            }
            done.complete(t);
        };
        if (write) {
            c.rdmaWrite(local, offset, len, remote, 0, k);
        } else {
            c.rdmaRead(local, offset, len, remote, 0, k);
        }
        return done.get(60, TimeUnit.SECONDS);
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void run(CyclicBarrier start, CountDownLatch finished, List<String> failures, Body body) {
        try {
            start.await(60, TimeUnit.SECONDS);
            body.run();
        } catch (Throwable t) {
            failures.add(Thread.currentThread().getName() + ": " + t);
        } finally {
            finished.countDown();
        }
    }
}
