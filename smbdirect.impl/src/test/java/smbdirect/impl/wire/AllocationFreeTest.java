package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;
import smbdirect.testsupport.AllocationCounter;


/** The success path of every codec allocates nothing (measured with the JVM's per-thread counter). */
class AllocationFreeTest {

    private static final int ROUNDS = 200_000;

    @Test
    void encodeDecodeAndCheckAllocateNothing() {
        AllocationCounter counter = AllocationCounter.enabled();
        ByteBuffer b = ByteBuffer.allocateDirect(1024).order(ByteOrder.BIG_ENDIAN);
        long sink = run(b, ROUNDS); // warm up
        long tid = Thread.currentThread().getId();
        long before = counter.bytes(tid);
        sink += run(b, ROUNDS);
        long after = counter.bytes(tid);
        assertTrue(sink != 42);
        long allocated = after - before;
        // a single allocation per round would be >= 16 * ROUNDS bytes; allow the counter's own noise
        assertTrue(allocated < 4096, "codecs allocated " + allocated + " bytes in " + ROUNDS + " rounds");
    }

    private static long run(ByteBuffer b, int rounds) {
        long sink = 0;
        for (int i = 0; i < rounds; i++) {
            NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 255, 1364, 8192, 1048576);
            assertNull(NegotiateRequest.check(b, 0, 20));
            NegotiateResponse.encode(b, 32, 0x0100, 0x0100, 0x0100, 255, 255, 0, 1048576, 1364, 8192, 1048576);
            assertNull(NegotiateResponse.check(b, 32, 32, 8192));
            int n = DataTransfer.encodeHeader(b, 64, 255, i & 0xFF, 0, 0, 24, 500);
            assertNull(DataTransfer.check(b, 64, n + 500, 1048576));
            sink += DataTransfer.dataLength(b, 64) + NegotiateResponse.maxReadWriteSize(b, 32)
                    + NegotiateRequest.preferredSendSize(b, 0);
            IrdOrdHeader.encode(b, 600, 16, 16);
            assertNull(IrdOrdHeader.check(b, 600, 8));
        }
        return sink;
    }
}
