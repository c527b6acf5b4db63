package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;

class BufferDescriptorListTest {

    static final String EXAMPLE_4_4 = "12 E0 CD AB 00 00 00 00 56 BC 00 1A 00 00 10 00";

    @Test
    @DisplayName("2.6 / R-2.2.3.1-01: the 4.4 Buffer Descriptor encodes and decodes byte for byte")
    void R_2_2_3_1_01_example44() {
        ByteBuffer b = Bytes.dirty(n -> ByteBuffer.allocate(n).order(ByteOrder.BIG_ENDIAN), 20);
        BufferDescriptorList.encode(b, 4, 0, 0xABCDE012L, 0x1A00BC56L, 1 << 20);
        assertEquals(EXAMPLE_4_4, Bytes.hex(b, 4, 16));
        assertEquals(0xABCDE012L, BufferDescriptorList.offset(b, 4, 0));
        assertEquals(0x1A00BC56L, BufferDescriptorList.token(b, 4, 0));
        assertEquals(1 << 20, BufferDescriptorList.length(b, 4, 0));
    }

    @Test
    @DisplayName("R-2.2.3.1-01: a list agrees with smbdirect.api.BufferDescriptor")
    void R_2_2_3_1_01_agreesWithApiValueType() {
        ByteBuffer b = ByteBuffer.allocate(48);
        BufferDescriptorList.encode(b, 0, 0, 0x8000_0000_0000_0001L, 0xFFFF_FFFFL, 0xFFFF_FFFFL);
        BufferDescriptorList.encode(b, 0, 1, 0x1000, 7, 4096);
        BufferDescriptorList.encode(b, 0, 2, 0x2000, 8, 100);
        List<BufferDescriptor> api = BufferDescriptor.decodeList(b.duplicate(), BufferDescriptorList.count(48));
        assertEquals(new BufferDescriptor(0x8000_0000_0000_0001L, -1, -1), api.get(0));
        assertEquals(new BufferDescriptor(0x2000, 8, 100), api.get(2));
        assertEquals(0x8000_0000_0000_0001L, BufferDescriptorList.offset(b, 0, 0));
        assertEquals(0xFFFF_FFFFL + 4096 + 100, BufferDescriptorList.totalLength(b, 0, 3));
        assertEquals(0, b.position());
    }

    @Test
    void countRefusesPartialDescriptors() {
        assertEquals(0, BufferDescriptorList.count(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BufferDescriptorList.count(17));
        assertEquals("descriptor list length=17 is not a multiple of 16 (R-2.2.3.1-01)", e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> BufferDescriptorList.token(ByteBuffer.allocate(16), 0, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> BufferDescriptorList.token(ByteBuffer.allocate(16), 0, -1));
    }

    @Test
    @DisplayName("R-2.2.3.1-01: a received list is whole, has no empty segment and stays within the limit")
    void R_2_2_3_1_01_checkReceivedList() {
        ByteBuffer b = ByteBuffer.allocate(64);
        for (int i = 0; i < 4; i++) {
            BufferDescriptorList.encode(b, 0, i, 0x1000L * i, 5, 0x4000_0000L);
        }
        assertNull(BufferDescriptorList.check(b, 0, 64, 0x1_0000_0000L));
        Violation over = BufferDescriptorList.check(b, 0, 64, 0xFFFF_FFFFL);
        assertEquals("R-2.2.3.1-01", over.rule());
        assertEquals(0x1_0000_0000L, over.value());
        assertEquals("length", BufferDescriptorList.check(b, 0, 0, 1).field());
        assertEquals(33, BufferDescriptorList.check(b, 0, 33, 1L << 40).value());
        BufferDescriptorList.encode(b, 0, 2, 0, 5, 0);
        assertEquals("Length", BufferDescriptorList.check(b, 0, 64, 1L << 40).field());
        assertEquals("R-2.2.3.1-01: Length=0 of descriptor 2 is 0", BufferDescriptorList.check(b, 0, 64, 1L << 40)
                .toString());
    }
}
