package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;

import smbdirect.rdma.iwarp.internal.wire.MpaFrame;
import smbdirect.rdma.iwarp.internal.wire.MpaV2Control;

/** Builds MPA Request and Reply frames (RFC 5044 §7.1, RFC 6581 §5). Control plane: allocates. */
final class MpaSetup {

    private MpaSetup() {
    }

    /**
     * A Request or Reply: header, the RFC 6581 word when {@code enhanced}, then {@code ulp} (its
     * remaining bytes; may be null). Returns the frame ready to write (position 0).
     */
    static ByteBuffer frame(boolean request, int flags, int revision, boolean enhanced, int ird, int ord,
            int irdFlags, int ordFlags, ByteBuffer ulp) {
        int ulpBytes = ulp == null ? 0 : ulp.remaining();
        int pd = (enhanced ? MpaV2Control.SIZE : 0) + ulpBytes;
        ByteBuffer b = ByteBuffer.allocate(MpaFrame.HEADER_SIZE + pd);
        MpaFrame.encode(b, 0, request, flags | (enhanced ? MpaFrame.FLAG_ENHANCED : 0), revision, pd);
        int at = MpaFrame.HEADER_SIZE;
        if (enhanced) {
            MpaV2Control.encode(b, at, ird, ord, irdFlags, ordFlags);
            at += MpaV2Control.SIZE;
        }
        if (ulpBytes > 0) {
            b.put(at, ulp, ulp.position(), ulpBytes);
        }
        return b;
    }

    /** A copy of {@code data}'s remaining bytes as a read-only buffer (position 0). */
    static ByteBuffer readOnlyCopy(ByteBuffer data, int offset, int length) {
        ByteBuffer copy = ByteBuffer.allocate(length);
        copy.put(0, data, offset, length);
        return copy.asReadOnlyBuffer();
    }
}
