package smbdirect.rdma.iwarp.internal.wire;

import java.nio.ByteBuffer;

/**
 * DDP segment headers (RFC 5041 §4): the DDP control byte (T, L, reserved, DV), the RDMAP control
 * byte that DDP carries as RsvdULP[0:7], then for the tagged model the Data Sink STag and Tagged
 * Offset (RFC 5041 §4.2), for the untagged model RsvdULP[8:39] (the RDMAP Invalidate STag of Send
 * with Invalidate), QN, MSN and MO (RFC 5041 §4.3). Offsets are relative to the FPDU start (the
 * MPA ULPDU_Length comes first, {@link Fpdu}).
 *
 * <p>Static codec, big-endian, never allocates. Thread-safe (stateless).
 */
public final class Ddp {

    /** Offset of the DDP control byte. */
    public static final int CONTROL = 2;
    /** Offset of the RDMAP control byte (DDP RsvdULP[0:7], RFC 5040 §4.2). */
    public static final int RDMAP_CONTROL = 3;
    /** Offset of the Data Sink STag of a tagged segment. */
    public static final int STAG = 4;
    /** Offset of the 64-bit Tagged Offset of a tagged segment. */
    public static final int TO = 8;
    /** Offset of RsvdULP[8:39] of an untagged segment (Invalidate STag of opcodes 4 and 6). */
    public static final int INVALIDATE_STAG = 4;
    /** Offset of the Queue Number of an untagged segment. */
    public static final int QN = 8;
    /** Offset of the Message Sequence Number of an untagged segment. */
    public static final int MSN = 12;
    /** Offset of the Message Offset of an untagged segment. */
    public static final int MO = 16;
    /** Bytes from the FPDU start through the tagged header (ULPDU header 14 + length 2). */
    public static final int TAGGED_HEADER = 16;
    /** Bytes from the FPDU start through the untagged header (ULPDU header 18 + length 2). */
    public static final int UNTAGGED_HEADER = 20;
    /** ULPDU bytes of a tagged header (RFC 5041 §4.2). */
    public static final int TAGGED_HEADER_ULPDU = 14;
    /** ULPDU bytes of an untagged header (RFC 5041 §4.3). */
    public static final int UNTAGGED_HEADER_ULPDU = 18;

    /** T: tagged buffer model. */
    public static final int FLAG_TAGGED = 0x80;
    /** L: last segment of a DDP message. */
    public static final int FLAG_LAST = 0x40;
    /** Reserved bits of the DDP control byte (zero on send, ignored on receive). */
    public static final int RESERVED = 0x3C;
    /** DV, the DDP version field. */
    public static final int VERSION_MASK = 0x03;
    /** The DDP version of RFC 5041. */
    public static final int VERSION = 1;

    /** Untagged queue of Sends (RFC 5040 §5.1). */
    public static final int QN_SEND = 0;
    /** Untagged queue of RDMA Read Requests. */
    public static final int QN_READ_REQUEST = 1;
    /** Untagged queue of Terminates. */
    public static final int QN_TERMINATE = 2;

    private Ddp() {
    }

    public static int control(ByteBuffer b, int off) {
        return Be.u8(b, off + CONTROL);
    }

    public static boolean isTagged(int control) {
        return (control & FLAG_TAGGED) != 0;
    }

    public static boolean isLast(int control) {
        return (control & FLAG_LAST) != 0;
    }

    public static int version(int control) {
        return control & VERSION_MASK;
    }

    public static int stag(ByteBuffer b, int off) {
        return Be.i32(b, off + STAG);
    }

    public static long taggedOffset(ByteBuffer b, int off) {
        return Be.i64(b, off + TO);
    }

    public static int invalidateStag(ByteBuffer b, int off) {
        return Be.i32(b, off + INVALIDATE_STAG);
    }

    public static int qn(ByteBuffer b, int off) {
        return Be.i32(b, off + QN);
    }

    public static int msn(ByteBuffer b, int off) {
        return Be.i32(b, off + MSN);
    }

    public static int mo(ByteBuffer b, int off) {
        return Be.i32(b, off + MO);
    }

    /** Writes the length field and a tagged header (DV 1, RV 1). */
    public static void putTagged(ByteBuffer b, int off, int ulpduLength, boolean last, int opcode, int stag,
            long taggedOffset) {
        Fpdu.putUlpduLength(b, off, ulpduLength);
        Be.putU8(b, off + CONTROL, FLAG_TAGGED | (last ? FLAG_LAST : 0) | VERSION);
        Be.putU8(b, off + RDMAP_CONTROL, Rdmap.control(opcode));
        Be.putI32(b, off + STAG, stag);
        Be.putI64(b, off + TO, taggedOffset);
    }

    /** Writes the length field and an untagged header (DV 1, RV 1). */
    public static void putUntagged(ByteBuffer b, int off, int ulpduLength, boolean last, int opcode,
            int invalidateStag, int qn, int msn, int mo) {
        Fpdu.putUlpduLength(b, off, ulpduLength);
        Be.putU8(b, off + CONTROL, (last ? FLAG_LAST : 0) | VERSION);
        Be.putU8(b, off + RDMAP_CONTROL, Rdmap.control(opcode));
        Be.putI32(b, off + INVALIDATE_STAG, invalidateStag);
        Be.putI32(b, off + QN, qn);
        Be.putI32(b, off + MSN, msn);
        Be.putI32(b, off + MO, mo);
    }
}
