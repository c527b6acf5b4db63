package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;

/**
 * The steady-state receive path (completion, checks, credits, zero-copy delivery, repost, credit
 * grants and their send completions) allocates nothing, measured with the JVM's per-thread counter.
 */
class SteadyStateAllocationTest {

    private static final int ROUNDS = 100_000;

    @Test
    void receivePathAllocatesNothing() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
        com.sun.management.ThreadMXBean counter = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(counter.isThreadAllocatedMemorySupported(), "per-thread allocation counter unsupported");
        counter.setThreadAllocatedMemoryEnabled(true);

        Harness h = new Harness();
        long[] bytes = new long[1];
        ConnectionHandler sink = new ConnectionHandler() {
            @Override
            public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
                bytes[0] += message.payload().remaining();
            }

            @Override
            public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            }
        };
        java.util.concurrent.CompletableFuture<SmbDirectConnection> f = h.engine
                .connect(Harness.PEER, java.time.Duration.ofSeconds(5), sink).toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        e.establish();
        e.completeSends();
        e.lean = true; // the data receives and every later Send go through the allocation-free rings
        e.deliver(Harness.negResponse(255, 255, 0, 1 << 20, 1364, 8192, 1 << 20));
        Connection c = (Connection) f.join();
        ByteBuffer message = Harness.dt(255, 1, 0, 0, Harness.bytes(1000, 1));
        run(e, message, ROUNDS);
        long tid = Thread.currentThread().getId();
        long before = counter.getThreadAllocatedBytes(tid);
        run(e, message, ROUNDS);
        long allocated = counter.getThreadAllocatedBytes(tid) - before;
        assertTrue(c.isOpen());
        assertEquals(2L * ROUNDS * 1000, bytes[0]);
        assertTrue(e.leanSends > 0, "credit grants went out");
        assertTrue(allocated < 4096, "the receive path allocated " + allocated + " bytes in " + ROUNDS + " messages");
    }

    private static void run(FakeEndpoint e, ByteBuffer message, int rounds) {
        for (int i = 0; i < rounds; i++) {
            e.leanStep(message);
        }
    }
}
