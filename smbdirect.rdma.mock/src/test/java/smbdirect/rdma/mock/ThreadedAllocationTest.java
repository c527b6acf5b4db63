package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.tck.EchoPair;
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
    private EchoPair pair;
    private EchoPair.Side client;
    private EchoPair.Side server;

    @AfterEach
    void tearDown() {
        if (fabric == null) {
            return;
        }
        try {
            if (pair != null) {
                pair.close();
            }
        } finally {
            fabric.close();
        }
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
        assertNull(client.failure());
        assertNull(server.failure());
        assertEquals(WARM_UP + ROUNDS, server.received());
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
        assertNull(client.failure());
        assertEquals(WARM_UP + ROUNDS, client.rdmaCompleted());
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
        assertNull(client.failure());
        assertEquals(2 * PARKED_ROUNDS, client.rdmaCompleted());
        assertTrue(allocated < BOUND, "THREADED RDMA Writes, each to parked completion threads, allocated "
                + allocated + " bytes in " + PARKED_ROUNDS + " writes");
    }

    // ---------------------------------------------------------------- workload (allocation-free)

    private void pingPong(int rounds) {
        for (int i = 0; i < rounds; i++) {
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            long expected = client.received() + 1;
            client.send(8);
            int spins = 0;
            while (client.received() < expected) {
                spins = EchoPair.idle(spins, deadline, "an echo");
            }
        }
    }

    private void writes(int rounds, boolean toParkedThreads) throws RdmaException {
        for (int i = 0; i < rounds; i++) {
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            if (toParkedThreads) {
                int spins = 0;
                while (!completionThreadsParked()) {
                    spins = EchoPair.idle(spins, deadline, "the completion threads to park");
                }
            }
            long expected = client.rdmaCompleted() + 1;
            client.endpoint().postRdmaWrite(client.rdmaLocal(), 0, 64, server.exposedAddress(), server.exposedToken(),
                    expected);
            int spins = 0;
            while (client.rdmaCompleted() < expected) {
                spins = EchoPair.idle(spins, deadline, "an RDMA Write completion");
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
        EchoPair.Builder shape = EchoPair.builder().rdmaRegions(64);
        pair = (echo ? shape.echo(8) : shape).connect(clientDevice, serverDevice,
                new InetSocketAddress(serverDevice.address(), 445));
        client = pair.client;
        server = pair.server;
        if (!echo) {
            involvedThreads(); // completion threads for the parked-thread check
        }
    }
}
