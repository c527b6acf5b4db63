package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import smbdirect.impl.wire.BufferDescriptorList;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.IrdOrdHeader;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.impl.wire.Violation;

/**
 * Coverage-guided fuzzing of every receive check and decoder of {@code smbdirect.impl.wire}
 * (peer lesson 26: pre-authentication parsers get fuzzed). Under plain {@code mvn verify} each
 * target replays its committed corpus ({@code WireFuzzTestInputs/<method>/}); with
 * {@code JAZZER_FUZZ=1} it fuzzes (see RELIABILITY.md).
 *
 * <p>Invariants per target:
 * <ul>
 * <li>no exception escapes for any buffer, offset and length, except the documented
 * {@link IndexOutOfBoundsException} when the claimed region does not lie inside the buffer;</li>
 * <li>the verdict of {@code check(...)} equals an independent reference computation of the spec
 * rules, in long arithmetic over the raw bytes (not through the codec's own readers);</li>
 * <li>a message accepted by {@code check(...)} decodes, and re-encoding the decoded fields gives
 * the same bytes (Reserved and Padding, which receivers ignore and senders write as 0, masked).</li>
 * </ul>
 */
class WireFuzzTest {

    /** A fuzzed buffer with a fuzzed offset, claimed length, byte order and direct/heap choice. */
    private record Input(ByteBuffer buf, byte[] raw, int off, int length) {
    }

    private static Input input(FuzzedDataProvider data) {
        int off = data.consumeInt(0, 16);
        boolean direct = data.consumeBoolean();
        boolean bigEndian = data.consumeBoolean();
        int slack = data.consumeInt(0, 8);
        boolean outside = data.consumeInt(0, 31) == 0;
        byte[] body = data.consumeRemainingAsBytes();
        byte[] raw = new byte[off + body.length + slack];
        System.arraycopy(body, 0, raw, off, body.length);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(raw.length) : ByteBuffer.allocate(raw.length);
        b.put(raw).clear();
        b.order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        // Occasionally claim more than the buffer holds: the only exception allowed is IOOBE.
        int length = outside ? body.length + slack + 1 + (off & 3) : body.length;
        return new Input(b, raw, off, length);
    }

    private static long u16(byte[] r, int at) {
        return (r[at] & 0xFFL) | (r[at + 1] & 0xFFL) << 8;
    }

    private static long u32(byte[] r, int at) {
        return u16(r, at) | u16(r, at + 2) << 16;
    }

    private static long beU32(byte[] r, int at) {
        return (r[at] & 0xFFL) << 24 | (r[at + 1] & 0xFFL) << 16 | (r[at + 2] & 0xFFL) << 8 | (r[at + 3] & 0xFFL);
    }

    private static boolean outside(Input in) {
        return (long) in.off + in.length > in.buf.limit();
    }

    private static void assertUntouched(Input in, int position, int limit) {
        assertEquals(position, in.buf.position(), "position unchanged");
        assertEquals(limit, in.buf.limit(), "limit unchanged");
    }

    private static byte[] slice(ByteBuffer b, int off, int len) {
        byte[] out = new byte[len];
        for (int i = 0; i < len; i++) {
            out[i] = b.get(off + i);
        }
        return out;
    }

    private static String reference(Violation v) {
        return v == null ? null : v.rule();
    }

    // ---------------------------------------------------------------- Negotiate Request

    /** [MS-SMBD] 3.1.5.6 in the order of the spec, A-1 (range containing 0x0100), A-11. */
    private static String referenceRequest(byte[] r, int off, int length) {
        if (length < 20) {
            return "R-3.1.5.6-01";
        }
        long min = u16(r, off);
        long max = u16(r, off + 2);
        if (!(min <= 0x0100 && 0x0100 <= max)) {
            return "R-3.1.5.6-03";
        }
        if (u16(r, off + 6) <= 0) {
            return "R-3.1.5.6-06";
        }
        if (u32(r, off + 12) < 128) {
            return "R-3.1.5.6-07";
        }
        if (u32(r, off + 16) < 131072) {
            return "R-3.1.5.6-08";
        }
        return null;
    }

    @FuzzTest(maxDuration = "30m", maxExecutions = 10_000_000)
    void negotiateRequest(FuzzedDataProvider data) {
        Input in = input(data);
        if (outside(in)) {
            assertThrows(IndexOutOfBoundsException.class, () -> NegotiateRequest.check(in.buf, in.off, in.length));
            return;
        }
        Violation v = NegotiateRequest.check(in.buf, in.off, in.length);
        assertUntouched(in, 0, in.raw.length);
        assertEquals(referenceRequest(in.raw, in.off, in.length), reference(v), () -> String.valueOf(v));
        if (v != null) {
            assertNotNull(v.toString());
            assertEquals(v.rule().equals("R-3.1.5.6-03") ? Violation.Action.FAIL_RESPONSE : Violation.Action.TERMINATE,
                    v.action());
            return;
        }
        ByteBuffer out = ByteBuffer.allocate(20);
        NegotiateRequest.encode(out, 0, NegotiateRequest.minVersion(in.buf, in.off),
                NegotiateRequest.maxVersion(in.buf, in.off), NegotiateRequest.creditsRequested(in.buf, in.off),
                NegotiateRequest.preferredSendSize(in.buf, in.off), NegotiateRequest.maxReceiveSize(in.buf, in.off),
                NegotiateRequest.maxFragmentedSize(in.buf, in.off));
        byte[] expected = slice(in.buf, in.off, 20);
        expected[4] = 0;
        expected[5] = 0;
        assertArrayEquals(expected, out.array(), "re-encoded Negotiate Request");
        assertNull(NegotiateRequest.check(out, 0, 20), "re-encoded request is accepted again");
        Violation exact = NegotiateRequest.checkExactVersion(in.buf, in.off);
        assertEquals(u16(in.raw, in.off) == 0x0100 && u16(in.raw, in.off + 2) == 0x0100, exact == null);
    }

    // ---------------------------------------------------------------- Negotiate Response

    /** [MS-SMBD] 3.1.5.7, in the order documented by the codec; A-12 (Min/MaxVersion ignored). */
    private static String referenceResponse(byte[] r, int off, int length, long localMaxReceive) {
        if (length < 32) {
            return "R-3.1.5.7-01";
        }
        if (u32(r, off + 12) != 0) {
            return "R-3.1.5.7-08";
        }
        if (u16(r, off + 4) != 0x0100) {
            return "R-3.1.5.7-02";
        }
        if (u32(r, off + 24) < 128) {
            return "R-3.1.5.7-03";
        }
        if (u32(r, off + 28) < 131072) {
            return "R-3.1.5.7-04";
        }
        if (u16(r, off + 10) == 0) {
            return "R-3.1.5.7-05";
        }
        if (u16(r, off + 8) == 0) {
            return "R-3.1.5.7-06";
        }
        if (u32(r, off + 20) > localMaxReceive) {
            return "R-3.1.5.7-07";
        }
        return null;
    }

    @FuzzTest(maxDuration = "30m", maxExecutions = 10_000_000)
    void negotiateResponse(FuzzedDataProvider data) {
        long localMaxReceive = data.consumeBoolean() ? 1364 : data.consumeLong(0, 0xFFFF_FFFFL);
        Input in = input(data);
        if (outside(in)) {
            assertThrows(IndexOutOfBoundsException.class,
                    () -> NegotiateResponse.check(in.buf, in.off, in.length, localMaxReceive));
            return;
        }
        Violation v = NegotiateResponse.check(in.buf, in.off, in.length, localMaxReceive);
        assertUntouched(in, 0, in.raw.length);
        assertEquals(referenceResponse(in.raw, in.off, in.length, localMaxReceive), reference(v),
                () -> String.valueOf(v));
        if (v != null) {
            assertTrue(v.terminates(), "every 3.1.5.7 failure terminates (R-3.1.5.7-09)");
            assertNotNull(v.toString());
            return;
        }
        ByteBuffer out = ByteBuffer.allocate(32);
        ByteBuffer b = in.buf;
        int o = in.off;
        NegotiateResponse.encode(out, 0, NegotiateResponse.minVersion(b, o), NegotiateResponse.maxVersion(b, o),
                NegotiateResponse.negotiatedVersion(b, o), NegotiateResponse.creditsRequested(b, o),
                NegotiateResponse.creditsGranted(b, o), NegotiateResponse.status(b, o),
                NegotiateResponse.maxReadWriteSize(b, o), NegotiateResponse.preferredSendSize(b, o),
                NegotiateResponse.maxReceiveSize(b, o), NegotiateResponse.maxFragmentedSize(b, o));
        byte[] expected = slice(b, o, 32);
        expected[6] = 0;
        expected[7] = 0;
        assertArrayEquals(expected, out.array(), "re-encoded Negotiate Response");
        assertNull(NegotiateResponse.check(out, 0, 32, localMaxReceive));
    }

    // ---------------------------------------------------------------- Data Transfer

    /** [MS-SMBD] 3.1.5.8 in order, 64-bit, A-32 limit, A-29/A-33 not rejected. */
    private static String referenceData(byte[] r, int off, int length, long maxFragmented) {
        if (length < 20) {
            return "R-3.1.5.8-01";
        }
        if (u16(r, off) < 1) {
            return "R-3.1.5.8-02";
        }
        long dataOffset = u32(r, off + 12);
        if (dataOffset % 8 != 0) {
            return "R-3.1.5.8-03";
        }
        long dataLength = u32(r, off + 16);
        if (dataOffset + dataLength > length) {
            return "R-3.1.5.8-04";
        }
        if (dataLength + u32(r, off + 8) > maxFragmented) {
            return "R-3.1.5.8-05";
        }
        return null;
    }

    @FuzzTest(maxDuration = "30m", maxExecutions = 10_000_000)
    void dataTransfer(FuzzedDataProvider data) {
        long maxFragmented = data.consumeBoolean() ? 1048576 : data.consumeLong(0, 0xFFFF_FFFFL);
        Input in = input(data);
        if (outside(in)) {
            assertThrows(IndexOutOfBoundsException.class,
                    () -> DataTransfer.check(in.buf, in.off, in.length, maxFragmented));
            return;
        }
        Violation v = DataTransfer.check(in.buf, in.off, in.length, maxFragmented);
        assertUntouched(in, 0, in.raw.length);
        assertEquals(referenceData(in.raw, in.off, in.length, maxFragmented), reference(v), () -> String.valueOf(v));
        if (v != null) {
            assertTrue(v.terminates(), "every 3.1.5.8 failure terminates (R-3.1.5.8-06)");
            assertNotNull(v.toString());
            return;
        }
        ByteBuffer b = in.buf;
        int o = in.off;
        long dataOffset = DataTransfer.dataOffset(b, o);
        long dataLength = DataTransfer.dataLength(b, o);
        assertEquals(DataTransfer.responseRequested(b, o), (DataTransfer.flags(b, o) & 1) != 0);
        // an empty message may still carry a DataOffset inside the message; keep those bytes
        int end = (int) (dataLength == 0 ? Math.max(20, dataOffset) : dataOffset + dataLength);
        ByteBuffer out = ByteBuffer.allocate(Math.max(end, 20));
        byte[] expected = slice(b, o, out.capacity());
        expected[6] = 0;
        expected[7] = 0;
        if (dataLength > 0 && dataOffset < 20) {
            // accepted, but encodeHeader refuses to announce a payload overlapping the header.
            assertThrows(IllegalArgumentException.class, () -> DataTransfer.encodeHeader(out, 0,
                    DataTransfer.creditsRequested(b, o), DataTransfer.creditsGranted(b, o), DataTransfer.flags(b, o),
                    DataTransfer.remainingDataLength(b, o), dataOffset, dataLength));
            DataTransfer.encodeHeaderOnly(out, 0, DataTransfer.creditsRequested(b, o),
                    DataTransfer.creditsGranted(b, o), DataTransfer.flags(b, o), DataTransfer.remainingDataLength(b, o),
                    dataOffset, dataLength);
            for (int i = 20; i < end; i++) {
                out.put(i, b.get(o + i));
            }
            // Payload bytes inside the header keep what the header says; Reserved is rewritten.
            byte[] got = out.array();
            for (int i = 0; i < 20; i++) {
                if (i != 6 && i != 7) {
                    assertEquals(expected[i], got[i], "header byte " + i);
                }
            }
            return;
        }
        int written = DataTransfer.encodeHeader(out, 0, DataTransfer.creditsRequested(b, o),
                DataTransfer.creditsGranted(b, o), DataTransfer.flags(b, o), DataTransfer.remainingDataLength(b, o),
                dataOffset, dataLength);
        assertEquals(dataLength == 0 ? 20 : dataOffset, written);
        for (int i = 20; i < written; i++) {
            expected[i] = 0; // Padding is written as zeros (R-3.1.5.4-17)
        }
        for (int i = written; i < end; i++) {
            out.put(i, b.get(o + i));
        }
        assertArrayEquals(expected, out.array(), "re-encoded Data Transfer message");
        assertNull(DataTransfer.check(out, 0, out.capacity(), maxFragmented), "re-encoded message is accepted again");
        assertEquals(Math.max(0L, (long) end - 24), DataTransfer.maxPayload(end));
    }

    // ---------------------------------------------------------------- IRD/ORD header

    @FuzzTest(maxDuration = "30m", maxExecutions = 10_000_000)
    void irdOrdHeader(FuzzedDataProvider data) {
        Input in = input(data);
        if (outside(in)) {
            assertThrows(IndexOutOfBoundsException.class, () -> IrdOrdHeader.check(in.buf, in.off, in.length));
            return;
        }
        Violation v = IrdOrdHeader.check(in.buf, in.off, in.length);
        assertUntouched(in, 0, in.raw.length);
        String expected = in.length < 8 ? "R-6.2-01"
                : beU32(in.raw, in.off) == 0 || beU32(in.raw, in.off + 4) == 0 ? "R-6.1-02" : null;
        assertEquals(expected, reference(v), () -> String.valueOf(v));
        if (v != null) {
            assertTrue(v.terminates());
            assertNotNull(v.toString());
            return;
        }
        ByteBuffer out = ByteBuffer.allocate(8);
        IrdOrdHeader.encode(out, 0, IrdOrdHeader.ird(in.buf, in.off), IrdOrdHeader.ord(in.buf, in.off));
        assertArrayEquals(slice(in.buf, in.off, 8), out.array(), "re-encoded IRD/ORD header");
    }

    // ---------------------------------------------------------------- Buffer descriptor list

    @FuzzTest(maxDuration = "30m", maxExecutions = 10_000_000)
    void bufferDescriptorList(FuzzedDataProvider data) {
        long maxTotal = data.consumeBoolean() ? 8 << 20 : data.consumeLong(-1, Long.MAX_VALUE);
        int probeIndex = data.consumeInt(Integer.MIN_VALUE, Integer.MAX_VALUE);
        Input in = input(data);
        if (outside(in)) {
            assertThrows(IndexOutOfBoundsException.class,
                    () -> BufferDescriptorList.check(in.buf, in.off, in.length, maxTotal));
            return;
        }
        Violation v = BufferDescriptorList.check(in.buf, in.off, in.length, maxTotal);
        assertUntouched(in, 0, in.raw.length);
        String expected = null;
        long sum = 0;
        if (in.length == 0 || in.length % 16 != 0) {
            expected = "length";
        } else {
            for (int i = 0; i < in.length / 16 && expected == null; i++) {
                long len = u32(in.raw, in.off + 16 * i + 12);
                if (len == 0) {
                    expected = "zero";
                }
                sum += len;
            }
            if (expected == null && sum > maxTotal) {
                expected = "sum";
            }
        }
        assertEquals(expected == null, v == null, () -> String.valueOf(v));
        // Accessors: any index either reads inside the buffer or throws IndexOutOfBoundsException
        // (Token is bytes [8, 12) of its descriptor; each field is bounds-checked on its own).
        try {
            BufferDescriptorList.token(in.buf, in.off, probeIndex);
            assertTrue(probeIndex >= 0 && (long) in.off + 16L * probeIndex + 12 <= in.buf.limit());
        } catch (IndexOutOfBoundsException expectedOutside) {
            assertTrue(probeIndex < 0 || (long) in.off + 16L * probeIndex + 12 > in.buf.limit());
        }
        if (v != null) {
            assertTrue(v.terminates());
            assertEquals("R-2.2.3.1-01", v.rule());
            assertNotNull(v.toString());
            return;
        }
        int count = BufferDescriptorList.count(in.length);
        assertEquals(sum, BufferDescriptorList.totalLength(in.buf, in.off, count));
        ByteBuffer out = ByteBuffer.allocate(in.length);
        for (int i = 0; i < count; i++) {
            BufferDescriptorList.encode(out, 0, i, BufferDescriptorList.offset(in.buf, in.off, i),
                    BufferDescriptorList.token(in.buf, in.off, i), BufferDescriptorList.length(in.buf, in.off, i));
            assertEquals(u32(in.raw, in.off + 16 * i) | u32(in.raw, in.off + 16 * i + 4) << 32,
                    BufferDescriptorList.offset(in.buf, in.off, i));
        }
        assertArrayEquals(slice(in.buf, in.off, in.length), out.array(), "re-encoded descriptor list");
    }
}
