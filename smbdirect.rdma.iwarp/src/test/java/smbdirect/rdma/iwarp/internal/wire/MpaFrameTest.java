package smbdirect.rdma.iwarp.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** MPA Request/Reply frames (RFC 5044 §7.1) and the RFC 6581 IRD/ORD word against iwarp.md §2.6 and siw's bytes. */
class MpaFrameTest {

    @Test
    void rfc5044_7_1_requestWithCrcAndRfc6581WordMatchesTheVerifiedExample() {
        ByteBuffer b = ByteBuffer.allocate(24);
        MpaFrame.encode(b, 0, true, MpaFrame.FLAG_CRC | MpaFrame.FLAG_ENHANCED, MpaFrame.REVISION_2, 4);
        MpaV2Control.encode(b, MpaFrame.HEADER_SIZE, 16, 16, 0, 0);
        assertEquals("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 50 02 00 04 00 10 00 10", Hex.of(b, 0, 24));
    }

    @Test
    void rfc5044_7_1_replyKeyDiffersInTwoBytes() {
        ByteBuffer b = ByteBuffer.allocate(24);
        MpaFrame.encode(b, 0, false, MpaFrame.FLAG_CRC | MpaFrame.FLAG_ENHANCED, MpaFrame.REVISION_2, 4);
        MpaV2Control.encode(b, MpaFrame.HEADER_SIZE, 16, 16, 0, 0);
        assertEquals("4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 50 02 00 04 00 10 00 10", Hex.of(b, 0, 24));
        assertEquals(MpaFrame.Key.REPLY, MpaFrame.key(b, 0));
    }

    @Test
    void decodesSiwsRequestAsCapturedFromLinux() {
        ByteBuffer b = Hex.buffer("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 10 02 00 04 00 01 00 01");
        assertEquals(MpaFrame.Key.REQUEST, MpaFrame.key(b, 0));
        assertEquals(MpaFrame.FLAG_ENHANCED, MpaFrame.flags(b, 0));
        assertEquals(2, MpaFrame.revision(b, 0));
        assertEquals(4, MpaFrame.pdLength(b, 0));
        assertEquals(1, MpaV2Control.ird(b, 20));
        assertEquals(1, MpaV2Control.ord(b, 20));
        assertEquals(0, MpaV2Control.irdFlags(b, 20));
        assertEquals(0, MpaV2Control.ordFlags(b, 20));
    }

    @Test
    void decodesTheCifsRequestWithItsLittleEndianMsSmbdHeaderAfterTheWord() {
        // PROOF.md d3: IRD 32, ORD 0, then [MS-SMBD] 6.1's header as cifs writes it
        ByteBuffer b = Hex.buffer("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 10 02 00 0c"
                + " 00 20 00 00 20 00 00 00 01 00 00 00");
        assertEquals(12, MpaFrame.pdLength(b, 0));
        assertEquals(32, MpaV2Control.ird(b, 20));
        assertEquals(0, MpaV2Control.ord(b, 20));
    }

    @Test
    void rfc6581_5_peerToPeerWordWithWriteAndReadRtrAsSiwOffersIt() {
        ByteBuffer b = ByteBuffer.allocate(4);
        MpaV2Control.encode(b, 0, 16, 16, MpaV2Control.PEER_TO_PEER, MpaV2Control.WRITE_RTR | MpaV2Control.READ_RTR);
        assertEquals("80 10 c0 10", Hex.of(b, 0, 4));
        assertEquals(MpaV2Control.PEER_TO_PEER, MpaV2Control.irdFlags(b, 0));
        assertEquals(MpaV2Control.WRITE_RTR | MpaV2Control.READ_RTR, MpaV2Control.ordFlags(b, 0));
        assertEquals(16, MpaV2Control.ird(b, 0));
        assertEquals(16, MpaV2Control.ord(b, 0));
    }

    @Test
    void anyOtherKeyIsUnknown() {
        ByteBuffer b = Hex.buffer("47 45 54 20 2f 20 48 54 54 50 2f 31 2e 31 0d 0a 00 00 00 00");
        assertEquals(MpaFrame.Key.UNKNOWN, MpaFrame.key(b, 0));
    }

    @Test
    void depthsBeyondFourteenBitsAreRefused() {
        ByteBuffer b = ByteBuffer.allocate(4);
        assertThrows(IllegalArgumentException.class, () -> MpaV2Control.encode(b, 0, 0x4000, 1, 0, 0));
    }
}
