package smbdirect.rdma.iwarp.internal;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.testsupport.AllocationCounter;

/**
 * Steady-state operations allocate nothing, counted exactly with the JVM's per-thread allocation
 * counter on every thread involved: the posting (test) thread and the I/O threads of both providers
 * (found by their documented names {@code smbdirect-iwarp-<instance>-io-<n>}). Ping-pong Sends
 * (posted from the receive callback, so the hand-off and the in-loop path both run), RDMA Writes
 * and RDMA Reads of 64 KiB (several FPDUs per message, gathering writes and scattering reads), and
 * streamed Sends, up to 8 in flight, every fourth shorter than the others (the receiver's read
 * ahead into posted receives, its predictions holding and failing), with CRC32C on.
 */
class SteadyStateAllocationTest {

    private static final int WARM_UP = 20_000;
    private static final int ROUNDS = 20_000;
    /** 64 KiB RDMA operations are 46 FPDUs each at the default FPDU size: fewer make the same paths hot. */
    private static final int RDMA_ROUNDS = 4_000;
    /** For all threads together over a whole measured run: well under 1 byte per operation. */
    private static final long BOUND = 4096;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private IwarpProvider clientProvider;
    private IwarpProvider serverProvider;
    private RdmaListener listener;
    private Side client;
    private Side server;

    @AfterEach
    void tearDown() {
        if (client != null && client.endpoint != null) {
            client.endpoint.close();
        }
        if (server != null && server.endpoint != null) {
            server.endpoint.close();
        }
        if (listener != null) {
            listener.close();
        }
        if (clientProvider != null) {
            clientProvider.close();
        }
        if (serverProvider != null) {
            serverProvider.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sends", "streamed sends", "writes", "reads"})
    void steadyStateOperationsAllocateNothingOnAnyThread(String workload) throws Exception {
        AllocationCounter counter = AllocationCounter.enabled();
        connect(workload.equals("sends"));
        boolean sends = workload.endsWith("sends");
        run(workload, sends ? WARM_UP : RDMA_ROUNDS);
        long[] threads = involvedThreads();
        long[] before = counter.bytes(threads);
        int rounds = sends ? ROUNDS : RDMA_ROUNDS;
        run(workload, rounds);
        long[] after = counter.bytes(threads);
        long allocated = 0;
        StringBuilder perThread = new StringBuilder();
        for (int i = 0; i < threads.length; i++) {
            allocated += after[i] - before[i];
            perThread.append(i == threads.length - 1 ? " test thread " : " I/O thread " + i + " ")
                    .append(after[i] - before[i]);
        }
        assertNull(client.failure);
        assertNull(server.failure);
        assertTrue(allocated < BOUND, workload + ": " + allocated + " bytes allocated in " + rounds
                + " operations:" + perThread);
    }

    private void run(String workload, int rounds) throws RdmaException {
        switch (workload) {
            case "sends" -> pingPong(rounds);
            case "streamed sends" -> stream(rounds);
            case "writes" -> rdma(rounds, false);
            default -> rdma(rounds, true);
        }
    }

    private void pingPong(int rounds) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        for (int i = 0; i < rounds; i++) {
            long expected = client.received + 1;
            client.send(8);
            int spins = 0;
            while (client.received < expected) {
                spins = idle(spins, deadline, "an echo");
            }
        }
    }

    /** Sends of 64 bytes and (every fourth) 20 bytes, as many in flight as the peer has receives posted. */
    private void stream(int rounds) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        long start = server.received;
        long sendsStart = client.sendsCompleted;
        for (int i = 0; i < rounds; i++) {
            int spins = 0;
            while (i - (server.received - start) >= Side.RECEIVES || i - (client.sendsCompleted - sendsStart) >= Side.RECEIVES) {
                spins = idle(spins, deadline, "a receive to send into");
            }
            client.send(i % 4 == 3 ? 20 : Side.SIZE);
        }
        int spins = 0;
        while (server.received - start < rounds) {
            spins = idle(spins, deadline, "the last streamed Sends");
        }
    }

    private void rdma(int rounds, boolean read) throws RdmaException {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        for (int i = 0; i < rounds; i++) {
            long expected = client.rdmaCompleted + 1;
            if (read) {
                client.endpoint.postRdmaRead(client.rdmaLocal, 0, Side.RDMA, server.exposedAddress, server.exposedToken,
                        expected);
            } else {
                client.endpoint.postRdmaWrite(client.rdmaLocal, 0, Side.RDMA, server.exposedAddress,
                        server.exposedToken, expected);
            }
            int spins = 0;
            while (client.rdmaCompleted < expected) {
                spins = idle(spins, deadline, read ? "an RDMA Read" : "an RDMA Write");
            }
        }
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

    private long[] involvedThreads() {
        List<Thread> found = AllocationCounter.threadsNamed("smbdirect-iwarp-alloc-");
        assertEquals(4, found.size(), "I/O threads of both providers: " + found);
        return AllocationCounter.idsAndCurrent(found);
    }

    private void connect(boolean echo) throws Exception {
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").ioThreads(2).build();
        clientProvider = IwarpProvider.open("alloc-client", settings);
        serverProvider = IwarpProvider.open("alloc-server", settings);
        client = new Side(false);
        server = new Side(echo);
        EndpointConfig config = new EndpointConfig(16, 16);
        CompletableFuture<Void> accepted = new CompletableFuture<>();
        listener = serverProvider.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
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
            }
        });
        RdmaEndpoint ep = clientProvider.createEndpoint(config, client);
        client.start(ep);
        ep.connect(listener.localAddress(), new ConnectParameters(null, 8, 8));
        accepted.get(10, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int spins = 0;
        while (!client.established || !server.established) {
            spins = idle(spins, deadline, "establishment");
        }
        // the responder sends nothing before the initiator's first FPDU (RFC 5044 §7.1.2): open it
        long expected = server.received + 1;
        client.send(1);
        while (server.received < expected) {
            spins = idle(spins, deadline, "the first Send");
        }
    }

    /** One end: 8 receives of 64 bytes reposted at once, a send region, an RDMA region of each kind. */
    private static final class Side implements RdmaEndpointHandler {
        static final int RECEIVES = 8;
        static final int SIZE = 64;
        static final int RDMA = 64 * 1024;
        private final boolean echo;
        RdmaEndpoint endpoint;
        MemoryRegion receive;
        MemoryRegion send;
        MemoryRegion rdmaLocal;
        long exposedAddress;
        int exposedToken;
        volatile boolean established;
        volatile long received;
        volatile long rdmaCompleted;
        volatile long sendsCompleted;
        volatile String failure;
        private long sendWrId;

        Side(boolean echo) {
            this.echo = echo;
        }

        void start(RdmaEndpoint ep) throws RdmaException {
            endpoint = ep;
            receive = ep.register(ByteBuffer.allocateDirect(RECEIVES * SIZE), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            send = ep.register(ByteBuffer.allocateDirect(SIZE), EnumSet.noneOf(MemoryAccess.class));
            rdmaLocal = ep.register(ByteBuffer.allocateDirect(RDMA), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            MemoryRegion exposed = ep.register(ByteBuffer.allocateDirect(RDMA),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE, MemoryAccess.REMOTE_READ));
            exposedAddress = exposed.address();
            exposedToken = exposed.token();
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
            } else if (wc.type() == WorkRequestType.RDMA_WRITE || wc.type() == WorkRequestType.RDMA_READ) {
                rdmaCompleted = rdmaCompleted + 1;
            } else if (wc.type() == WorkRequestType.SEND) {
                sendsCompleted = sendsCompleted + 1;
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            if (failure == null && cause != DisconnectCause.LOCAL && cause != DisconnectCause.PEER
                    && cause != DisconnectCause.PROVIDER_SHUTDOWN) {
                failure = "disconnected: " + cause + " " + detail;
            }
        }
    }
}
