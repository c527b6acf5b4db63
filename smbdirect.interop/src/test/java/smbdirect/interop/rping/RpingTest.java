package smbdirect.interop.rping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/** rping's wire facts, checked against bytes Linux siw carried (tools/siw-vm/PROOF.md, b1-b4). */
class RpingTest {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void pingZeroIsTheSixtyFourBytesRealRpingSent() {
        // PROOF.md b1, FPDU #3 (siw's RDMA Write of rping -s's echo): the payload is rping -c's ping 0
        byte[] wire = HEX.parseHex("72646d612d70696e672d303a204142434445464748494a4b4c4d4e4f5051525354555657"
                + "58595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f70717200");
        assertArrayEquals(wire, Rping.data(0, 64));
    }

    @Test
    void eachPingStartsOneCharacterLaterAndTheStartWrapsFromLowercaseZToA() {
        assertEquals("rdma-ping-1: BCD", new String(Rping.data(1, 64), 0, 16, StandardCharsets.US_ASCII));
        // start = 65 + ping mod 58: ping 57 starts at 'z', ping 58 at 'A' again
        assertEquals("rdma-ping-57: zAB", new String(Rping.data(57, 64), 0, 17, StandardCharsets.US_ASCII));
        assertEquals("rdma-ping-58: ABC", new String(Rping.data(58, 64), 0, 17, StandardCharsets.US_ASCII));
    }

    @Test
    void theDataWrapsFromLowercaseZToAWithinABufferAndEndsInOneZero() {
        byte[] d = Rping.data(0, 100);
        int prefix = "rdma-ping-0: ".length();
        assertEquals('z', d[prefix + 57]);
        assertEquals('A', d[prefix + 58]);
        assertEquals(0, d[99]);
        assertEquals(99, Rping.strlen(ByteBuffer.wrap(d), 0, 100));
    }

    @Test
    void aBufferTooSmallForThePrefixIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Rping.data(10, 14));
        assertEquals("ping size 14 cannot hold \"rdma-ping-10: \" and its terminator", e.getMessage());
    }

    @Test
    void theBufferInfoIsBigEndianAsRealRpingSentIt() {
        // PROOF.md b3, FPDU #1: rping -c's Send, buf=0x55ad26cbf370 rkey=0xc392b500 size=64
        byte[] wire = HEX.parseHex("000055ad26cbf370c392b50000000040");
        Rping.Info info = Rping.Info.decode(ByteBuffer.wrap(wire).order(java.nio.ByteOrder.LITTLE_ENDIAN), 0);
        assertEquals(new Rping.Info(0x55ad26cbf370L, 0xc392b500, 64), info);
        ByteBuffer out = ByteBuffer.allocate(20).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        info.encode(out, 4);
        byte[] got = new byte[16];
        out.get(4, got);
        assertArrayEquals(wire, got);
        assertEquals(0, out.position());
    }

    @Test
    void theSizeIsUnsigned() {
        assertEquals(0xFFFFFFF0L, new Rping.Info(0, 0, 0xFFFFFFF0).unsignedSize());
    }
}
