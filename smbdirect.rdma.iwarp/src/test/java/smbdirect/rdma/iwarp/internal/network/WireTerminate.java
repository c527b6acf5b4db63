package smbdirect.rdma.iwarp.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import smbdirect.rdma.iwarp.internal.conformance.RawPeer;

/**
 * A Terminate as read off the wire by a raw peer, decoded here from the RFC 5040 §4.8 layout
 * (independently of the provider's codec): the untagged header on QN 2, the Terminate Control word
 * (layer, error type, error code, M, D, R) and the copied bytes after it.
 *
 * @param before the ULPDUs the peer received before the Terminate, in order
 */
record WireTerminate(int layer, int type, int code, boolean m, boolean d, boolean r, byte[] copied,
        List<byte[]> before) {

    /** Reads FPDUs until a Terminate and checks its untagged header (QN 2, MSN 1, MO 0, L). */
    static WireTerminate read(RawPeer peer) throws IOException {
        List<byte[]> before = new ArrayList<>();
        while (true) {
            byte[] ulpdu = peer.readFpdu();
            if ((ulpdu[1] & 0x0F) != 7) {
                before.add(ulpdu);
                continue;
            }
            ByteBuffer b = ByteBuffer.wrap(ulpdu);
            assertEquals(0x41, ulpdu[0] & 0xFF, "Terminate DDP control: untagged, last, DV 1 (RFC 5041 §4.1)");
            assertEquals(2, b.getInt(6), "Terminate QN (RFC 5040 §5.1)");
            assertEquals(1, b.getInt(10), "Terminate MSN (the first and only message on QN 2)");
            assertEquals(0, b.getInt(14), "Terminate MO");
            int word = b.getInt(18);
            byte[] copied = new byte[ulpdu.length - 22];
            b.get(22, copied);
            return new WireTerminate(word >>> 28, (word >>> 24) & 0xF, (word >>> 16) & 0xFF, (word & 0x8000) != 0,
                    (word & 0x4000) != 0, (word & 0x2000) != 0, copied, before);
        }
    }

    /** Layer, type and code as the RFC numbers them. */
    void assertCode(int expectedLayer, int expectedType, int expectedCode) {
        assertEquals(expectedLayer + "/" + expectedType + "/0x" + Integer.toHexString(expectedCode),
                layer + "/" + type + "/0x" + Integer.toHexString(code), "Terminate layer/type/code");
    }

    /** The copy of the offending DDP header (D set) starts with the segment's control bytes. */
    void assertCopiesHeader(byte[] offendingUlpdu) {
        assertEquals(true, m && d, "M and D set: the DDP Segment Length and the header are included");
        int header = (offendingUlpdu[0] & 0x80) != 0 ? 14 : 18;
        byte[] expected = new byte[header];
        System.arraycopy(offendingUlpdu, 0, expected, 0, header);
        byte[] got = new byte[header];
        System.arraycopy(copied, 2, got, 0, header);
        assertEquals(java.util.HexFormat.of().formatHex(expected), java.util.HexFormat.of().formatHex(got),
                "the copied DDP header");
    }
}
