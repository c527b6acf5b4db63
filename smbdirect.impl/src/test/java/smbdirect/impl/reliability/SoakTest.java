package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectException;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.impl.engine.TransportSettings;

/**
 * Soak: many connections in both roles with randomized traffic on a THREADED mock fabric (sizes 0
 * to MaxFragmentedSize in both directions, credit limits 1-255, short keepalive intervals, RDMA
 * writes read back against registered buffers), bounded by message count. Every message arrives
 * byte-exact and in order, the DTO counters add up and nothing leaks.
 *
 * <p>Short configuration (the test command): 20 connections x 200 messages per end. Long one:
 * {@code -Dsmbdirect.soak=long} (200 connections x 2000 messages per end).
 */
class SoakTest {

    private static final Logger LOG = LoggerFactory.getLogger(SoakTest.class);

    @Test
    @DisplayName("soak: byte-exact in-order delivery, counters, RDMA read-back and zero leaks under randomized traffic")
    void soak() throws Exception {
        boolean longRun = "long".equals(System.getProperty("smbdirect.soak"));
        int connections = longRun ? 200 : 20;
        int messagesPerEnd = longRun ? 2000 : 200;
        long seed = Long.getLong("smbdirect.soak.seed", System.nanoTime());
        LOG.info("soak: {} connections x {} messages per end, seed {}", connections, messagesPerEnd, seed);
        run(connections, messagesPerEnd, seed);
    }

    static void run(int connections, int messagesPerEnd, long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        TransportSettings base = TransportSettings.builder().keepaliveInterval(java.time.Duration.ofMillis(50))
                .keepaliveResponseTimeout(java.time.Duration.ofSeconds(60))
                .creditGrantTimeout(java.time.Duration.ofSeconds(60)).maxReceiveSize(4096).build();
        long started = System.nanoTime();
        try (Traffic t = new Traffic("soak", base)) {
            List<Traffic.End[]> pairs = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                // credit limits 1..255, per connection (settings apply to new connections)
                TransportSettings s = base.toBuilder().receiveCreditMax(1 + random.nextInt(255))
                        .sendCreditTarget(1 + random.nextInt(255)).build();
                t.a.updateSettings(s);
                t.b.updateSettings(s);
                pairs.add(t.connect(i % 2 == 0));
            }
            List<Traffic.End> ends = Traffic.flatten(pairs);
            CountDownLatch done = new CountDownLatch(ends.size());
            ExecutorService drivers = Executors.newFixedThreadPool(4, r -> {
                Thread th = new Thread(r, "soak-driver");
                th.setDaemon(true);
                return th;
            });
            List<Future<?>> work = new ArrayList<>();
            AtomicLong rdmaRounds = new AtomicLong();
            AtomicLong refusedEmpty = new AtomicLong();
            for (Traffic.End e : ends) {
                long endSeed = random.nextLong();
                work.add(drivers.submit(() -> {
                    drive(e, messagesPerEnd, endSeed, rdmaRounds, refusedEmpty);
                    done.countDown();
                    return null;
                }));
            }
            if (!done.await(170, TimeUnit.SECONDS)) {
                throw new AssertionError("drivers did not finish" + Rig.threadDump());
            }
            for (Future<?> f : work) {
                f.get();
            }
            drivers.shutdown();
            // every message sent arrives
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            for (Traffic.End e : ends) {
                while (e.received.get() < e.peer.sentMessages.get()) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError(e + " received " + e.received + " of " + e.peer.sentMessages
                                + Rig.threadDump());
                    }
                    Thread.onSpinWait();
                    Thread.yield();
                }
            }
            assertTrue(t.failures.isEmpty(), () -> String.join("\n", t.failures));
            long messages = 0;
            long bytes = 0;
            long keepalives = 0;
            for (Traffic.End e : ends) {
                ConnectionDTO d = e.c().getConnectionDTO();
                assertEquals(e.sentMessages.get(), d.messagesSent, e + " messagesSent");
                assertEquals(e.sentBytes.get(), d.bytesSent, e + " bytesSent");
                assertEquals(e.received.get(), d.messagesReceived, e + " messagesReceived");
                assertEquals(e.receivedBytes.get(), d.bytesReceived, e + " bytesReceived");
                assertEquals(e.peer.sentMessages.get(), e.received.get(), e + " got all its peer sent");
                assertTrue(e.peer.sentLog.isEmpty(), e + " nothing left unreceived");
                assertTrue(!e.closed.isDone(), e + " still open: " + e.closed.getNow(null));
                messages += d.messagesSent;
                bytes += d.bytesSent;
                keepalives += d.keepalivesSent;
            }
            CompletableFuture<Void> sa = t.a.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "soak end"))
                    .toCompletableFuture();
            CompletableFuture<Void> sb = t.b.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "soak end"))
                    .toCompletableFuture();
            sa.get(60, TimeUnit.SECONDS);
            sb.get(60, TimeUnit.SECONDS);
            t.listenA.close();
            t.listenB.close();
            long leakDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!t.fabric.leaks().isEmpty() && System.nanoTime() < leakDeadline) {
                Thread.onSpinWait();
                Thread.yield();
            }
            t.fabric.assertNoLeaks();
            for (Traffic.End e : ends) {
                assertTrue(e.closed.isDone(), e + " told of the shutdown");
            }
            assertTrue(t.failures.isEmpty(), () -> String.join("\n", t.failures));
            LOG.info("soak done in {} ms: {} messages, {} bytes, {} RDMA write+read rounds, {} empty sends refused,"
                    + " {} keepalives, seed {}", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), messages,
                    bytes, rdmaRounds.get(), refusedEmpty.get(), keepalives, seed);
        }
    }

    private static int size(SplittableRandom r, long maxFragmented) {
        int p = r.nextInt(1000);
        if (p < 10) {
            return 0;
        }
        if (p < 850) {
            return 1 + r.nextInt(4096);
        }
        if (p < 990) {
            return 4097 + r.nextInt(65536 - 4096);
        }
        return 1 + r.nextInt((int) Math.min(maxFragmented, Integer.MAX_VALUE - 1));
    }

    /** Sends {@code count} messages with up to 8 in flight, with an RDMA write + read-back every 16 messages. */
    private static void drive(Traffic.End e, int count, long seed, AtomicLong rdmaRounds, AtomicLong refusedEmpty)
            throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        Semaphore window = new Semaphore(8);
        var c = e.c();
        long maxFragmented = c.parameters().maxFragmentedSendSize();
        RegisteredBuffer target = c.register(ByteBuffer.allocateDirect(65536), RemoteAccess.READ_WRITE)
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        RegisteredBuffer scratch = c.register(ByteBuffer.allocateDirect(65536), RemoteAccess.LOCAL_ONLY)
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        e.target = target;
        for (int i = 0; i < count; i++) {
            int len = size(r, maxFragmented);
            if (len == 0) {
                CompletableFuture<Throwable> refused = new CompletableFuture<>();
                c.send(ByteBuffer.allocate(0), (m, t) -> refused.complete(t));
                Throwable t = refused.get(60, TimeUnit.SECONDS);
                assertTrue(t instanceof SmbDirectException se && se.kind() == SmbDirectException.Kind.INVALID_ARGUMENT,
                        "empty message refused: " + t);
                refusedEmpty.incrementAndGet();
                continue;
            }
            ByteBuffer m = Rig.message(len, r.nextLong());
            if (!window.tryAcquire(60, TimeUnit.SECONDS)) {
                throw new AssertionError(e + ": send window stuck" + Rig.threadDump());
            }
            e.logSend(m);
            c.send(m, (msg, t) -> {
                if (t == null) {
                    e.sentMessages.incrementAndGet();
                    e.sentBytes.addAndGet(len);
                } else {
                    e.failures().add(e + ": send failed: " + t);
                }
                window.release();
            });
            if (i % 16 == 15) {
                rdmaRound(e, scratch, r);
                rdmaRounds.incrementAndGet();
            }
        }
        if (!window.tryAcquire(8, 60, TimeUnit.SECONDS)) {
            throw new AssertionError(e + ": sends never completed" + Rig.threadDump());
        }
        scratch.deregister().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    /** RDMA Write a random range of {@code scratch} into the peer's target, read it back, compare. */
    private static void rdmaRound(Traffic.End e, RegisteredBuffer scratch, SplittableRandom r) throws Exception {
        RegisteredBuffer remote = e.peer.target;
        if (remote == null) {
            return; // the peer's driver has not registered yet
        }
        List<BufferDescriptor> desc = remote.descriptors();
        int len = 1 + r.nextInt(16384);
        int remoteOffset = r.nextInt(65536 - len);
        ByteBuffer s = scratch.buffer();
        byte[] pattern = new byte[len];
        r.nextBytes(pattern);
        for (int i = 0; i < len; i++) {
            s.put(i, pattern[i]);
        }
        CompletableFuture<Throwable> w = new CompletableFuture<>();
        e.c().rdmaWrite(scratch, 0, len, desc, remoteOffset, (n, t) -> w.complete(t));
        Throwable wt = w.get(60, TimeUnit.SECONDS);
        if (wt != null) {
            throw new AssertionError(e + ": RDMA Write failed", wt);
        }
        CompletableFuture<Throwable> rd = new CompletableFuture<>();
        e.c().rdmaRead(scratch, 32768, len, desc, remoteOffset, (n, t) -> rd.complete(t));
        Throwable rt = rd.get(60, TimeUnit.SECONDS);
        if (rt != null) {
            throw new AssertionError(e + ": RDMA Read failed", rt);
        }
        byte[] back = new byte[len];
        for (int i = 0; i < len; i++) {
            back[i] = s.get(32768 + i);
        }
        assertArrayEquals(pattern, back, e + ": RDMA read-back");
    }
}
