package smbdirect.rdma.iwarp.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

/** FPDU framing (RFC 5044 §4.1, §6.1) and DDP/RDMAP headers against the verified bytes of iwarp.md §3.3 and PROOF.md. */
class FpduTest {

    private final CRC32C crc = new CRC32C();

    @Test
    void rfc5044_6_1_crc32cIsTheCastagnoliCrc() {
        ByteBuffer b = ByteBuffer.wrap("123456789".getBytes(StandardCharsets.US_ASCII));
        assertEquals(0xE3069283, Fpdu.crc32c(crc, b, 0, 9));
    }

    @Test
    void rfc5044_4_1_padMakesTheFpduEndFourAligned() {
        assertEquals(0, Fpdu.pad(22));
        assertEquals(3, Fpdu.pad(19));
        assertEquals(2, Fpdu.pad(14 + 2));
        assertEquals(0, Fpdu.pad(14));
        assertEquals(28, Fpdu.size(19));
        assertEquals(20, Fpdu.MIN_SIZE);
    }

    @Test
    void rfc5041_4_3_untaggedSendWithCrcMatchesTheVerifiedExample() {
        ByteBuffer b = ByteBuffer.allocate(64);
        Ddp.putUntagged(b, 0, 22, true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0);
        b.put(20, (byte) 1).put(21, (byte) 2).put(22, (byte) 3).put(23, (byte) 4);
        int size = Fpdu.seal(b, 0, crc);
        assertEquals(28, size);
        assertEquals("00 16 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 01 02 03 04 b4 e2 b5 29",
                Hex.of(b, 0, size));
    }

    @Test
    void rfc5041_4_2_paddedTaggedWriteMatchesTheVerifiedExample() {
        ByteBuffer b = ByteBuffer.allocate(64);
        Ddp.putTagged(b, 0, 19, true, Rdmap.RDMA_WRITE, 0x1234567a, 0x00007f0000001000L);
        b.position(16);
        b.put("hello".getBytes(StandardCharsets.US_ASCII));
        int size = Fpdu.seal(b, 0, crc);
        assertEquals("00 13 c1 40 12 34 56 7a 00 00 7f 00 00 00 10 00 68 65 6c 6c 6f 00 00 00 5e 43 0e 4c",
                Hex.of(b, 0, size));
    }

    @Test
    void smbDirectNegotiateRequestInASendMatchesTheVerifiedExample() {
        ByteBuffer b = ByteBuffer.allocate(64);
        Ddp.putUntagged(b, 0, 38, true, Rdmap.SEND, 0, Ddp.QN_SEND, 2, 0);
        byte[] negotiate = Hex.bytes("00 01 00 01 00 00 0a 00 00 04 00 00 00 04 00 00 00 00 02 00");
        b.position(20);
        b.put(negotiate);
        int size = Fpdu.seal(b, 0, crc);
        assertEquals("10 64 da 08", Hex.of(b, size - 4, 4));
    }

    @Test
    void rfc6581_zeroLengthWriteRtrAsSiwBuildsIt() {
        ByteBuffer b = ByteBuffer.allocate(32);
        Ddp.putTagged(b, 0, 14, true, Rdmap.RDMA_WRITE, 1, 0);
        int size = Fpdu.seal(b, 0, crc);
        assertEquals("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f", Hex.of(b, 0, size));
    }

    @Test
    void rfc5040_4_4_readRequestFromRealSiwDecodesAndItsCrcChecks() {
        ByteBuffer b = Hex.buffer("00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 ad fc d0 00"
                + " 00 00 56 54 2b 9f cf 30 00 00 00 40 00 00 c1 1e 00 00 00 00 00 00 10 00 91 57 96 8d");
        assertEquals(46, Fpdu.ulpduLength(b, 0));
        int ctrl = Ddp.control(b, 0);
        assertEquals(false, Ddp.isTagged(ctrl));
        assertEquals(true, Ddp.isLast(ctrl));
        assertEquals(1, Ddp.version(ctrl));
        assertEquals(Rdmap.READ_REQUEST, Rdmap.opcode(Rdmap.control(b, 0)));
        assertEquals(1, Rdmap.version(Rdmap.control(b, 0)));
        assertEquals(Ddp.QN_READ_REQUEST, Ddp.qn(b, 0));
        assertEquals(1, Ddp.msn(b, 0));
        assertEquals(0, Ddp.mo(b, 0));
        assertEquals(0xadfcd000, Rdmap.sinkStag(b, 0));
        assertEquals(0x56542b9fcf30L, Rdmap.sinkTo(b, 0));
        assertEquals(64, Rdmap.readSize(b, 0));
        assertEquals(0xc11e, Rdmap.sourceStag(b, 0));
        assertEquals(0x1000, Rdmap.sourceTo(b, 0));
        assertEquals(Fpdu.crcField(b, 48), Fpdu.crc32c(crc, b, 0, 48));
    }

    @Test
    void rfc5040_4_4_readRequestWeEncodeIsByteIdenticalToSiws() {
        ByteBuffer b = ByteBuffer.allocate(64);
        Ddp.putUntagged(b, 0, 46, true, Rdmap.READ_REQUEST, 0, Ddp.QN_READ_REQUEST, 1, 0);
        Rdmap.putReadRequest(b, 0, 0xadfcd000, 0x56542b9fcf30L, 64, 0xc11e, 0x1000);
        int size = Fpdu.seal(b, 0, crc);
        assertEquals("00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 ad fc d0 00 00 00 56 54 2b 9f cf 30"
                + " 00 00 00 40 00 00 c1 1e 00 00 00 00 00 00 10 00 91 57 96 8d", Hex.of(b, 0, size));
    }

    @Test
    void siwsSendAndWriteWithCrcCheck() {
        ByteBuffer send = Hex.buffer("00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
                + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 84 60 9a 12");
        assertEquals(Fpdu.crcField(send, 36), Fpdu.crc32c(crc, send, 0, 36));
        ByteBuffer write = Hex.buffer("00 4e c1 40 00 00 c2 2e 00 00 00 00 00 00 30 00"
                + " 72 64 6d 61 2d 70 69 6e 67 2d 30 3a 20 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51 52 53"
                + " 54 55 56 57 58 59 5a 5b 5c 5d 5e 5f 60 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 00"
                + " 05 52 84 38");
        assertEquals(0xc22e, Ddp.stag(write, 0));
        assertEquals(0x3000, Ddp.taggedOffset(write, 0));
        assertEquals(Fpdu.crcField(write, 80), Fpdu.crc32c(crc, write, 0, 80));
    }

    @Test
    void crcComputationLeavesPositionAndLimitAlone() {
        ByteBuffer b = ByteBuffer.allocateDirect(32);
        b.position(3).limit(7);
        Fpdu.crc32c(crc, b, 8, 16);
        assertEquals(3, b.position());
        assertEquals(7, b.limit());
    }
}
