package smbdirect.rdma.iwarp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.tck.EchoPair;
import smbdirect.testsupport.AllocationCounter;

/**
 * Steady-state operations allocate nothing, counted exactly with the JVM's per-thread allocation
 * counter on every thread involved: the posting (test) thread and the I/O threads of both providers
 * (found by their documented names {@code smbdirect-iwarp-<instance>-io-<n>}). Ping-pong Sends
 * (posted from the receive callback, so the hand-off and the in-loop path both run), RDMA Writes
 * and RDMA Reads of 64 KiB (several FPDUs per message, gathering writes and scattering reads), and
 * streamed Sends, up to 8 in flight, every fourth shorter than the others (the receiver's read
 * ahead into posted receives, its predictions holding and failing), with CRC32C on. Small Sends and
 * the RDMA operations in FPDUs of 1460 bytes (Ethernet-sized, as between two hosts) run through the
 * receiver's staging buffer; the RDMA operations at the default FPDU size (65,480 bytes on
 * loopback) through direct reads.
 */
class SteadyStateAllocationTest {

    private static final int WARM_UP = 20_000;
    private static final int ROUNDS = 20_000;
    /** 64 KiB RDMA operations are 46 FPDUs each at the default FPDU size: fewer make the same paths hot. */
    private static final int RDMA_ROUNDS = 4_000;
    /** For all threads together over a whole measured run: well under 1 byte per operation. */
    private static final long BOUND = 4096;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Each side: 8 receives of 64 bytes, RDMA regions of 64 KiB. */
    private static final int RECEIVES = 8;
    private static final int SIZE = 64;
    private static final int RDMA = 64 * 1024;

    private IwarpProvider clientProvider;
    private IwarpProvider serverProvider;
    private EchoPair pair;
    private EchoPair.Side client;
    private EchoPair.Side server;

    @AfterEach
    void tearDown() {
        try {
            if (pair != null) {
                pair.close();
            }
        } finally {
            if (clientProvider != null) {
                clientProvider.close();
            }
            if (serverProvider != null) {
                serverProvider.close();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sends", "streamed sends", "writes", "reads", "writes in 1460-byte FPDUs",
        "reads in 1460-byte FPDUs", "writes in 1460-byte FPDUs, 4 in flight"})
    void steadyStateOperationsAllocateNothingOnAnyThread(String workload) throws Exception {
        AllocationCounter counter = AllocationCounter.enabled();
        connect(workload.equals("sends"), workload.contains("1460-byte FPDUs") ? 1460 : 0);
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
        assertNull(client.failure());
        assertNull(server.failure());
        if (workload.equals("writes in 1460-byte FPDUs")) {
            ReceiveCounters c = ReceiveCounters.of(server.endpoint());
            assertTrue(c.stagedBytes > c.bytesRead * 9 / 10, "the Writes went through the staging buffer: " + c);
        } else if (workload.endsWith("4 in flight")) {
            // 184 FPDUs queued at once: the transmit batch grew from 64 slots to 256 during the warm-up
            // and allocates nothing since
            assertEquals(256, ReceiveCounters.transmitBatchSlots(client.endpoint()));
        } else if (workload.equals("sends")) {
            // one message at a time never fills a batch: the endpoint keeps its first 64 slots
            assertEquals(64, ReceiveCounters.transmitBatchSlots(client.endpoint()));
        } else if (workload.equals("writes")) {
            ReceiveCounters c = ReceiveCounters.of(server.endpoint());
            assertTrue(c.stagedBytes < c.bytesRead / 10, "65,480-byte FPDUs are read directly: " + c);
        }
        assertTrue(allocated < BOUND, workload + ": " + allocated + " bytes allocated in " + rounds
                + " operations:" + perThread);
    }

    private void run(String workload, int rounds) throws RdmaException {
        switch (workload) {
            case "sends" -> pingPong(rounds);
            case "streamed sends" -> stream(rounds);
            default -> rdma(rounds, workload.startsWith("reads"), workload.endsWith("4 in flight") ? 4 : 1);
        }
    }

    private void pingPong(int rounds) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        for (int i = 0; i < rounds; i++) {
            long expected = client.received() + 1;
            client.send(8);
            int spins = 0;
            while (client.received() < expected) {
                spins = EchoPair.idle(spins, deadline, "an echo");
            }
        }
    }

    /** Sends of 64 bytes and (every fourth) 20 bytes, as many in flight as the peer has receives posted. */
    private void stream(int rounds) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        long start = server.received();
        long sendsStart = client.sendsCompleted();
        for (int i = 0; i < rounds; i++) {
            int spins = 0;
            while (i - (server.received() - start) >= RECEIVES || i - (client.sendsCompleted() - sendsStart) >= RECEIVES) {
                spins = EchoPair.idle(spins, deadline, "a receive to send into");
            }
            client.send(i % 4 == 3 ? 20 : SIZE);
        }
        int spins = 0;
        while (server.received() - start < rounds) {
            spins = EchoPair.idle(spins, deadline, "the last streamed Sends");
        }
    }

    /** {@code rounds} RDMA operations of 64 KiB, posted {@code inFlight} at a time. */
    private void rdma(int rounds, boolean read, int inFlight) throws RdmaException {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        for (int i = 0; i < rounds; i += inFlight) {
            long expected = client.rdmaCompleted() + inFlight;
            for (long id = expected - inFlight + 1; id <= expected; id++) {
                if (read) {
                    client.endpoint().postRdmaRead(client.rdmaLocal(), 0, RDMA, server.exposedAddress(),
                            server.exposedToken(), id);
                } else {
                    client.endpoint().postRdmaWrite(client.rdmaLocal(), 0, RDMA, server.exposedAddress(),
                            server.exposedToken(), id);
                }
            }
            int spins = 0;
            while (client.rdmaCompleted() < expected) {
                spins = EchoPair.idle(spins, deadline, read ? "an RDMA Read" : "an RDMA Write");
            }
        }
    }

    private long[] involvedThreads() {
        List<Thread> found = AllocationCounter.threadsNamed("smbdirect-iwarp-alloc-");
        assertEquals(4, found.size(), "I/O threads of both providers: " + found);
        return AllocationCounter.idsAndCurrent(found);
    }

    private void connect(boolean echo, int maxFpduSize) throws Exception {
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").ioThreads(2)
                .maxFpduSize(maxFpduSize).build();
        clientProvider = IwarpProvider.open("alloc-client", settings);
        serverProvider = IwarpProvider.open("alloc-server", settings);
        EchoPair.Builder shape = EchoPair.builder().receives(RECEIVES, SIZE).rdmaRegions(RDMA)
                .endpointSettings(new EndpointSettings(16, 16));
        pair = (echo ? shape.echo(8) : shape).connect(clientProvider, serverProvider,
                new InetSocketAddress("127.0.0.1", 0));
        client = pair.client;
        server = pair.server;
        // the responder sends nothing before the initiator's first FPDU (RFC 5044 §7.1.2): open it
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int spins = 0;
        long expected = server.received() + 1;
        client.send(1);
        while (server.received() < expected) {
            spins = EchoPair.idle(spins, deadline, "the first Send");
        }
    }
}
