package smbdirect.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * SMB_DIRECT_BUFFER_DESCRIPTOR_V1 ([MS-SMBD] 2.2.3.1): one registered segment of a buffer, as
 * the upper layer embeds it in its messages (e.g. SMB2 READ/WRITE channel info).
 *
 * @param offset the provider's offset (address) of the first byte, an unsigned 64-bit value
 * @param token the Steering Tag (STag / rkey) of the registration, an unsigned 32-bit value
 * @param length the number of bytes in this segment, an unsigned 32-bit value
 */
public record BufferDescriptor(long offset, int token, int length) {

    /** The encoded size of one descriptor: 16 bytes. */
    public static final int BYTES = 16;

    /** {@link #length()} as an unsigned value. */
    public long lengthAsLong() {
        return Integer.toUnsignedLong(length);
    }

    /** Writes the 16-byte little-endian encoding at the buffer's position and advances it. */
    public void encode(ByteBuffer target) {
        ByteBuffer le = target.order() == ByteOrder.LITTLE_ENDIAN ? target : target.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int at = target.position();
        le.putLong(at, offset);
        le.putInt(at + 8, token);
        le.putInt(at + 12, length);
        target.position(at + BYTES);
    }

    /**
     * Reads one descriptor at the buffer's position and advances it.
     *
     * @throws java.nio.BufferUnderflowException when fewer than 16 bytes remain
     */
    public static BufferDescriptor decode(ByteBuffer source) {
        if (source.remaining() < BYTES) {
            throw new java.nio.BufferUnderflowException();
        }
        ByteBuffer le = source.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int at = source.position();
        BufferDescriptor d = new BufferDescriptor(le.getLong(at), le.getInt(at + 8), le.getInt(at + 12));
        source.position(at + BYTES);
        return d;
    }

    /**
     * Reads {@code count} consecutive descriptors.
     *
     * @throws IllegalArgumentException when {@code count} is negative
     * @throws java.nio.BufferUnderflowException when the buffer holds fewer
     */
    public static List<BufferDescriptor> decodeList(ByteBuffer source, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count " + count);
        }
        if ((long) count * BYTES > source.remaining()) {
            throw new java.nio.BufferUnderflowException();
        }
        List<BufferDescriptor> result = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            result.add(decode(source));
        }
        return result;
    }

    @Override
    public String toString() {
        return "BufferDescriptor[offset=0x" + Long.toHexString(offset) + ", token=0x" + Integer.toHexString(token)
                + ", length=" + lengthAsLong() + "]";
    }
}
