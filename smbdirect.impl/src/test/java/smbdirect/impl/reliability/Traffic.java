package smbdirect.impl.reliability;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * Two engines on a THREADED mock fabric in wall-clock time, each listening, with connections in
 * both directions whose ends verify what they receive against what the other end sent: every
 * message must arrive byte-exact (length and CRC32C) and in send order. Thread-safe.
 */
final class Traffic implements AutoCloseable {

    final MockFabric fabric;
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "soak-timer");
        t.setDaemon(true);
        return t;
    });
    final SmbDirectEngine a;
    final SmbDirectEngine b;
    final SmbDirectListener listenA;
    final SmbDirectListener listenB;
    /** Ends accepted by either listener, matched to their connecting end by the connecting end's local address. */
    final List<End> accepted = new CopyOnWriteArrayList<>();
    final List<String> failures = new CopyOnWriteArrayList<>();

    Traffic(String name, TransportSettings settings) throws Exception {
        fabric = MockFabric.builder().name(name).mode(DeliveryMode.THREADED).completionThreads(2).build();
        MockProvider da = fabric.provider("a");
        MockProvider db = fabric.provider("b");
        a = new SmbDirectEngine(da, settings, new ExecutorScheduler(timer));
        b = new SmbDirectEngine(db, settings, new ExecutorScheduler(timer));
        listenA = a.listen(new InetSocketAddress(da.address(), 0), this::accept);
        listenB = b.listen(new InetSocketAddress(db.address(), 0), this::accept);
    }

    private ConnectionHandler accept(SmbDirectConnection c) {
        End e = new End("passive-" + c.id());
        e.connection.complete(c);
        accepted.add(e);
        return e;
    }

    /** Connects from {@code from} to the other engine and returns both ends once both are negotiated. */
    End[] connect(boolean fromA) throws Exception {
        SmbDirectEngine from = fromA ? a : b;
        InetSocketAddress to = fromA ? listenB.localAddress() : listenA.localAddress();
        End active = new End("active");
        SmbDirectConnection c = from.connect(to, Duration.ofSeconds(60), active).toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
        active.connection.complete(c);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (;;) {
            for (End e : accepted) {
                SmbDirectConnection pc = e.connection.getNow(null);
                if (pc != null && pc.peerAddress().equals(c.localAddress())) {
                    active.peer = e;
                    e.peer = active;
                    return new End[] {active, e};
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("passive end of " + c.localAddress() + " never accepted" + Rig.threadDump());
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        fabric.close();
        timer.shutdownNow();
    }

    /** What one end sent, in order, so the other end can check arrival. */
    record Sent(int length, long crc) {
    }

    /** One connection end: verifies arrivals against its peer's send log. */
    final class End implements ConnectionHandler {
        final String name;
        final CompletableFuture<SmbDirectConnection> connection = new CompletableFuture<>();
        final Queue<Sent> sentLog = new ConcurrentLinkedQueue<>();
        final AtomicLong sentMessages = new AtomicLong();
        final AtomicLong sentBytes = new AtomicLong();
        final AtomicLong received = new AtomicLong();
        final AtomicLong receivedBytes = new AtomicLong();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
        volatile End peer;
        volatile smbdirect.api.RegisteredBuffer target;
        volatile CountDownLatch arrivals;

        End(String name) {
            this.name = name;
        }

        SmbDirectConnection c() {
            return connection.join();
        }

        List<String> failures() {
            return failures;
        }

        /** Records the message as sent before handing it over, so arrival can never overtake the log. */
        void logSend(ByteBuffer m) {
            sentLog.add(new Sent(m.remaining(), Rig.crc(m)));
        }

        @Override
        public void onMessage(SmbDirectConnection conn, ReceivedMessage m) {
            End p = peer;
            Sent want = p == null ? null : p.sentLog.poll();
            long crc = Rig.crc(m.payload());
            if (want == null) {
                failures.add(name + ": unexpected message of " + m.length() + " bytes");
            } else if (want.length != m.length() || want.crc != crc) {
                failures.add(name + ": message " + received.get() + " expected " + want + " got length " + m.length()
                        + " crc " + crc);
            }
            received.incrementAndGet();
            receivedBytes.addAndGet(m.length());
            CountDownLatch l = arrivals;
            if (l != null) {
                l.countDown();
            }
        }

        @Override
        public void onDisconnected(SmbDirectConnection conn, CloseReason reason) {
            if (!closed.complete(reason)) {
                failures.add(name + ": told twice, again with " + reason);
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static List<End> flatten(List<End[]> pairs) {
        List<End> out = new ArrayList<>();
        for (End[] p : pairs) {
            out.add(p[0]);
            out.add(p[1]);
        }
        return out;
    }
}
