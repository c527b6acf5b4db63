package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Random and extreme inputs to every receive check (peer lesson: pre-auth parsers get fuzzed):
 * a check never throws for a region inside the buffer, and whatever it accepts satisfies the
 * rules it claims to enforce.
 */
class ReceiveCheckFuzzTest {

    private static final int ROUNDS = 50_000;
    private static final long[] EXTREMES = {0, 1, 7, 8, 19, 20, 23, 24, 25, 127, 128, 131071, 131072,
        0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFF8L, 0xFFFF_FFFFL};

    private static long pick(SplittableRandom r) {
        return r.nextInt(3) == 0 ? EXTREMES[r.nextInt(EXTREMES.length)] : r.nextLong(0x1_0000_0000L);
    }

    private static ByteBuffer randomMessage(SplittableRandom r, int length) {
        ByteBuffer b = ByteBuffer.allocate(length + 16);
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) r.nextInt(256));
        }
        if (length >= 20 && r.nextBoolean()) {
            for (int f = 8; f + 4 <= 20; f += 4) {
                Le.putU32(b, 3 + f, pick(r));
            }
        }
        return b;
    }

    @Test
    @DisplayName("R-3.1.5.8-01..05 / A-31: accepted Data Transfer messages always lie within bounds and limits")
    void R_3_1_5_8_05_fuzzDataTransfer() {
        SplittableRandom r = new SplittableRandom(0x5EED);
        int accepted = 0;
        for (int i = 0; i < ROUNDS; i++) {
            int length = r.nextInt(4) == 0 ? r.nextInt(24) : r.nextInt(600);
            ByteBuffer b = randomMessage(r, length);
            long maxFragmented = r.nextBoolean() ? 1048576 : pick(r);
            Violation v = DataTransfer.check(b, 3, length, maxFragmented);
            if (v == null) {
                accepted++;
                long off = DataTransfer.dataOffset(b, 3);
                long len = DataTransfer.dataLength(b, 3);
                assertTrue(length >= 20);
                assertTrue(DataTransfer.creditsRequested(b, 3) >= 1);
                assertEquals(0, off % 8);
                assertTrue(off + len <= length, "payload inside the message");
                assertTrue(len + DataTransfer.remainingDataLength(b, 3) <= maxFragmented);
            } else {
                assertTrue(v.rule().startsWith("R-3.1.5.8-0"), v.toString());
                assertEquals(Violation.Action.TERMINATE, v.action());
            }
        }
        assertTrue(accepted > 0, "the fuzzer reached the accepting path");
    }

    @Test
    @DisplayName("R-3.1.5.6 / R-3.1.5.7: negotiate checks never throw and accept only conforming values")
    void R_3_1_5_6_fuzzNegotiate() {
        SplittableRandom r = new SplittableRandom(0xC0DE);
        for (int i = 0; i < ROUNDS; i++) {
            int length = r.nextInt(40);
            ByteBuffer b = randomMessage(r, length);
            if (length >= 2 && r.nextBoolean()) {
                Le.putU16(b, 3, 0x0100);
                if (length >= 6) {
                    Le.putU16(b, 5, 0x0100);
                    Le.putU16(b, 7, 0x0100);
                }
            }
            if (length >= 16 && r.nextBoolean()) {
                Le.putU32(b, 3 + 12, 0);
            }
            Violation req = NegotiateRequest.check(b, 3, length);
            if (req == null) {
                assertTrue(NegotiateRequest.minVersion(b, 3) <= 0x0100 && NegotiateRequest.maxVersion(b, 3) >= 0x0100);
                assertTrue(NegotiateRequest.creditsRequested(b, 3) > 0);
                assertTrue(NegotiateRequest.maxReceiveSize(b, 3) >= 128);
                assertTrue(NegotiateRequest.maxFragmentedSize(b, 3) >= 131072);
            }
            long local = pick(r);
            Violation rsp = NegotiateResponse.check(b, 3, length, local);
            if (rsp == null) {
                assertEquals(0, NegotiateResponse.status(b, 3));
                assertEquals(0x0100, NegotiateResponse.negotiatedVersion(b, 3));
                assertTrue(NegotiateResponse.preferredSendSize(b, 3) <= local);
            }
            Violation ird = IrdOrdHeader.check(b, 3, length);
            if (ird == null) {
                assertTrue(IrdOrdHeader.ird(b, 3) > 0 && IrdOrdHeader.ord(b, 3) > 0);
            }
        }
    }
}
