package smbdirect.rdma.iwarp.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

/** Terminate (RFC 5040 §4.8) encoding against iwarp.md §5.5 and decoding of both control-word layouts (real siw's). */
class TerminateTest {

    @Test
    void rfc5040_4_8_noBufferTerminateWithCopiedSendHeaderMatchesTheVerifiedExample() {
        ByteBuffer offending = ByteBuffer.allocate(64);
        Ddp.putUntagged(offending, 0, 22, true, Rdmap.SEND, 0, Ddp.QN_SEND, 2, 0);
        ByteBuffer b = ByteBuffer.allocate(128);
        int size = Terminate.encode(b, 0, TerminateError.DDP_NO_BUFFER, offending, Ddp.CONTROL,
                Ddp.UNTAGGED_HEADER_ULPDU, 4, false, new CRC32C());
        assertEquals("00 2a 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 12 02 c0 00"
                + " 00 04 41 43 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 5c d6 54 58", Hex.of(b, 0, size));
    }

    @Test
    void rfc5040_4_8_llpTerminateCopiesNothingAndNeedsNoPad() {
        ByteBuffer b = ByteBuffer.allocate(64);
        int size = Terminate.encode(b, 0, TerminateError.MPA_CRC, null, 0, 0, 0, false, null);
        assertEquals(28, size);
        assertEquals(22, Fpdu.ulpduLength(b, 0));
        assertEquals("20 02 00 00", Hex.of(b, Terminate.CONTROL, 4));
        assertEquals("00 00 00 00", Hex.of(b, 24, 4), "CRC off: zero CRC field");
    }

    @Test
    void decodesOurOwnRfcLayout() {
        Terminate.Control c = Terminate.decodeControl(0x1202c000);
        assertEquals(TerminateError.DDP_NO_BUFFER, c.error());
        assertTrue(c.hasFlag(Terminate.FLAG_M));
        assertTrue(c.hasFlag(Terminate.FLAG_D));
        assertFalse(c.hasFlag(Terminate.FLAG_R));
        assertFalse(c.siwLayout());
        assertTrue(c.consistent());
    }

    @Test
    void decodesRealSiwsCrcErrorTerminate() {
        // measured: siw answered a corrupted CRC with 02 02 00 00 (LLP / MPA / CRC error in its layout)
        Terminate.Control c = Terminate.decodeControl(0x02020000);
        assertEquals(TerminateError.MPA_CRC, c.error());
        assertTrue(c.siwLayout());
        assertEquals(0, c.flags());
    }

    @Test
    void decodesRealSiwsNoBufferTerminateWithItsFlags() {
        // measured: 21 02 03 00 = DDP / Untagged / no buffer, M and D, in siw's layout
        Terminate.Control c = Terminate.decodeControl(0x21020300);
        assertEquals(TerminateError.DDP_NO_BUFFER, c.error());
        assertTrue(c.siwLayout());
        assertTrue(c.hasFlag(Terminate.FLAG_M));
        assertTrue(c.hasFlag(Terminate.FLAG_D));
        assertFalse(c.hasFlag(Terminate.FLAG_R));
    }

    @Test
    void aWordNeitherLayoutExplainsIsReportedAsInconsistent() {
        Terminate.Control c = Terminate.decodeControl(0xF9F9FFFF);
        assertFalse(c.consistent());
        assertTrue(c.toString().contains("not a defined Terminate code"), c.toString());
    }

    @Test
    void namesFollowWireshark() {
        assertEquals("DDP / Untagged Buffer Error / 0x02 Invalid MSN - no buffer available (RFC 5041 §7.2)",
                TerminateError.DDP_NO_BUFFER.toString());
        assertEquals("RDMAP / Remote Protection Error / 0x02 Access rights violation (RFC 5040 §7.2)",
                TerminateError.RDMAP_ACCESS_RIGHTS.toString());
        assertEquals("LLP / MPA Error / 0x07 No Matching RTR Option (RFC 6581 §7)",
                TerminateError.MPA_NO_MATCHING_RTR.toString());
    }

    @Test
    void everyWordDecodesWithoutThrowing() {
        java.util.Random r = new java.util.Random(5040);
        for (int i = 0; i < 100_000; i++) {
            Terminate.decodeControl(r.nextInt()).toString();
        }
    }
}
