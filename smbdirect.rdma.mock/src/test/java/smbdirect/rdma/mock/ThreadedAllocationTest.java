package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointConfig;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.testsupport.AllocationCounter;

/**
 * THREADED delivery allocates nothing per operation in steady state, counted with the JVM's
 * per-thread allocation counter on every thread involved: the posting (test) thread and the
 * fabric's completion threads (found by their documented names {@code smbdirect-mock-<fabric>-<n>}).
 */
class ThreadedAllocationTest {

    private static final int WARM_UP = 20_000;
    private static final int ROUNDS = 50_000;
    private static final int PARKED_ROUNDS = 5_000;
    /** For all threads together over a whole measured run: well under 1 byte per operation. */
    private static final long BOUND = 4096;
    private static final int COMPLETION_THREADS = 2;
    /**
     * How long one operation may make no progress before the run is taken as hung: a bound per
     * operation, not for the whole run (50,000 round trips take longer than that beside other builds).
     */
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private MockFabric fabric;
    private RdmaListener listener;
    private Side client;
    private Side server;

    @AfterEach
    void tearDown() {
        if (fabric == null) {
            return;
        }
        if (client != null && client.endpoint != null) {
            client.endpoint.close();
        }
        if (server != null && server.endpoint != null) {
            server.endpoint.close();
        }
        if (listener != null) {
            listener.close();
        }
        fabric.close();
    }

    @Test
    void pingPongSendsAllocateNothingOnAnyThread() throws Exception {
        AllocationCounter counter = AllocationCounter.enabled();
        connect("alloc-sends", true);
        pingPong(WARM_UP);
        long[] threads = involvedThreads();
        long before = counter.total(threads);
        pingPong(ROUNDS);
        long allocated = counter.total(threads) - before;
        assertNull(client.failure);
        assertNull(server.failure);
        assertEquals(WARM_UP + ROUNDS, server.received);
        assertTrue(allocated < BOUND, "THREADED ping-pong allocated " + allocated + " bytes in " + ROUNDS
                + " round trips on the test thread and the completion threads");
    }

    @Test
    void rdmaWritesAllocateNothingOnAnyThread() throws Exception {
        AllocationCounter counter = AllocationCounter.enabled();
        connect("alloc-writes", false);
        writes(WARM_UP, false);
        long[] threads = involvedThreads();
        long before = counter.total(threads);
        writes(ROUNDS, false);
        long allocated = counter.total(threads) - before;
        assertNull(client.failure);
        assertEquals(WARM_UP + ROUNDS, client.writesCompleted);
        assertTrue(allocated < BOUND, "THREADED RDMA Writes allocated " + allocated + " bytes in " + ROUNDS
                + " writes on the test thread and the completion threads");
    }

    @Test
    void wakingParkedCompletionThreadsAllocatesNothing() throws Exception {
        AllocationCounter counter = AllocationCounter.enabled();
        connect("alloc-parked", false);
        writes(PARKED_ROUNDS, true);
        long[] threads = involvedThreads();
        long before = counter.total(threads);
        writes(PARKED_ROUNDS, true);
        long allocated = counter.total(threads) - before;
        assertNull(client.failure);
        assertEquals(2 * PARKED_ROUNDS, client.writesCompleted);
        assertTrue(allocated < BOUND, "THREADED RDMA Writes, each to parked completion threads, allocated "
                + allocated + " bytes in " + PARKED_ROUNDS + " writes");
    }

    // ---------------------------------------------------------------- workload (allocation-free)

    private void pingPong(int rounds) {
        for (int i = 0; i < rounds; i++) {
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            long expected = client.received + 1;
            client.send(8);
            int spins = 0;
            while (client.received < expected) {
                spins = idle(spins, deadline, "an echo");
            }
        }
    }

    private void writes(int rounds, boolean toParkedThreads) throws RdmaException {
        for (int i = 0; i < rounds; i++) {
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            if (toParkedThreads) {
                int spins = 0;
                while (!completionThreadsParked()) {
                    spins = idle(spins, deadline, "the completion threads to park");
                }
            }
            long expected = client.writesCompleted + 1;
            client.endpoint.postRdmaWrite(client.send, 0, 64, server.writeAddress, server.writeToken, expected);
            int spins = 0;
            while (client.writesCompleted < expected) {
                spins = idle(spins, deadline, "an RDMA Write completion");
            }
        }
    }

    private Thread[] completionThreads;

    private boolean completionThreadsParked() {
        for (Thread t : completionThreads) {
            if (t.getState() != Thread.State.WAITING) {
                return false;
            }
        }
        return true;
    }

    private static int idle(int spins, long deadline, String what) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
            if ((spins & 0x3ff) == 0 && System.nanoTime() > deadline) {
                throw new AssertionError("no progress waiting for " + what);
            }
        }
        return spins + 1;
    }

    // ---------------------------------------------------------------- setup

    /** The test thread and every completion thread of the fabric (all must exist by now). */
    private long[] involvedThreads() {
        String prefix = "smbdirect-mock-" + fabric.name() + "-";
        List<Thread> found = AllocationCounter.threadsNamed(prefix);
        assertEquals(COMPLETION_THREADS, found.size(), "completion threads of " + fabric.name() + ": " + found);
        completionThreads = found.toArray(new Thread[0]);
        return AllocationCounter.idsAndCurrent(found);
    }

    private void connect(String name, boolean echo) throws Exception {
        fabric = MockFabric.builder().name(name).mode(DeliveryMode.THREADED).completionThreads(COMPLETION_THREADS)
                .build();
        MockProvider serverDevice = fabric.provider("server");
        MockProvider clientDevice = fabric.provider("client");
        client = new Side(false);
        server = new Side(echo);
        EndpointConfig config = new EndpointConfig(16, 16);
        CompletableFuture<Void> accepted = new CompletableFuture<>();
        listener = serverDevice.listen(new InetSocketAddress(serverDevice.address(), 445), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                try {
                    RdmaEndpoint ep = request.createEndpoint(config, server);
                    server.start(ep);
                    ep.accept(new ConnectParameters(null, 8, 8));
                    accepted.complete(null);
                } catch (RdmaException e) {
                    accepted.completeExceptionally(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                accepted.completeExceptionally(new IllegalStateException(cause + " " + detail));
            }
        });
        RdmaEndpoint ep = clientDevice.createEndpoint(config, client);
        client.start(ep);
        ep.connect(listener.localAddress(), new ConnectParameters(null, 8, 8));
        accepted.get(10, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int spins = 0;
        while (!client.established || !server.established) {
            spins = idle(spins, deadline, "establishment");
        }
        if (!echo) {
            involvedThreads(); // completion threads for the parked-thread check
        }
    }

    /** One end: 8 receives of 64 bytes reposted at once, a send region, a remotely writable region. */
    private static final class Side implements RdmaEndpointHandler {
        private static final int RECEIVES = 8;
        private static final int SIZE = 64;
        private final boolean echo;
        RdmaEndpoint endpoint;
        MemoryRegion receive;
        MemoryRegion send;
        long writeAddress;
        int writeToken;
        volatile boolean established;
        volatile long received;
        volatile long writesCompleted;
        volatile String failure;
        private long sendWrId;

        Side(boolean echo) {
            this.echo = echo;
        }

        void start(RdmaEndpoint ep) throws RdmaException {
            endpoint = ep;
            receive = ep.register(ByteBuffer.allocateDirect(RECEIVES * SIZE), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            send = ep.register(ByteBuffer.allocateDirect(SIZE), EnumSet.noneOf(MemoryAccess.class));
            MemoryRegion target = ep.register(ByteBuffer.allocateDirect(SIZE),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
            writeAddress = target.address();
            writeToken = target.token();
            for (int i = 0; i < RECEIVES; i++) {
                ep.postReceive(receive, i * SIZE, SIZE, i);
            }
        }

        void send(int length) {
            try {
                endpoint.postSend(send, 0, length, ++sendWrId);
            } catch (RdmaException e) {
                throw new AssertionError("postSend failed", e);
            }
        }

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            established = true;
        }

        @Override
        public void onCompletion(WorkCompletion wc) {
            if (wc.status() != CompletionStatus.SUCCESS) {
                if (failure == null) {
                    failure = wc.type() + " completed with " + wc.status();
                }
                return;
            }
            if (wc.type() == WorkRequestType.RECEIVE) {
                long slot = wc.wrId();
                try {
                    endpoint.postReceive(receive, (int) slot * SIZE, SIZE, slot);
                    if (echo) {
                        endpoint.postSend(send, 0, 8, ++sendWrId);
                    }
                } catch (RdmaException e) {
                    failure = "repost failed: " + e.getMessage();
                }
                received = received + 1; // one writer: callbacks of one endpoint never run concurrently
            } else if (wc.type() == WorkRequestType.RDMA_WRITE) {
                writesCompleted = writesCompleted + 1;
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            // torn down by the test
        }
    }
}
