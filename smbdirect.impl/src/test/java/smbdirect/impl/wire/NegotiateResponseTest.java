package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.wire.NegotiateRequestTest.assertRule;

import java.nio.ByteBuffer;
import java.util.function.IntFunction;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class NegotiateResponseTest {

    /** [MS-SMBD] 4.1 values, ms-smbd.md 2.6. */
    static final String EXAMPLE_4_1 =
            "00 01 00 01 00 01 00 00 0A 00 0A 00 00 00 00 00 00 00 10 00 00 04 00 00 00 04 00 00 00 00 02 00";

    static ByteBuffer response(int negotiated, int requested, int granted, int status, long preferred,
            long maxReceive, long maxFragmented) {
        ByteBuffer b = ByteBuffer.allocate(32);
        NegotiateResponse.encode(b, 0, 0x0100, 0x0100, negotiated, requested, granted, status, 1048576, preferred,
                maxReceive, maxFragmented);
        return b;
    }

    @Test
    @DisplayName("2.6: the 4.1 Negotiate Response encodes byte for byte")
    void example41Encodes() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 32);
        NegotiateResponse.encode(b, 0, 0x0100, 0x0100, 0x0100, 10, 10, 0, 1048576, 1024, 1024, 131072);
        assertEquals(EXAMPLE_4_1, Bytes.hex(b, 0, 32));
    }

    @Test
    @DisplayName("2.6: the 4.1 Negotiate Response decodes to its field values and is accepted")
    void example41Decodes() {
        ByteBuffer b = Bytes.wrap(Bytes.hex(EXAMPLE_4_1));
        assertEquals(0x0100, NegotiateResponse.minVersion(b, 0));
        assertEquals(0x0100, NegotiateResponse.maxVersion(b, 0));
        assertEquals(0x0100, NegotiateResponse.negotiatedVersion(b, 0));
        assertEquals(0, NegotiateResponse.reserved(b, 0));
        assertEquals(10, NegotiateResponse.creditsRequested(b, 0));
        assertEquals(10, NegotiateResponse.creditsGranted(b, 0));
        assertEquals(0, NegotiateResponse.status(b, 0));
        assertEquals(1048576, NegotiateResponse.maxReadWriteSize(b, 0));
        assertEquals(1024, NegotiateResponse.preferredSendSize(b, 0));
        assertEquals(1024, NegotiateResponse.maxReceiveSize(b, 0));
        assertEquals(131072, NegotiateResponse.maxFragmentedSize(b, 0));
        assertNull(NegotiateResponse.check(b, 0, 32, 1024));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("smbdirect.impl.wire.Bytes#kinds")
    @DisplayName("R-2.2-02: little-endian whatever the buffer's byte order; position and limit untouched")
    void R_2_2_02_independentOfBufferByteOrder(String kind, IntFunction<ByteBuffer> factory) {
        ByteBuffer b = Bytes.dirty(factory, 48);
        b.position(3).limit(40);
        NegotiateResponse.encode(b, 5, 0x0100, 0x0100, 0x0100, 10, 10, 0, 1048576, 1024, 1024, 131072);
        assertEquals(EXAMPLE_4_1, Bytes.hex(b, 5, 32));
        assertEquals(3, b.position());
        assertEquals(40, b.limit());
        assertNull(NegotiateResponse.check(b, 5, 32, 1024));
        NegotiateResponse.encodeFailure(b, 5, SmbdWire.STATUS_NOT_SUPPORTED);
        assertEquals(SmbdWire.STATUS_NOT_SUPPORTED, NegotiateResponse.status(b, 5));
    }

    @Test
    @DisplayName("R-3.1.5.3-02..06: a failure response carries versions 0x0100, the status, and zeros elsewhere")
    void R_3_1_5_3_06_failureResponseLayout() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 32);
        NegotiateResponse.encodeFailure(b, 0, SmbdWire.STATUS_NOT_SUPPORTED);
        assertEquals("00 01 00 01 00 00 00 00 00 00 00 00 BB 00 00 C0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
                Bytes.hex(b, 0, 32));
        assertEquals(0xC00000BB, NegotiateResponse.status(b, 0));
    }

    @Test
    void R_3_1_5_6_17_failureStatusMustBeErrorSeverity() {
        ByteBuffer b = ByteBuffer.allocate(32);
        assertThrows(IllegalArgumentException.class, () -> NegotiateResponse.encodeFailure(b, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> NegotiateResponse.encodeFailure(b, 0, 0x80000005));
        NegotiateResponse.encodeFailure(b, 0, SmbdWire.STATUS_INSUFFICIENT_RESOURCES);
        assertEquals(SmbdWire.STATUS_INSUFFICIENT_RESOURCES, NegotiateResponse.status(b, 0));
    }

    @Test
    void R_3_1_5_7_01_thirtyOneBytesTerminate() {
        ByteBuffer b = response(0x0100, 255, 255, 0, 1364, 8192, 1048576);
        assertRule(false, "R-3.1.5.7-01", "length", 31, NegotiateResponse.check(b, 0, 31, 8192));
        assertRule(false, "R-3.1.5.7-01", "length", 0, NegotiateResponse.check(b, 0, 0, 8192));
    }

    @Test
    @DisplayName("R-3.1.5.7-01 / A-11: trailing bytes after the 32 are accepted")
    void R_3_1_5_7_01_trailingBytesAccepted() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 512);
        NegotiateResponse.encode(b, 0, 0x0100, 0x0100, 0x0100, 255, 255, 0, 1048576, 1364, 8192, 1048576);
        assertNull(NegotiateResponse.check(b, 0, 512, 8192));
    }

    @ParameterizedTest(name = "NegotiatedVersion=0x{0} accepted={1}")
    @CsvSource({"0100, true", "0000, false", "FFFF, false", "0101, false", "00FF, false"})
    void R_3_1_5_7_02_negotiatedVersionMustBe0x0100(String version, boolean accepted) {
        int v = Integer.parseInt(version, 16);
        assertRule(accepted, "R-3.1.5.7-02", "NegotiatedVersion", v,
                NegotiateResponse.check(response(v, 255, 255, 0, 1364, 8192, 1048576), 0, 32, 8192));
    }

    @ParameterizedTest(name = "MaxReceiveSize={0} accepted={1}")
    @CsvSource({"0, false", "127, false", "128, true", "4294967295, true"})
    void R_3_1_5_7_03_maxReceiveSizeAtLeast128(long size, boolean accepted) {
        assertRule(accepted, "R-3.1.5.7-03", "MaxReceiveSize", size,
                NegotiateResponse.check(response(0x0100, 255, 255, 0, 1364, size, 1048576), 0, 32, 8192));
    }

    @ParameterizedTest(name = "MaxFragmentedSize={0} accepted={1}")
    @CsvSource({"0, false", "130560, false", "131071, false", "131072, true", "4294967295, true"})
    @DisplayName("R-3.1.5.7-04 (A-6): MaxFragmentedSize at least 131072, ksmbd's 130560 refused")
    void R_3_1_5_7_04_maxFragmentedSizeAtLeast131072(long size, boolean accepted) {
        assertRule(accepted, "R-3.1.5.7-04", "MaxFragmentedSize", size,
                NegotiateResponse.check(response(0x0100, 255, 255, 0, 1364, 8192, size), 0, 32, 8192));
    }

    @ParameterizedTest(name = "CreditsGranted={0} accepted={1}")
    @CsvSource({"0, false", "1, true", "65535, true"})
    void R_3_1_5_7_05_creditsGrantedMustBePositive(int granted, boolean accepted) {
        assertRule(accepted, "R-3.1.5.7-05", "CreditsGranted", granted,
                NegotiateResponse.check(response(0x0100, 255, granted, 0, 1364, 8192, 1048576), 0, 32, 8192));
    }

    @ParameterizedTest(name = "CreditsRequested={0} accepted={1}")
    @CsvSource({"0, false", "1, true", "65535, true"})
    void R_3_1_5_7_06_creditsRequestedMustBePositive(int requested, boolean accepted) {
        assertRule(accepted, "R-3.1.5.7-06", "CreditsRequested", requested,
                NegotiateResponse.check(response(0x0100, requested, 255, 0, 1364, 8192, 1048576), 0, 32, 8192));
    }

    @ParameterizedTest(name = "PreferredSendSize={0} local MaxReceiveSize={1} accepted={2}")
    @CsvSource({"8192, 8192, true", "8193, 8192, false", "0, 8192, true", "4294967295, 8192, false",
        "4294967295, 4294967295, true"})
    void R_3_1_5_7_07_preferredSendSizeAtMostLocalMaxReceiveSize(long preferred, long local, boolean accepted) {
        assertRule(accepted, "R-3.1.5.7-07", "PreferredSendSize", preferred,
                NegotiateResponse.check(response(0x0100, 255, 255, 0, preferred, 8192, 1048576), 0, 32, local));
    }

    @Test
    void R_3_1_5_7_08_nonZeroStatusTerminatesAndIsReportedFirst() {
        ByteBuffer b = ByteBuffer.allocate(32);
        NegotiateResponse.encodeFailure(b, 0, SmbdWire.STATUS_NOT_SUPPORTED);
        Violation v = NegotiateResponse.check(b, 0, 32, 8192);
        assertRule(false, "R-3.1.5.7-08", "Status", 0xC00000BBL, v);
        assertTrue(v.toString().startsWith("R-3.1.5.7-08: Status=0xC00000BB "), v.toString());
        assertRule(false, "R-3.1.5.7-08", "Status", 1,
                NegotiateResponse.check(response(0x0100, 255, 255, 1, 1364, 8192, 1048576), 0, 32, 8192));
    }

    @Test
    @DisplayName("A-12 / R-2.2.2-07: MinVersion, MaxVersion and Reserved of the response are not validated")
    void A_12_responseVersionRangeAndReservedIgnored() {
        ByteBuffer b = ByteBuffer.allocate(32);
        NegotiateResponse.encode(b, 0, 0xFFFF, 0x0000, 0x0100, 255, 255, 0, 1048576, 1364, 8192, 1048576);
        b.putShort(NegotiateResponse.RESERVED, (short) 7);
        assertNull(NegotiateResponse.check(b, 0, 32, 8192));
    }

    @Test
    void encodeRefusesValuesThatDoNotFitTheirFields() {
        ByteBuffer b = ByteBuffer.allocate(32);
        assertThrows(IllegalArgumentException.class, () -> NegotiateResponse.encode(b, 0, 0x0100, 0x0100, 0x0100,
                255, 0x10000, 0, 1, 1, 128, 131072));
        assertThrows(IllegalArgumentException.class, () -> NegotiateResponse.encode(b, 0, 0x0100, 0x0100, 0x0100,
                255, 1, 0, 0x1_0000_0000L, 1, 128, 131072));
    }
}
