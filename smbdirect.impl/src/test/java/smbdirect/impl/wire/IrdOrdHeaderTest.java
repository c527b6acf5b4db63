package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static smbdirect.impl.wire.NegotiateRequestTest.assertRule;

import java.nio.ByteBuffer;
import java.util.function.IntFunction;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class IrdOrdHeaderTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("smbdirect.impl.wire.Bytes#kinds")
    @DisplayName("A-45: IRD and ORD are big-endian u32 whatever the buffer's byte order")
    void A_45_bigEndianPair(String kind, IntFunction<ByteBuffer> factory) {
        ByteBuffer b = Bytes.dirty(factory, 16);
        IrdOrdHeader.encode(b, 3, 16, 0xFFFF_FFFFL);
        assertEquals("00 00 00 10 FF FF FF FF", Bytes.hex(b, 3, 8));
        assertEquals(16, IrdOrdHeader.ird(b, 3));
        assertEquals(0xFFFF_FFFFL, IrdOrdHeader.ord(b, 3));
        assertEquals(0, b.position());
        assertNull(IrdOrdHeader.check(b, 3, 8));
    }

    @Test
    @DisplayName("R-6.2-01 / A-45: a little-endian header (Linux cifs: 20 00 00 00 01 00 00 00) reads IRD 32, ORD 1")
    void R_6_2_01_A_45_littleEndianHeaderIsReadInTheOtherByteOrder() {
        ByteBuffer b = ByteBuffer.wrap(new byte[] {0x20, 0, 0, 0, 1, 0, 0, 0});
        assertEquals(32, IrdOrdHeader.ird(b, 0));
        assertEquals(1, IrdOrdHeader.ord(b, 0));
        assertNull(IrdOrdHeader.check(b, 0, 8));
    }

    @Test
    @DisplayName("A-45: readings below 2^16 are big-endian; at or above, the smaller of both orders")
    void A_45_aReadingAtOrAbove2To16IsTheOtherByteOrder() {
        assertEquals(0xFFFF, IrdOrdHeader.depth(0xFFFF), "below 2^16: as read");
        assertEquals(0x100, IrdOrdHeader.depth(0x1_0000), "2^16 read big-endian is 256 little-endian");
        assertEquals(0x20, IrdOrdHeader.depth(0x2000_0000L));
        assertEquals(0xFFFF_FFFFL, IrdOrdHeader.depth(0xFFFF_FFFFL), "both orders the same: as read");
        assertEquals(0x0001_0001L, IrdOrdHeader.depth(0x0001_0001L), "swapped (0x01000100) is not smaller: as read");
    }

    @Test
    @DisplayName("A-45: a depth too large for an int is clamped before the cast, never negative")
    void A_45_depthsAreClampedInLongBeforeTheIntCast() {
        assertEquals(Integer.MAX_VALUE, IrdOrdHeader.clampToInt(0xFFFF_FFFFL));
        assertEquals(Integer.MAX_VALUE, IrdOrdHeader.clampToInt(0x8000_0000L));
        assertEquals(32, IrdOrdHeader.clampToInt(32));
    }

    @Test
    void R_6_2_01_headerShorterThan8BytesIsAbsent() {
        ByteBuffer b = ByteBuffer.allocate(8);
        IrdOrdHeader.encode(b, 0, 1, 1);
        assertRule(false, "R-6.2-01", "length", 7, IrdOrdHeader.check(b, 0, 7));
        assertRule(false, "R-6.2-01", "length", 0, IrdOrdHeader.check(b, 0, 0));
        assertNull(IrdOrdHeader.check(b, 0, 8));
    }

    @Test
    void R_6_1_02_irdAndOrdMustBePositive() {
        ByteBuffer b = ByteBuffer.allocate(56);
        IrdOrdHeader.encode(b, 0, 0, 1);
        assertRule(false, "R-6.1-02", "IRD", 0, IrdOrdHeader.check(b, 0, 56));
        IrdOrdHeader.encode(b, 0, 1, 0);
        assertRule(false, "R-6.1-02", "ORD", 0, IrdOrdHeader.check(b, 0, 56));
    }

    @Test
    void encodeRefusesValuesOutsideU32() {
        ByteBuffer b = ByteBuffer.allocate(8);
        assertThrows(IllegalArgumentException.class, () -> IrdOrdHeader.encode(b, 0, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> IrdOrdHeader.encode(b, 0, 1, 0x1_0000_0000L));
    }
}
