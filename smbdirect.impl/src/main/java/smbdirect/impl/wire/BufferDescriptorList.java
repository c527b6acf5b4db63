package smbdirect.impl.wire;

import java.nio.ByteBuffer;

/**
 * Allocation-free access to an array of SMB_DIRECT_BUFFER_DESCRIPTOR_V1 ([MS-SMBD] 2.2.3.1, 16
 * bytes each: Offset u64, Token u32, Length u32, little-endian) at an absolute offset, as the
 * upper layer embeds them in SMB2 READ/WRITE channel info. {@link smbdirect.api.BufferDescriptor}
 * is the value-object form.
 *
 * <p>Independent of the buffer's byte order; never changes position or limit. Thread-safe
 * (stateless).
 */
public final class BufferDescriptorList {

    /** Size of one descriptor. */
    public static final int DESCRIPTOR_SIZE = 16;

    private BufferDescriptorList() {
    }

    /**
     * Number of whole descriptors in {@code length} bytes.
     *
     * @throws IllegalArgumentException when {@code length} is negative or not a multiple of 16
     */
    public static int count(int length) {
        if (length < 0 || length % DESCRIPTOR_SIZE != 0) {
            throw new IllegalArgumentException("descriptor list length=" + length
                    + " is not a multiple of 16 (R-2.2.3.1-01)");
        }
        return length / DESCRIPTOR_SIZE;
    }

    /** Writes descriptor {@code index} of the list starting at {@code off}. */
    public static void encode(ByteBuffer b, int off, int index, long offset, long token, long length) {
        Le.requireU32("Token", token);
        Le.requireU32("Length", length);
        int at = at(off, index);
        Le.requireRegion(b, at, DESCRIPTOR_SIZE);
        Le.putU32(b, at, offset & 0xFFFF_FFFFL);
        Le.putU32(b, at + 4, offset >>> 32);
        Le.putU32(b, at + 8, token);
        Le.putU32(b, at + 12, length);
    }

    /** Offset (u64, provider specific) of descriptor {@code index}. */
    public static long offset(ByteBuffer b, int off, int index) {
        int at = at(off, index);
        return Le.u32(b, at) | (Le.u32(b, at + 4) << 32);
    }

    /** Token (STag / rkey, u32) of descriptor {@code index}. */
    public static long token(ByteBuffer b, int off, int index) {
        return Le.u32(b, at(off, index) + 8);
    }

    /** Length (u32) of descriptor {@code index}. */
    public static long length(ByteBuffer b, int off, int index) {
        return Le.u32(b, at(off, index) + 12);
    }

    /** Sum of the Length fields of {@code count} descriptors (64-bit, cannot overflow). */
    public static long totalLength(ByteBuffer b, int off, int count) {
        long sum = 0;
        for (int i = 0; i < count; i++) {
            sum += length(b, off, i);
        }
        return sum;
    }

    /**
     * Validates a received descriptor array of {@code length} bytes at {@code off} (the upper
     * layer's channel info): non-empty, a whole number of 16-byte descriptors (R-2.2.3.1-01), no
     * descriptor of Length 0, and the sum of the Lengths (64-bit) at most {@code maxTotal} (e.g.
     * the negotiated MaxReadWriteSize).
     *
     * @return {@code null} when usable, otherwise the violation (TERMINATE)
     * @throws IndexOutOfBoundsException when {@code [off, off+length)} exceeds the buffer's limit
     */
    public static Violation check(ByteBuffer b, int off, int length, long maxTotal) {
        Le.requireRegion(b, off, length);
        if (length == 0 || length % DESCRIPTOR_SIZE != 0) {
            return Violation.terminate("R-2.2.3.1-01", "length", length,
                    "is not a positive multiple of the 16-byte Buffer Descriptor V1");
        }
        int count = length / DESCRIPTOR_SIZE;
        long sum = 0;
        for (int i = 0; i < count; i++) {
            long len = length(b, off, i);
            if (len == 0) {
                return Violation.terminate("R-2.2.3.1-01", "Length", len, "of descriptor " + i + " is 0");
            }
            sum += len;
        }
        if (sum > maxTotal) {
            return Violation.terminate("R-2.2.3.1-01", "Length", sum,
                    "(sum of " + count + " descriptors) exceeds the limit " + maxTotal);
        }
        return null;
    }

    /**
     * Byte offset of descriptor {@code index}; an index whose descriptor cannot start at an int
     * offset is out of bounds like any other ({@link IndexOutOfBoundsException}, not an
     * arithmetic overflow).
     */
    private static int at(int off, int index) {
        long at = off + (long) index * DESCRIPTOR_SIZE;
        if (index < 0 || off < 0 || at > Integer.MAX_VALUE) {
            throw new IndexOutOfBoundsException("descriptor index " + index + " at offset " + off);
        }
        return (int) at;
    }
}
