package smbdirect.rdma.iwarp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * Several threads post Sends on one endpoint at once (the SPI is thread-safe): every accepted post
 * completes exactly once, each thread's posts complete and arrive in the order it posted them, the
 * receiver gets every message once, and no endpoint's callbacks ever overlap.
 */
class ConcurrentPostingTest {

    private static final int THREADS = 4;
    private static final int PER_THREAD = 5_000;
    private static final int RECEIVES = 64;

    /** Fails the test when two callbacks of one endpoint overlap. */
    private abstract static class Exclusive implements RdmaEndpointHandler {
        private final AtomicBoolean inside = new AtomicBoolean();
        volatile boolean overlapped;

        final void enter() {
            if (!inside.compareAndSet(false, true)) {
                overlapped = true;
            }
        }

        final void leave() {
            inside.set(false);
        }

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        }
    }

    @Test
    void postsFromManyThreadsCompleteOnceEachInEachThreadsOrder() throws Exception {
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").build();
        long[] lastSeqAtServer = new long[THREADS];
        java.util.Arrays.fill(lastSeqAtServer, -1);
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong received = new AtomicLong();
        java.util.concurrent.Semaphore credits = new java.util.concurrent.Semaphore(RECEIVES);
        try (IwarpProvider a = IwarpProvider.open("concurrent-client", settings);
                IwarpProvider b = IwarpProvider.open("concurrent-server", settings)) {
            RdmaEndpoint[] serverEp = new RdmaEndpoint[1];
            MemoryRegion[] serverReceives = new MemoryRegion[1];
            Exclusive server = new Exclusive() {
                @Override
                public void onCompletion(WorkCompletion wc) {
                    enter();
                    try {
                        if (wc.status() != CompletionStatus.SUCCESS) {
                            errors.add("server " + wc);
                            return;
                        }
                        ByteBuffer m = serverReceives[0].buffer();
                        int slot = (int) wc.wrId();
                        int thread = m.getInt(slot * 8);
                        int seq = m.getInt(slot * 8 + 4);
                        if (seq != lastSeqAtServer[thread] + 1) {
                            errors.add("thread " + thread + " message " + seq + " after " + lastSeqAtServer[thread]);
                        }
                        lastSeqAtServer[thread] = seq;
                        received.incrementAndGet();
                        serverEp[0].postReceive(serverReceives[0], slot * 8, 8, slot);
                        credits.release();
                    } catch (RdmaException e) {
                        errors.add(e.toString());
                    } finally {
                        leave();
                    }
                }
            };
            CompletableFuture<Void> accepted = new CompletableFuture<>();
            InetSocketAddress address = b.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
                @Override
                public void onConnectRequest(RdmaConnectRequest request) {
                    try {
                        RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(4, RECEIVES), server);
                        serverReceives[0] = ep.register(ByteBuffer.allocateDirect(RECEIVES * 8),
                                EnumSet.of(MemoryAccess.LOCAL_WRITE));
                        for (int i = 0; i < RECEIVES; i++) {
                            ep.postReceive(serverReceives[0], i * 8, 8, i);
                        }
                        serverEp[0] = ep;
                        ep.accept(new ConnectParameters(null, 1, 1));
                        accepted.complete(null);
                    } catch (RdmaException e) {
                        accepted.completeExceptionally(e);
                    }
                }

                @Override
                public void onListenerFailed(DisconnectCause cause, String detail) {
                }
            }).localAddress();
            java.util.concurrent.atomic.AtomicLongArray lastCompleted = new java.util.concurrent.atomic.AtomicLongArray(THREADS);
            for (int t = 0; t < THREADS; t++) {
                lastCompleted.set(t, -1);
            }
            AtomicLong completed = new AtomicLong();
            CompletableFuture<Void> up = new CompletableFuture<>();
            Exclusive client = new Exclusive() {
                @Override
                public void onEstablished(ByteBuffer peerPrivateData) {
                    up.complete(null);
                }

                @Override
                public void onCompletion(WorkCompletion wc) {
                    enter();
                    try {
                        int thread = (int) (wc.wrId() >>> 32);
                        long seq = wc.wrId() & 0xFFFF_FFFFL;
                        if (wc.type() != WorkRequestType.SEND || wc.status() != CompletionStatus.SUCCESS
                                || seq != lastCompleted.get(thread) + 1) {
                            errors.add("client " + wc + " after " + lastCompleted.get(thread));
                        }
                        lastCompleted.set(thread, seq);
                        completed.incrementAndGet();
                    } finally {
                        leave();
                    }
                }
            };
            // the send queue is deeper than the receiver's window: the senders are throttled by credits below
            RdmaEndpoint ep = a.createEndpoint(new EndpointSettings(32, 1), client);
            ep.connect(address, new ConnectParameters(null, 1, 1));
            up.get(10, TimeUnit.SECONDS);
            accepted.get(10, TimeUnit.SECONDS);
            List<Thread> posters = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Thread p = new Thread(() -> {
                    try {
                        MemoryRegion src = ep.register(ByteBuffer.allocateDirect(8 * 64), EnumSet.noneOf(MemoryAccess.class));
                        for (int seq = 0; seq < PER_THREAD; seq++) {
                            int at = (seq % 64) * 8;
                            // wait for an earlier Send from this slot to have completed before reusing it
                            while (seq >= 64 && lastCompleted.get(thread) < seq - 64) {
                                Thread.onSpinWait();
                            }
                            src.buffer().putInt(at, thread).putInt(at + 4, seq);
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                            // a receive must be free at the peer (it releases a credit after reposting)
                            if (!credits.tryAcquire(20, TimeUnit.SECONDS)) {
                                throw new AssertionError("no credit");
                            }
                            while (true) {
                                try {
                                    ep.postSend(src, at, 8, ((long) thread << 32) | seq);
                                    break;
                                } catch (RdmaException full) {
                                    if (!full.getMessage().contains("full") || System.nanoTime() > deadline) {
                                        throw full;
                                    }
                                    Thread.onSpinWait();
                                }
                            }
                        }
                    } catch (RdmaException | RuntimeException | AssertionError | InterruptedException e) {
                        errors.add("poster " + thread + ": " + e);
                    }
                }, "poster-" + t);
                posters.add(p);
                p.start();
            }
            for (Thread p : posters) {
                p.join(60_000);
                assertFalse(p.isAlive(), "poster stuck");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((completed.get() < THREADS * PER_THREAD || received.get() < THREADS * PER_THREAD)
                    && System.nanoTime() < deadline && errors.isEmpty()) {
                Thread.onSpinWait();
            }
            assertEquals(List.of(), errors);
            assertEquals(THREADS * PER_THREAD, completed.get());
            assertEquals(THREADS * PER_THREAD, received.get());
            assertFalse(client.overlapped || server.overlapped, "callbacks of one endpoint overlapped");
            assertTrue(b.statistics().terminatesSent() == 0);
            ep.close();
            serverEp[0].close();
        }
    }
}
