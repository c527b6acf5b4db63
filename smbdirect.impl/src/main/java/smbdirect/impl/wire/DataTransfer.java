package smbdirect.impl.wire;

import java.nio.ByteBuffer;

/**
 * SMB Direct Data Transfer message ([MS-SMBD] 2.2.3): every message after negotiation, both
 * directions.
 *
 * <p>Static codec over a {@link ByteBuffer} at an absolute offset: works whatever the buffer's
 * byte order is, never changes position or limit and allocates nothing on the success path.
 * Thread-safe (stateless); the caller owns the buffer.
 *
 * <pre>
 * 0x00 CreditsRequested u16  0x02 CreditsGranted u16  0x04 Flags u16  0x06 Reserved u16
 * 0x08 RemainingDataLength u32  0x0C DataOffset u32  0x10 DataLength u32
 * 0x14 Padding (DataOffset - 20 bytes)   DataOffset: Buffer (DataLength bytes)
 * </pre>
 */
public final class DataTransfer {

    /** Offset of CreditsRequested. */
    public static final int CREDITS_REQUESTED = 0x00;
    /** Offset of CreditsGranted. */
    public static final int CREDITS_GRANTED = 0x02;
    /** Offset of Flags. */
    public static final int FLAGS = 0x04;
    /** Offset of Reserved. */
    public static final int RESERVED = 0x06;
    /** Offset of RemainingDataLength. */
    public static final int REMAINING_DATA_LENGTH = 0x08;
    /** Offset of DataOffset. */
    public static final int DATA_OFFSET = 0x0C;
    /** Offset of DataLength. */
    public static final int DATA_LENGTH = 0x10;

    private DataTransfer() {
    }

    /**
     * Writes the 20-byte header at {@code off} with Reserved = 0; when {@code dataLength > 0} also
     * zeroes the padding {@code [20, dataOffset)} (R-3.1.5.4-17). The payload itself is the
     * caller's to write at {@code off + dataOffset}. For an empty message (dataLength 0) only the
     * header is written, whatever {@code dataOffset} says (use 0, R-3.1.5.4-05).
     *
     * @return the bytes written: 20 for an empty message, otherwise {@code dataOffset}
     * @throws IllegalArgumentException when a value does not fit its field, or a payload is
     *         announced at a DataOffset below 20 (it would overlap the header; use
     *         {@link #encodeHeaderOnly} to build such a message on purpose)
     * @throws IndexOutOfBoundsException when the written bytes do not fit below the limit
     */
    public static int encodeHeader(ByteBuffer b, int off, int creditsRequested, int creditsGranted, int flags,
            long remainingDataLength, long dataOffset, long dataLength) {
        Le.requireU32("DataOffset", dataOffset);
        Le.requireU32("DataLength", dataLength);
        if (dataLength == 0) {
            return encodeHeaderOnly(b, off, creditsRequested, creditsGranted, flags, remainingDataLength, dataOffset,
                    dataLength);
        }
        if (dataOffset < SmbdWire.DATA_HEADER_SIZE || dataOffset > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("DataOffset=" + dataOffset + " cannot carry DataLength=" + dataLength
                    + ": the payload must start at or after the 20-byte header");
        }
        int end = (int) dataOffset;
        Le.requireRegion(b, off, end);
        encodeHeaderOnly(b, off, creditsRequested, creditsGranted, flags, remainingDataLength, dataOffset, dataLength);
        int i = SmbdWire.DATA_HEADER_SIZE;
        for (; i + 4 <= end; i += 4) {
            Le.putU32(b, off + i, 0);
        }
        for (; i < end; i++) {
            b.put(off + i, (byte) 0);
        }
        return end;
    }

    /**
     * Writes exactly the 20 header bytes with the given values (Reserved = 0) and nothing else;
     * no consistency checks between fields, so tests can build any malformed message.
     *
     * @return 20
     * @throws IllegalArgumentException when a value does not fit its unsigned field
     * @throws IndexOutOfBoundsException when the 20 bytes do not fit below the limit
     */
    public static int encodeHeaderOnly(ByteBuffer b, int off, int creditsRequested, int creditsGranted, int flags,
            long remainingDataLength, long dataOffset, long dataLength) {
        Le.requireU16("CreditsRequested", creditsRequested);
        Le.requireU16("CreditsGranted", creditsGranted);
        Le.requireU16("Flags", flags);
        Le.requireU32("RemainingDataLength", remainingDataLength);
        Le.requireU32("DataOffset", dataOffset);
        Le.requireU32("DataLength", dataLength);
        Le.requireRegion(b, off, SmbdWire.DATA_HEADER_SIZE);
        Le.putU16(b, off + CREDITS_REQUESTED, creditsRequested);
        Le.putU16(b, off + CREDITS_GRANTED, creditsGranted);
        Le.putU16(b, off + FLAGS, flags);
        Le.putU16(b, off + RESERVED, 0);
        Le.putU32(b, off + REMAINING_DATA_LENGTH, remainingDataLength);
        Le.putU32(b, off + DATA_OFFSET, dataOffset);
        Le.putU32(b, off + DATA_LENGTH, dataLength);
        return SmbdWire.DATA_HEADER_SIZE;
    }

    /** Rewrites CreditsGranted of an already encoded message (R-3.1.5.1-05). */
    public static void putCreditsGranted(ByteBuffer b, int off, int creditsGranted) {
        Le.putU16(b, off + CREDITS_GRANTED, Le.requireU16("CreditsGranted", creditsGranted));
    }

    /** Rewrites CreditsRequested of an already encoded message (R-3.1.5.1-09). */
    public static void putCreditsRequested(ByteBuffer b, int off, int creditsRequested) {
        Le.putU16(b, off + CREDITS_REQUESTED, Le.requireU16("CreditsRequested", creditsRequested));
    }

    /** Rewrites Flags of an already encoded message (R-3.1.5.1-10/-12). */
    public static void putFlags(ByteBuffer b, int off, int flags) {
        Le.putU16(b, off + FLAGS, Le.requireU16("Flags", flags));
    }

    /** CreditsRequested (u16). */
    public static int creditsRequested(ByteBuffer b, int off) {
        return Le.u16(b, off + CREDITS_REQUESTED);
    }

    /** CreditsGranted (u16). */
    public static int creditsGranted(ByteBuffer b, int off) {
        return Le.u16(b, off + CREDITS_GRANTED);
    }

    /** Flags (u16). */
    public static int flags(ByteBuffer b, int off) {
        return Le.u16(b, off + FLAGS);
    }

    /** True when Flags has SMB_DIRECT_RESPONSE_REQUESTED. */
    public static boolean responseRequested(ByteBuffer b, int off) {
        return (flags(b, off) & SmbdWire.FLAG_RESPONSE_REQUESTED) != 0;
    }

    /** Reserved (u16); receivers ignore it (R-2.2.3-06). */
    public static int reserved(ByteBuffer b, int off) {
        return Le.u16(b, off + RESERVED);
    }

    /** RemainingDataLength (u32). */
    public static long remainingDataLength(ByteBuffer b, int off) {
        return Le.u32(b, off + REMAINING_DATA_LENGTH);
    }

    /** DataOffset (u32). */
    public static long dataOffset(ByteBuffer b, int off) {
        return Le.u32(b, off + DATA_OFFSET);
    }

    /** DataLength (u32). */
    public static long dataLength(ByteBuffer b, int off) {
        return Le.u32(b, off + DATA_LENGTH);
    }

    /**
     * Largest payload of one message with the recommended layout: {@code maxSendSize - 24}
     * (R-3.1.5.4-13), or 0 when {@code maxSendSize} leaves no room.
     */
    public static long maxPayload(long maxSendSize) {
        return Math.max(0, maxSendSize - SmbdWire.DATA_OFFSET);
    }

    /**
     * The five receive checks of [MS-SMBD] 3.1.5.8, in order, all in 64-bit arithmetic:
     * length &ge; 20 (R-3.1.5.8-01), CreditsRequested &ge; 1 (-02), DataOffset a multiple of 8
     * (-03), DataOffset + DataLength &le; length (-04), DataLength + RemainingDataLength &le;
     * {@code maxFragmentedRecvSize} (-05, A-32). Every failure terminates (-06).
     *
     * <p>Not rejected: a non-zero DataOffset with DataLength 0 as long as it lies within
     * the message, non-zero Reserved, Flags or padding (R-2.2.3-06, -12), trailing bytes after
     * the payload, and a DataOffset below 20 with a payload (A-33: not a spec check).
     *
     * @param length the received byte count of the message starting at {@code off}
     * @param maxFragmentedRecvSize the local Connection.MaxFragmentedRecvSize
     * @return {@code null} when the message is accepted, otherwise the first violation
     * @throws IndexOutOfBoundsException when {@code [off, off+length)} exceeds the buffer's limit
     */
    public static Violation check(ByteBuffer b, int off, int length, long maxFragmentedRecvSize) {
        Le.requireRegion(b, off, length);
        if (length < SmbdWire.DATA_HEADER_SIZE) {
            return Violation.terminate("R-3.1.5.8-01", "length", length,
                    "is shorter than the 20-byte Data Transfer header");
        }
        int credits = creditsRequested(b, off);
        if (credits == 0) {
            return Violation.terminate("R-3.1.5.8-02", "CreditsRequested", credits, "is not at least 1");
        }
        long dataOffset = dataOffset(b, off);
        if ((dataOffset & 7) != 0) {
            return Violation.terminate("R-3.1.5.8-03", "DataOffset", dataOffset, "is not a multiple of 8");
        }
        long dataLength = dataLength(b, off);
        if (dataOffset + dataLength > length) {
            return Violation.terminate("R-3.1.5.8-04", dataLength == 0 ? "DataOffset" : "DataOffset+DataLength",
                    dataOffset + dataLength, "exceeds the received length " + length);
        }
        long remaining = remainingDataLength(b, off);
        if (dataLength + remaining > maxFragmentedRecvSize) {
            return Violation.terminate("R-3.1.5.8-05", "DataLength+RemainingDataLength", dataLength + remaining,
                    "exceeds MaxFragmentedRecvSize " + maxFragmentedRecvSize);
        }
        return null;
    }
}
