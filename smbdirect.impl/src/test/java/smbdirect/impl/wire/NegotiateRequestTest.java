package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static smbdirect.impl.wire.SmbdWire.STATUS_NOT_SUPPORTED;

import java.nio.ByteBuffer;
import java.util.function.IntFunction;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class NegotiateRequestTest {

    /** [MS-SMBD] 4.1 values, ms-smbd.md 2.6. */
    static final String EXAMPLE_4_1 = "00 01 00 01 00 00 0A 00 00 04 00 00 00 04 00 00 00 00 02 00";

    static ByteBuffer valid() {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 255, 1364, 8192, 1048576);
        return b;
    }

    @Test
    @DisplayName("2.6: the 4.1 Negotiate Request encodes byte for byte")
    void example41Encodes() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 20);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 10, 1024, 1024, 131072);
        assertEquals(EXAMPLE_4_1, Bytes.hex(b, 0, 20));
    }

    @Test
    @DisplayName("2.6: the 4.1 Negotiate Request decodes to its field values and is accepted")
    void example41Decodes() {
        ByteBuffer b = Bytes.wrap(Bytes.hex(EXAMPLE_4_1));
        assertEquals(0x0100, NegotiateRequest.minVersion(b, 0));
        assertEquals(0x0100, NegotiateRequest.maxVersion(b, 0));
        assertEquals(0, NegotiateRequest.reserved(b, 0));
        assertEquals(10, NegotiateRequest.creditsRequested(b, 0));
        assertEquals(1024, NegotiateRequest.preferredSendSize(b, 0));
        assertEquals(1024, NegotiateRequest.maxReceiveSize(b, 0));
        assertEquals(131072, NegotiateRequest.maxFragmentedSize(b, 0));
        assertNull(NegotiateRequest.check(b, 0, 20));
    }

    @Test
    void R_3_1_5_2_04_reservedIsWrittenAsZero() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 20);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 1, 0, 128, 131072);
        assertEquals(0, NegotiateRequest.reserved(b, 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("smbdirect.impl.wire.Bytes#kinds")
    @DisplayName("R-2.2-02: little-endian on the wire whatever the buffer's byte order; position and limit untouched")
    void R_2_2_02_independentOfBufferByteOrder(String kind, IntFunction<ByteBuffer> factory) {
        ByteBuffer b = Bytes.dirty(factory, 40);
        b.position(5).limit(33);
        NegotiateRequest.encode(b, 11, 0x0100, 0x0100, 10, 1024, 1024, 131072);
        assertEquals(EXAMPLE_4_1, Bytes.hex(b, 11, 20));
        assertEquals(5, b.position());
        assertEquals(33, b.limit());
        assertEquals(0xAA, b.get(10) & 0xFF);
        assertEquals(0xAA, b.get(31) & 0xFF);
        assertEquals(10, NegotiateRequest.creditsRequested(b, 11));
        assertEquals(131072, NegotiateRequest.maxFragmentedSize(b, 11));
        assertNull(NegotiateRequest.check(b, 11, 20));
        assertEquals(5, b.position());
    }

    @Test
    void R_3_1_5_6_01_nineteenBytesTerminate() {
        Violation v = NegotiateRequest.check(valid(), 0, 19);
        assertNotNull(v);
        assertEquals("R-3.1.5.6-01", v.rule());
        assertEquals(Violation.Action.TERMINATE, v.action());
        assertEquals(19, v.value());
        assertEquals(0, v.status());
    }

    @Test
    void R_3_1_5_6_01_zeroBytesTerminate() {
        assertEquals("R-3.1.5.6-01", NegotiateRequest.check(ByteBuffer.allocate(0), 0, 0).rule());
    }

    @Test
    @DisplayName("R-3.1.5.6-01 / A-11: a 512-byte request (20 valid + 492 trailing bytes) is accepted")
    void R_3_1_5_6_01_A_11_trailingBytesAccepted() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 512);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 255, 1364, 8192, 1048576);
        assertNull(NegotiateRequest.check(b, 0, 512));
    }

    @ParameterizedTest(name = "Min=0x{0} Max=0x{1} accepted={2}")
    @CsvSource({
        "0100, 0100, true",
        "0000, 0100, true",
        "0100, FFFF, true",
        "0000, FFFF, true",
        "0000, 0000, false",
        "FFFF, FFFF, false",
        "0000, 00FF, false",
        "0101, 0200, false",
        "0200, 0100, false",
        "0100, 0000, false",
    })
    @DisplayName("R-3.1.5.6-03/-04 (A-1): 0x0100 must lie in [MinVersion, MaxVersion], else STATUS_NOT_SUPPORTED")
    void R_3_1_5_6_03_versionRange(String min, String max, boolean accepted) {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, Integer.parseInt(min, 16), Integer.parseInt(max, 16), 255, 1364, 8192, 1048576);
        Violation v = NegotiateRequest.check(b, 0, 20);
        if (accepted) {
            assertNull(v);
        } else {
            assertNotNull(v);
            assertEquals("R-3.1.5.6-03", v.rule());
            assertEquals(Violation.Action.FAIL_RESPONSE, v.action());
            assertEquals(STATUS_NOT_SUPPORTED, v.status());
            long offending = v.field().equals("MinVersion") ? Integer.parseInt(min, 16) : Integer.parseInt(max, 16);
            assertEquals(offending, v.value());
        }
    }

    @Test
    @DisplayName("R-3.1.5.6-05 (A-1): the exact-version policy refuses a range that merely contains 0x0100")
    void R_3_1_5_6_05_exactVersionPolicy() {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0000, 0x0100, 255, 1364, 8192, 1048576);
        assertNull(NegotiateRequest.check(b, 0, 20));
        Violation v = NegotiateRequest.checkExactVersion(b, 0);
        assertEquals("MinVersion", v.field());
        assertEquals(STATUS_NOT_SUPPORTED, v.status());
        NegotiateRequest.encode(b, 0, 0x0100, 0xFFFF, 255, 1364, 8192, 1048576);
        assertEquals("MaxVersion", NegotiateRequest.checkExactVersion(b, 0).field());
        assertNull(NegotiateRequest.checkExactVersion(valid(), 0));
    }

    @Test
    @DisplayName("A-2: a request that is both version-bad and credit/size-bad gets the version failure response")
    void A_2_versionCheckedBeforeCreditsAndSizes() {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0200, 0x0200, 0, 0, 0, 0);
        Violation v = NegotiateRequest.check(b, 0, 20);
        assertEquals("R-3.1.5.6-03", v.rule());
        assertEquals(Violation.Action.FAIL_RESPONSE, v.action());
        assertEquals("R-3.1.5.6-01", NegotiateRequest.check(b, 0, 19).rule());
    }

    @Test
    @DisplayName("A-2: credits are checked before MaxReceiveSize, MaxReceiveSize before MaxFragmentedSize")
    void A_2_creditsThenSizes() {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 0, 1364, 127, 131071);
        assertEquals("R-3.1.5.6-06", NegotiateRequest.check(b, 0, 20).rule());
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 1, 1364, 127, 131071);
        assertEquals("R-3.1.5.6-07", NegotiateRequest.check(b, 0, 20).rule());
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 1, 1364, 128, 131071);
        assertEquals("R-3.1.5.6-08", NegotiateRequest.check(b, 0, 20).rule());
    }

    @ParameterizedTest(name = "CreditsRequested={0} accepted={1}")
    @CsvSource({"0, false", "1, true", "255, true", "65535, true"})
    void R_3_1_5_6_06_creditsRequestedMustBePositive(int credits, boolean accepted) {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, credits, 1364, 8192, 1048576);
        assertRule(accepted, "R-3.1.5.6-06", "CreditsRequested", credits, NegotiateRequest.check(b, 0, 20));
    }

    @ParameterizedTest(name = "MaxReceiveSize={0} accepted={1}")
    @CsvSource({"0, false", "127, false", "128, true", "8192, true", "4294967295, true"})
    void R_3_1_5_6_07_maxReceiveSizeAtLeast128(long size, boolean accepted) {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 255, 1364, size, 1048576);
        assertRule(accepted, "R-3.1.5.6-07", "MaxReceiveSize", size, NegotiateRequest.check(b, 0, 20));
    }

    @ParameterizedTest(name = "MaxFragmentedSize={0} accepted={1}")
    @CsvSource({"0, false", "131071, false", "131072, true", "4294967295, true"})
    void R_3_1_5_6_08_maxFragmentedSizeAtLeast131072(long size, boolean accepted) {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 255, 1364, 8192, size);
        assertRule(accepted, "R-3.1.5.6-08", "MaxFragmentedSize", size, NegotiateRequest.check(b, 0, 20));
    }

    @ParameterizedTest(name = "PreferredSendSize={0}")
    @CsvSource({"0", "127", "8137", "4294967295"})
    @DisplayName("A-5: any PreferredSendSize is acceptable to the receive check")
    void A_5_anyPreferredSendSizeAccepted(long size) {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 255, size, 8192, 1048576);
        assertEquals(size, NegotiateRequest.preferredSendSize(b, 0));
        assertNull(NegotiateRequest.check(b, 0, 20));
    }

    @Test
    void R_2_2_1_06_reservedIgnoredOnReceive() {
        ByteBuffer b = valid();
        b.putShort(NegotiateRequest.RESERVED, (short) 0xBEEF);
        assertEquals(0xEFBE, NegotiateRequest.reserved(b, 0));
        assertNull(NegotiateRequest.check(b, 0, 20));
    }

    @Test
    void encodeRefusesValuesThatDoNotFitTheirFields() {
        ByteBuffer b = ByteBuffer.allocate(20);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 0x10000, 1, 128, 131072));
        assertEquals("CreditsRequested=65536 does not fit an unsigned 16-bit field", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> NegotiateRequest.encode(b, 0, -1, 0x0100, 1, 1, 128, 131072));
        assertThrows(IllegalArgumentException.class,
                () -> NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 1, 0x1_0000_0000L, 128, 131072));
        assertThrows(IllegalArgumentException.class,
                () -> NegotiateRequest.encode(b, 0, 0x0100, 0x0100, 1, 1, -1, 131072));
    }

    @Test
    void checkRefusesARegionOutsideTheBuffer() {
        assertThrows(IndexOutOfBoundsException.class, () -> NegotiateRequest.check(ByteBuffer.allocate(19), 0, 20));
        assertThrows(IndexOutOfBoundsException.class, () -> NegotiateRequest.encode(ByteBuffer.allocate(24), 5, 0x0100,
                0x0100, 1, 1, 128, 131072));
    }

    static void assertRule(boolean accepted, String rule, String field, long value, Violation v) {
        if (accepted) {
            assertNull(v, () -> "unexpected " + v);
        } else {
            assertNotNull(v, "expected a violation of " + rule);
            assertEquals(rule, v.rule());
            assertEquals(field, v.field());
            assertEquals(value, v.value());
            assertEquals(Violation.Action.TERMINATE, v.action());
        }
    }
}
