package smbdirect.rdma.iwarp.internal.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The RDMAP Terminate message (RFC 5040 §4.8): an untagged message on QN 2 whose 32-bit Terminate
 * Control word (Layer 4 bits, Error Type 4 bits, Error Code 8 bits, then the M, D and R flags) may
 * be followed by the DDP Segment Length and a copy of the offending DDP header (D) and RDMAP Read
 * Request (R). Offsets are relative to the FPDU start.
 *
 * <p>We send the control word in the RFC layout. Linux siw (x86) sends it through a little-endian
 * bit-field: the first byte is {@code type << 4 | layer} and M, D, R are the three low bits of the
 * third byte (measured against real siw, iwarp.md §5.5). {@link #decodeControl} reads both and
 * keeps the consistent one.
 *
 * <p>Static codec, never allocates on the encode path. Thread-safe (stateless).
 */
public final class Terminate {

    /** Offset of the Terminate Control word. */
    public static final int CONTROL = 20;
    /** Offset of the DDP Segment Length (valid when M is set). */
    public static final int SEGMENT_LENGTH = 24;
    /** Offset of the copied DDP header (present when D is set). */
    public static final int COPIED_HEADER = 26;
    /** ULPDU bytes of a Terminate without copied headers: untagged header 18 + control 4. */
    public static final int BASE_ULPDU = Ddp.UNTAGGED_HEADER_ULPDU + 4;

    /** M: DDP Segment Length valid (RFC layout, in the 32-bit word). */
    public static final int FLAG_M = 0x8000;
    /** D: the DDP header of the offending segment is included. */
    public static final int FLAG_D = 0x4000;
    /** R: the RDMAP header (Read Request) of the offending message is included. */
    public static final int FLAG_R = 0x2000;
    private static final int RFC_RESERVED = 0x1FFF;

    private Terminate() {
    }

    /** The Terminate Control word in the RFC 5040 §4.8 layout. */
    public static int controlWord(TerminateError e, int flags) {
        return e.layer() << 28 | e.errorType() << 24 | e.errorCode() << 16 | (flags & (FLAG_M | FLAG_D | FLAG_R));
    }

    /**
     * Writes a complete Terminate FPDU at {@code off}: QN 2, MSN 1 (the only one we send), MO 0,
     * the control word, and when {@code copiedLength > 0} the DDP Segment Length and the copied
     * header bytes ({@code copied} from {@code copiedOff}, starting at the offending segment's DDP
     * control byte). Flags M and D are set with a copied header, R when it is a Read Request.
     *
     * @param segmentLength what goes into the DDP Segment Length field (siw: the offending segment's payload length)
     * @param crc the connection's CRC, null when CRC is off
     * @return the FPDU size
     */
    public static int encode(ByteBuffer b, int off, TerminateError e, ByteBuffer copied, int copiedOff,
            int copiedLength, int segmentLength, boolean readRequestCopied, CRC32C crc) {
        int flags = copiedLength > 0 ? FLAG_M | FLAG_D | (readRequestCopied ? FLAG_R : 0) : 0;
        int ulpdu = BASE_ULPDU + (copiedLength > 0 ? 2 + copiedLength : 0);
        Ddp.putUntagged(b, off, ulpdu, true, Rdmap.TERMINATE, 0, Ddp.QN_TERMINATE, 1, 0);
        Be.putI32(b, off + CONTROL, controlWord(e, flags));
        if (copiedLength > 0) {
            Be.putU16(b, off + SEGMENT_LENGTH, segmentLength);
            for (int i = 0; i < copiedLength; i++) {
                b.put(off + COPIED_HEADER + i, copied.get(copiedOff + i));
            }
        }
        return Fpdu.seal(b, off, crc);
    }

    /**
     * A decoded Terminate Control word.
     *
     * @param error layer, type and code as read
     * @param flags {@link #FLAG_M}, {@link #FLAG_D}, {@link #FLAG_R} as read (normalised to the RFC bits)
     * @param siwLayout the word was read in Linux siw's little-endian bit-field layout
     * @param consistent the chosen reading defines a known error with zero reserved bits
     */
    public record Control(TerminateError error, int flags, boolean siwLayout, boolean consistent) {

        public boolean hasFlag(int flag) {
            return (flags & flag) != 0;
        }

        @Override
        public String toString() {
            return error + (siwLayout ? " [read in Linux siw's bit-field layout]" : "")
                    + (consistent ? "" : " [not a defined Terminate code]")
                    + (flags == 0 ? "" : " flags" + (hasFlag(FLAG_M) ? " M" : "") + (hasFlag(FLAG_D) ? " D" : "")
                            + (hasFlag(FLAG_R) ? " R" : ""));
        }
    }

    /** Reads the control word both ways (RFC 5040 §4.8 and siw's) and returns the consistent reading, RFC first. */
    public static Control decodeControl(int word) {
        TerminateError rfc = new TerminateError(word >>> 28, (word >>> 24) & 0xF, (word >>> 16) & 0xFF);
        int rfcFlags = word & (FLAG_M | FLAG_D | FLAG_R);
        boolean rfcOk = rfc.isDefined() && (word & RFC_RESERVED) == 0;
        if (rfcOk) {
            return new Control(rfc, rfcFlags, false, true);
        }
        int first = word >>> 24;
        int third = (word >>> 8) & 0xFF;
        TerminateError siw = new TerminateError(first & 0xF, first >>> 4, (word >>> 16) & 0xFF);
        int siwFlags = ((third & 1) != 0 ? FLAG_M : 0) | ((third & 2) != 0 ? FLAG_D : 0) | ((third & 4) != 0 ? FLAG_R : 0);
        boolean siwOk = siw.isDefined() && (third & 0xF8) == 0 && (word & 0xFF) == 0;
        if (siwOk) {
            return new Control(siw, siwFlags, true, true);
        }
        return new Control(rfc, rfcFlags, false, false);
    }
}
