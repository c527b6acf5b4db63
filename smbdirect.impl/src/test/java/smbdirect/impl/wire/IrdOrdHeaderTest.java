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
