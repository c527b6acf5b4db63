package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

class DataTransferTest {

    static final long MAX_FRAGMENTED = 1048576;
    static final String EXAMPLE_4_2_HEADER = "0A 00 01 00 00 00 00 00 00 00 00 00 18 00 00 00 F4 01 00 00 00 00 00 00";
    static final String CREDIT_GRANT = "FF 00 0A 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
    static final String KEEPALIVE = "FF 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";

    /** A message of {@code length} bytes with the given header fields written raw. */
    static ByteBuffer message(int length, int credits, long remaining, long dataOffset, long dataLength) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(length, 20));
        DataTransfer.encodeHeaderOnly(b, 0, credits, 0, 0, remaining, dataOffset, dataLength);
        return b;
    }

    static Violation check(int length, int credits, long remaining, long dataOffset, long dataLength) {
        return DataTransfer.check(message(length, credits, remaining, dataOffset, dataLength), 0, length, MAX_FRAGMENTED);
    }

    @Test
    @DisplayName("2.6: the 4.2 Data Transfer header (500-byte payload at 24) encodes byte for byte, padding zeroed")
    void example42Encodes() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 524);
        assertEquals(24, DataTransfer.encodeHeader(b, 0, 10, 1, 0, 0, 24, 500));
        assertEquals(EXAMPLE_4_2_HEADER, Bytes.hex(b, 0, 24));
        assertEquals(0xAA, b.get(24) & 0xFF, "the payload is the caller's to write");
    }

    @Test
    @DisplayName("2.6: the 4.2 Data Transfer header decodes and a 524-byte message is accepted")
    void example42Decodes() {
        ByteBuffer b = ByteBuffer.allocate(524).put(0, Bytes.hex(EXAMPLE_4_2_HEADER));
        assertEquals(10, DataTransfer.creditsRequested(b, 0));
        assertEquals(1, DataTransfer.creditsGranted(b, 0));
        assertEquals(0, DataTransfer.flags(b, 0));
        assertEquals(0, DataTransfer.reserved(b, 0));
        assertEquals(0, DataTransfer.remainingDataLength(b, 0));
        assertEquals(24, DataTransfer.dataOffset(b, 0));
        assertEquals(500, DataTransfer.dataLength(b, 0));
        assertNull(DataTransfer.check(b, 0, 524, MAX_FRAGMENTED));
        assertRule(false, "R-3.1.5.8-04", "DataOffset+DataLength", 524, DataTransfer.check(b, 0, 523, MAX_FRAGMENTED));
    }

    @Test
    @DisplayName("2.6 / R-3.1.5.4-03..07: the empty credit-grant message is exactly the 20-byte header")
    void exampleCreditGrant() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 24);
        assertEquals(20, DataTransfer.encodeHeader(b, 0, 255, 10, 0, 0, 0, 0));
        assertEquals(CREDIT_GRANT, Bytes.hex(b, 0, 20));
        assertEquals(0xAA, b.get(20) & 0xFF);
        assertNull(DataTransfer.check(Bytes.wrap(Bytes.hex(CREDIT_GRANT)), 0, 20, MAX_FRAGMENTED));
    }

    @Test
    @DisplayName("2.6 / R-2.2.3-04: the keepalive carries SMB_DIRECT_RESPONSE_REQUESTED")
    void exampleKeepalive() {
        ByteBuffer b = ByteBuffer.allocate(20);
        DataTransfer.encodeHeader(b, 0, 255, 0, SmbdWire.FLAG_RESPONSE_REQUESTED, 0, 0, 0);
        assertEquals(KEEPALIVE, Bytes.hex(b, 0, 20));
        assertTrue(DataTransfer.responseRequested(b, 0));
        assertFalse(DataTransfer.responseRequested(Bytes.wrap(Bytes.hex(CREDIT_GRANT)), 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("smbdirect.impl.wire.Bytes#kinds")
    @DisplayName("R-2.2-02: little-endian whatever the buffer's byte order; position and limit untouched")
    void R_2_2_02_independentOfBufferByteOrder(String kind, IntFunction<ByteBuffer> factory) {
        ByteBuffer b = Bytes.dirty(factory, 600);
        b.position(1).limit(590);
        assertEquals(24, DataTransfer.encodeHeader(b, 9, 10, 1, 0, 0, 24, 500));
        assertEquals(EXAMPLE_4_2_HEADER, Bytes.hex(b, 9, 24));
        assertEquals(1, b.position());
        assertEquals(590, b.limit());
        assertEquals(500, DataTransfer.dataLength(b, 9));
        assertNull(DataTransfer.check(b, 9, 524, MAX_FRAGMENTED));
        DataTransfer.putCreditsGranted(b, 9, 0xFFFF);
        DataTransfer.putCreditsRequested(b, 9, 0x1234);
        DataTransfer.putFlags(b, 9, 1);
        assertEquals(0xFFFF, DataTransfer.creditsGranted(b, 9));
        assertEquals(0x1234, DataTransfer.creditsRequested(b, 9));
        assertEquals(1, DataTransfer.flags(b, 9));
    }

    @Test
    @DisplayName("R-3.1.5.4-17: padding of a non-default DataOffset 32 is zeroed")
    void R_3_1_5_4_17_paddingZeroed() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 64);
        assertEquals(32, DataTransfer.encodeHeader(b, 0, 1, 0, 0, 0, 32, 8));
        for (int i = 20; i < 32; i++) {
            assertEquals(0, b.get(i), "padding byte " + i);
        }
        assertEquals(0xAA, b.get(32) & 0xFF);
        assertNull(DataTransfer.check(b, 0, 40, MAX_FRAGMENTED));
    }

    @Test
    void encodeHeaderRefusesAPayloadOverlappingTheHeader() {
        ByteBuffer b = ByteBuffer.allocate(64);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DataTransfer.encodeHeader(b, 0, 1, 0, 0, 0, 16, 8));
        assertTrue(e.getMessage().contains("DataOffset=16"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DataTransfer.encodeHeader(b, 0, 1, 0, 0, 0, 0xFFFF_FFF8L, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> DataTransfer.encodeHeader(b, 0, 1, 0, 0, 0, 72, 8));
        assertEquals(20, DataTransfer.encodeHeaderOnly(b, 0, 1, 0, 0, 0, 0xFFFF_FFF8L, 8));
        assertEquals(0xFFFF_FFF8L, DataTransfer.dataOffset(b, 0));
    }

    @Test
    void encodeRefusesValuesThatDoNotFitTheirFields() {
        ByteBuffer b = ByteBuffer.allocate(64);
        assertThrows(IllegalArgumentException.class, () -> DataTransfer.encodeHeader(b, 0, 0x10000, 0, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> DataTransfer.encodeHeader(b, 0, 1, -1, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> DataTransfer.encodeHeader(b, 0, 1, 0, 0x10000, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> DataTransfer.encodeHeader(b, 0, 1, 0, 0, -1, 0, 0));
        assertThrows(IllegalArgumentException.class,
                () -> DataTransfer.encodeHeader(b, 0, 1, 0, 0, 0, 24, 0x1_0000_0000L));
    }

    @ParameterizedTest(name = "length={0} accepted={1}")
    @CsvSource({"0, false", "19, false", "20, true"})
    void R_3_1_5_8_01_lengthAtLeast20(int length, boolean accepted) {
        assertRule(accepted, "R-3.1.5.8-01", "length", length, check(length, 1, 0, 0, 0));
    }

    @ParameterizedTest(name = "CreditsRequested={0} accepted={1}")
    @CsvSource({"0, false", "1, true", "65535, true"})
    void R_3_1_5_8_02_creditsRequestedAtLeast1(int credits, boolean accepted) {
        assertRule(accepted, "R-3.1.5.8-02", "CreditsRequested", credits, check(20, credits, 0, 0, 0));
    }

    @ParameterizedTest(name = "DataOffset={0} accepted={1}")
    @CsvSource({"20, false", "23, false", "24, true", "25, false", "31, false", "32, true", "4294967295, false",
        "4294967294, false"})
    void R_3_1_5_8_03_dataOffsetMultipleOf8(long dataOffset, boolean accepted) {
        int length = 32 + 8;
        Violation v = check(length, 1, 0, dataOffset, accepted ? 8 : 0);
        assertRule(accepted, "R-3.1.5.8-03", "DataOffset", dataOffset, v);
    }

    @Test
    void R_3_1_5_8_03_toStringNamesRuleFieldAndValue() {
        assertEquals("R-3.1.5.8-03: DataOffset=23 is not a multiple of 8", check(40, 1, 0, 23, 8).toString());
    }

    @Test
    void R_3_1_5_8_04_payloadEndingAtTheMessageEndAccepted() {
        assertNull(check(24 + 100, 1, 0, 24, 100));
    }

    @Test
    void R_3_1_5_8_04_dataLengthOneBeyondTheEndTerminates() {
        assertRule(false, "R-3.1.5.8-04", "DataOffset+DataLength", 125, check(24 + 100, 1, 0, 24, 101));
    }

    @Test
    @DisplayName("R-3.1.5.8-04 / A-31: DataLength 0xFFFFFFFF does not overflow into acceptance")
    void R_3_1_5_8_04_dataLengthMaxDoesNotOverflow() {
        assertRule(false, "R-3.1.5.8-04", "DataOffset+DataLength", 24 + 0xFFFF_FFFFL,
                check(124, 1, 0, 24, 0xFFFF_FFFFL));
    }

    @Test
    @DisplayName("R-3.1.5.8-04 / A-31: DataOffset 0xFFFFFFF8 + DataLength 8 (wraps to 0 in 32 bits) terminates")
    void R_3_1_5_8_04_dataOffsetPlusLengthWrappingTo0Terminates() {
        assertRule(false, "R-3.1.5.8-04", "DataOffset+DataLength", 0x1_0000_0000L,
                check(124, 1, 0, 0xFFFF_FFF8L, 8));
    }

    @Test
    void R_3_1_5_8_04_dataOffsetPastTheEndTerminates() {
        assertRule(false, "R-3.1.5.8-04", "DataOffset", 32, check(24, 1, 0, 32, 0));
        assertRule(false, "R-3.1.5.8-04", "DataOffset+DataLength", 40, check(32, 1, 0, 32, 8));
    }

    @Test
    @DisplayName("A-29: DataOffset 24 with DataLength 0 (inside the message) is accepted")
    void A_29_nonZeroDataOffsetWithoutPayloadAccepted() {
        assertNull(check(24, 1, 1000, 24, 0));
        assertNull(check(20, 1, 0, 0, 0));
    }

    @ParameterizedTest(name = "DataLength={0} RemainingDataLength={1} accepted={2}")
    @CsvSource({
        "100, 1048476, true",
        "100, 1048477, false",
        "0, 1048576, true",
        "0, 1048577, false",
        "0, 4294967295, false",
        "100, 4294967295, false",
    })
    @DisplayName("R-3.1.5.8-05 / A-32: DataLength + RemainingDataLength at most MaxFragmentedRecvSize")
    void R_3_1_5_8_05_reassemblyLimit(long dataLength, long remaining, boolean accepted) {
        int length = 24 + (int) dataLength;
        long offset = dataLength == 0 ? 0 : 24;
        assertRule(accepted, "R-3.1.5.8-05", "DataLength+RemainingDataLength", dataLength + remaining,
                check(length, 1, remaining, offset, dataLength));
    }

    @Test
    @DisplayName("R-3.1.5.8-05 / A-31: the sum is not computed in 32 bits even with a 4 GiB limit")
    void R_3_1_5_8_05_sumDoesNotWrap() {
        ByteBuffer b = message(124, 1, 0xFFFF_FFFFL, 24, 100);
        assertRule(false, "R-3.1.5.8-05", "DataLength+RemainingDataLength", 0xFFFF_FFFFL + 100,
                DataTransfer.check(b, 0, 124, 0xFFFF_FFFFL));
        ByteBuffer ok = message(124, 1, 0xFFFF_FFFFL - 100, 24, 100);
        assertNull(DataTransfer.check(ok, 0, 124, 0xFFFF_FFFFL));
    }

    @Test
    @DisplayName("R-3.1.5.8-06: checks run in order 01..05, the first failure wins")
    void R_3_1_5_8_06_checkOrder() {
        assertEquals("R-3.1.5.8-01", check(19, 0, 0xFFFF_FFFFL, 23, 0xFFFF_FFFFL).rule());
        assertEquals("R-3.1.5.8-02", check(20, 0, 0xFFFF_FFFFL, 23, 0xFFFF_FFFFL).rule());
        assertEquals("R-3.1.5.8-03", check(20, 1, 0xFFFF_FFFFL, 23, 0xFFFF_FFFFL).rule());
        assertEquals("R-3.1.5.8-04", check(20, 1, 0xFFFF_FFFFL, 24, 0xFFFF_FFFFL).rule());
        assertEquals("R-3.1.5.8-05", check(24, 1, 0xFFFF_FFFFL, 24, 0).rule());
    }

    @Test
    @DisplayName("R-2.2.3-06 / R-2.2.3-12 / A-11: Reserved, unknown flags, padding and trailing bytes are ignored")
    void R_2_2_3_12_ignoredBytesDoNotFailTheCheck() {
        ByteBuffer b = Bytes.dirty(ByteBuffer::allocate, 200);
        DataTransfer.encodeHeaderOnly(b, 0, 1, 0, 0xFFFE, 0, 24, 100);
        b.putShort(DataTransfer.RESERVED, (short) -1);
        assertNull(DataTransfer.check(b, 0, 200, MAX_FRAGMENTED));
        assertEquals(0xFFFF, DataTransfer.reserved(b, 0));
    }

    @Test
    void maxPayloadIsMaxSendSizeMinus24() {
        assertEquals(1340, DataTransfer.maxPayload(1364));
        assertEquals(1000, DataTransfer.maxPayload(1024));
        assertEquals(0, DataTransfer.maxPayload(20));
    }
}
