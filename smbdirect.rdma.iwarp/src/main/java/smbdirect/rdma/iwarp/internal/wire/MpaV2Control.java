package smbdirect.rdma.iwarp.internal.wire;

import java.nio.ByteBuffer;

/**
 * The RFC 6581 §5 word at the start of the MPA private data when the enhanced flag is set and the
 * revision is 2: a 16-bit IRD word (A = peer-to-peer, B = zero-length Send RTR, 14-bit IRD) and a
 * 16-bit ORD word (C = zero-length RDMA Write RTR, D = zero-length RDMA Read RTR, 14-bit ORD).
 * Linux siw hides it from the ULP and hands on the private data after it.
 *
 * <p>Static codec at an absolute offset, big-endian, never allocates. Thread-safe (stateless).
 */
public final class MpaV2Control {

    /** Bytes of the word. */
    public static final int SIZE = 4;
    /** A, in the IRD word: peer-to-peer mode, an RTR frame follows the Reply (RFC 6581 §5). */
    public static final int PEER_TO_PEER = 0x8000;
    /** B, in the IRD word: a zero-length Send may serve as RTR. */
    public static final int ZERO_LENGTH_SEND_RTR = 0x4000;
    /** C, in the ORD word: a zero-length RDMA Write may serve as RTR. */
    public static final int WRITE_RTR = 0x8000;
    /** D, in the ORD word: a zero-length RDMA Read may serve as RTR. */
    public static final int READ_RTR = 0x4000;
    /** The 14-bit IRD or ORD value. */
    public static final int DEPTH_MASK = 0x3FFF;

    private MpaV2Control() {
    }

    /**
     * Writes the word.
     *
     * @param irdFlags {@link #PEER_TO_PEER} and/or {@link #ZERO_LENGTH_SEND_RTR}
     * @param ordFlags {@link #WRITE_RTR} and/or {@link #READ_RTR}
     */
    public static void encode(ByteBuffer b, int off, int ird, int ord, int irdFlags, int ordFlags) {
        if (ird < 0 || ird > DEPTH_MASK || ord < 0 || ord > DEPTH_MASK) {
            throw new IllegalArgumentException("IRD " + ird + " / ORD " + ord + " do not fit 14 bits");
        }
        Be.putU16(b, off, (irdFlags & ~DEPTH_MASK) | ird);
        Be.putU16(b, off + 2, (ordFlags & ~DEPTH_MASK) | ord);
    }

    public static int ird(ByteBuffer b, int off) {
        return Be.u16(b, off) & DEPTH_MASK;
    }

    public static int ord(ByteBuffer b, int off) {
        return Be.u16(b, off + 2) & DEPTH_MASK;
    }

    /** The A and B bits. */
    public static int irdFlags(ByteBuffer b, int off) {
        return Be.u16(b, off) & ~DEPTH_MASK;
    }

    /** The C and D bits. */
    public static int ordFlags(ByteBuffer b, int off) {
        return Be.u16(b, off + 2) & ~DEPTH_MASK;
    }
}
