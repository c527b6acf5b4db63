package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.tck.TckRecorder;
import smbdirect.testsupport.AllocationCounter;

class DeliveryModeTest {

    /** Sends one side may have outstanding: well under the 32 receives each side posts. */
    private static final int WINDOW = 16;
    /** How long a sender may wait for a freed receive or queue slot before the run is taken as hung. */
    private static final long NO_PROGRESS_SECONDS = 30;

    /** On each received message: repost the receive and answer, until {@code limit} messages arrived. */
    private static void echo(TckRecorder r, RdmaEndpoint[] ep, List<MemoryRegion> receives, MemoryRegion[] src,
            int limit, AtomicInteger count, CountDownLatch done) {
        r.onCompletion = wc -> {
            if (wc.type() != WorkRequestType.RECEIVE || wc.status() != CompletionStatus.SUCCESS) {
                return;
            }
            int n = count.incrementAndGet();
            try {
                int index = (int) (wc.wrId() - 1000);
                ep[0].postReceive(receives.get(index), 0, receives.get(index).length(), wc.wrId());
                if (n < limit) {
                    ep[0].postSend(src[0], 0, 8, n);
                } else {
                    done.countDown();
                }
            } catch (RdmaException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    @Test
    void stepIsOnlyForDeterministicFabrics() {
        MockFabric inline = MockFabric.builder().mode(DeliveryMode.INLINE).build();
        assertThrows(IllegalStateException.class, inline::step);
        assertThrows(IllegalStateException.class, inline::runUntilIdle);
        assertEquals(0, inline.pendingActions());
        inline.close();
    }

    @Test
    void inlineDeliversInsideThePostCall() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.INLINE).build());
        f.client.reentrantAllowed(true);
        f.server.reentrantAllowed(true);
        f.connect();
        assertEquals(List.of("established"), f.client.events(), "established before connect returned");
        MemoryRegion src = Fixture.region(f.clientEp, new byte[8]);
        f.clientEp.postSend(src, 0, 8, 1);
        assertEquals(1, f.client.completions(WorkRequestType.SEND).size());
        assertEquals(1, f.server.completions(WorkRequestType.RECEIVE).size());
        f.closeAll();
    }

    @Test
    void inlineHandlersMayPostReentrantlyWithoutOverflowingTheStack() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.INLINE).build());
        f.client.reentrantAllowed(true);
        f.server.reentrantAllowed(true);
        f.connect();
        int limit = 20_000;
        AtomicInteger count = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        MemoryRegion[] clientSrc = {Fixture.region(f.clientEp, new byte[8])};
        MemoryRegion[] serverSrc = {Fixture.region(f.serverEp, new byte[8])};
        // the fixture posted 4 receives per side with wrIds 1000..1003
        echo(f.client, new RdmaEndpoint[] {f.clientEp}, f.clientReceiveRegions, clientSrc, limit, count, done);
        echo(f.server, new RdmaEndpoint[] {f.serverEp}, f.serverReceiveRegions, serverSrc, limit, count, done);
        f.clientEp.postSend(clientSrc[0], 0, 8, 0);
        assertEquals(0, done.getCount(), "the whole ping-pong ran inside the first post");
        assertEquals(limit, count.get());
        assertTrue(f.client.completions(WorkRequestType.RECEIVE).stream().allMatch(c -> c.status() == CompletionStatus.SUCCESS));
        assertEquals(MockEndpoint.State.CONNECTED, f.clientEp.state());
        f.closeAll();
    }

    @Test
    void inlineSteadyStateDoesNotAllocate() throws Exception {
        AllocationCounter mx = AllocationCounter.enabled();
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.INLINE).build());
        f.serverReceives = 1;
        f.connect();
        MemoryRegion receive = f.serverReceiveRegions.get(0);
        MemoryRegion src = Fixture.region(f.clientEp, new byte[512]);
        MemoryRegion target = f.serverEp.register(java.nio.ByteBuffer.allocateDirect(512),
                Set.of(smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE, smbdirect.api.rdma.MemoryAccess.REMOTE_WRITE));
        RdmaEndpoint server = f.serverEp;
        f.server.onCompletion = wc -> repost(server, receive, wc);
        f.client.onCompletion = wc -> { };
        Runnable round = () -> {
            try {
                f.clientEp.postSend(src, 0, 512, 1);
                f.clientEp.postRdmaWrite(src, 0, 512, target.address(), target.token(), 2);
            } catch (RdmaException e) {
                throw new IllegalStateException(e);
            }
        };
        f.client.recording(false);
        f.server.recording(false);
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        long tid = Thread.currentThread().getId();
        long before = mx.bytes(tid);
        for (int i = 0; i < 100_000; i++) {
            round.run();
        }
        long allocated = mx.bytes(tid) - before;
        assertTrue(allocated < 100_000, "200000 operations allocated " + allocated + " bytes");
        f.closeAll();
    }

    private static void repost(RdmaEndpoint server, MemoryRegion receive, WorkCompletion wc) {
        if (wc.type() == WorkRequestType.RECEIVE && wc.status() == CompletionStatus.SUCCESS) {
            try {
                server.postReceive(receive, 0, receive.length(), wc.wrId());
            } catch (RdmaException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void threadedDeliversInOrderOnNamedDaemonThreadsNeverConcurrentlyPerEndpoint() throws Exception {
        MockFabric fabric = MockFabric.builder().name("thr").mode(DeliveryMode.THREADED).completionThreads(3).build();
        Fixture f = new Fixture(fabric);
        f.clientConfig = new EndpointSettings(64, 64);
        f.serverConfig = new EndpointSettings(64, 64);
        f.serverReceives = 0;
        f.clientReceives = 0;
        f.connect();
        assertTrue(f.client.awaitEstablished(5, TimeUnit.SECONDS));
        int messages = 2000;
        CountDownLatch clientDone = new CountDownLatch(messages);
        CountDownLatch serverDone = new CountDownLatch(messages);
        AtomicInteger clientNext = new AtomicInteger(100_000);
        AtomicInteger serverNext = new AtomicInteger(100_000);
        List<String> orderErrors = java.util.Collections.synchronizedList(new ArrayList<>());
        MemoryRegion clientRecv = f.clientEp.register(java.nio.ByteBuffer.allocateDirect(8),
                Set.of(smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE));
        MemoryRegion serverRecv = f.serverEp.register(java.nio.ByteBuffer.allocateDirect(8),
                Set.of(smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE));
        CountDownLatch clientSent = new CountDownLatch(messages);
        CountDownLatch serverSent = new CountDownLatch(messages);
        // a receive the server reposts frees one Send of the client, and the other way round; a Send's
        // completion frees a slot of its sender's queue
        Semaphore clientMayPost = new Semaphore(WINDOW);
        Semaphore serverMayPost = new Semaphore(WINDOW);
        Semaphore clientSlots = new Semaphore(WINDOW);
        Semaphore serverSlots = new Semaphore(WINDOW);
        f.client.onCompletion = wc -> checkOrder(wc, clientNext, orderErrors, clientDone, clientSent, f.clientEp,
                clientRecv, clientSlots, serverMayPost);
        f.server.onCompletion = wc -> checkOrder(wc, serverNext, orderErrors, serverDone, serverSent, f.serverEp,
                serverRecv, serverSlots, clientMayPost);
        for (int i = 0; i < 32; i++) {
            f.clientEp.postReceive(clientRecv, 0, 8, i);
            f.serverEp.postReceive(serverRecv, 0, 8, i);
        }
        MemoryRegion cs = Fixture.region(f.clientEp, new byte[8]);
        MemoryRegion ss = Fixture.region(f.serverEp, new byte[8]);
        // both sides send from their own threads; the fabric must keep every queue in order
        Thread a = new Thread(() -> pump(f.clientEp, cs, messages, clientMayPost, clientSlots, orderErrors));
        Thread b = new Thread(() -> pump(f.serverEp, ss, messages, serverMayPost, serverSlots, orderErrors));
        a.start();
        b.start();
        a.join(TimeUnit.SECONDS.toMillis(2 * NO_PROGRESS_SECONDS));
        b.join(TimeUnit.SECONDS.toMillis(2 * NO_PROGRESS_SECONDS));
        assertFalse(a.isAlive() || b.isAlive(), "the senders did not end: " + orderErrors);
        assertEquals(List.of(), orderErrors);
        assertTrue(clientDone.await(10, TimeUnit.SECONDS), "client received " + (messages - clientDone.getCount()));
        assertTrue(serverDone.await(10, TimeUnit.SECONDS), "server received " + (messages - serverDone.getCount()));
        // a Send's completion and the peer's receive completion are delivered by different threads
        assertTrue(clientSent.await(10, TimeUnit.SECONDS),
                "client Sends completed " + (messages - clientSent.getCount()));
        assertTrue(serverSent.await(10, TimeUnit.SECONDS),
                "server Sends completed " + (messages - serverSent.getCount()));
        assertEquals(100_000 + messages, clientNext.get(), "every Send completed once");
        assertEquals(100_000 + messages, serverNext.get(), "every Send completed once");
        assertEquals(List.of(), orderErrors);
        assertFalse(f.client.overlapped());
        assertFalse(f.server.overlapped());
        Set<String> threads = new java.util.HashSet<>();
        f.client.completions().forEach(c -> threads.add(c.thread()));
        assertTrue(threads.stream().allMatch(t -> t.startsWith("smbdirect-mock-thr-")), threads.toString());
        f.clientEp.disconnect();
        assertTrue(f.server.awaitDisconnected(5, TimeUnit.SECONDS));
        assertTrue(f.client.awaitDisconnected(5, TimeUnit.SECONDS));
        assertEquals(DisconnectCause.PEER, f.server.cause());
        f.closeAll();
        assertTrue(Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("smbdirect-mock-thr-") && t.isAlive()), "threads stopped");
    }

    /** Sends {@code count} messages, each only when the peer has a receive posted (credit-like). */
    /**
     * Posts {@code count} Sends, each once the peer has a receive free for it ({@code freed}: one
     * permit per receive the peer reposted) and the sender a queue slot ({@code slots}: one per Send
     * completed), {@link #WINDOW} of each at first; blocks meanwhile instead of spinning, which would
     * take the CPU the fabric's completion threads need. Fails into {@code errors} when nothing is
     * freed for {@link #NO_PROGRESS_SECONDS} (a hang, not a rate).
     */
    private static void pump(MockEndpoint ep, MemoryRegion src, int count, Semaphore freed, Semaphore slots,
            List<String> errors) {
        try {
            for (int sent = 0; sent < count; sent++) {
                if (!freed.tryAcquire(NO_PROGRESS_SECONDS, TimeUnit.SECONDS)
                        || !slots.tryAcquire(NO_PROGRESS_SECONDS, TimeUnit.SECONDS)) {
                    errors.add("nothing freed for " + NO_PROGRESS_SECONDS + " s after " + sent + " Sends");
                    return;
                }
                ep.postSend(src, 0, 8, 100_000 + sent);
            }
        } catch (RdmaException e) {
            errors.add("postSend failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Checks a completion of {@code ep}; a Send's frees one of its send slots ({@code ownSlots}), a
     * receive (reposted) frees one Send of the peer ({@code peerMayPost}).
     */
    private static void checkOrder(WorkCompletion wc, AtomicInteger nextSend, List<String> errors,
            CountDownLatch received, CountDownLatch sent, MockEndpoint ep, MemoryRegion recv, Semaphore ownSlots,
            Semaphore peerMayPost) {
        if (wc.status() != CompletionStatus.SUCCESS) {
            errors.add("unexpected " + wc);
            return;
        }
        if (wc.type() == WorkRequestType.SEND) {
            int expected = nextSend.getAndIncrement();
            if (wc.wrId() != expected) {
                errors.add("Send completion " + wc.wrId() + " arrived where " + expected + " was due");
            }
            sent.countDown();
            ownSlots.release();
        } else if (wc.type() == WorkRequestType.RECEIVE) {
            if (wc.byteLength() != 8) {
                errors.add("receive of " + wc.byteLength() + " bytes");
            }
            try {
                ep.postReceive(recv, 0, 8, wc.wrId());
            } catch (RdmaException e) {
                errors.add(e.getMessage());
            }
            received.countDown();
            peerMayPost.release();
        }
    }
}
