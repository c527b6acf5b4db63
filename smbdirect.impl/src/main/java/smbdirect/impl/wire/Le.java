package smbdirect.impl.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Absolute-offset little-endian unsigned reads and writes over a {@link ByteBuffer}, the byte order
 * of every [MS-SMBD] message field, independent of the buffer's own byte order; never touches
 * position or limit and never allocates. Offsets are checked against the buffer's limit by the var
 * handles ({@link IndexOutOfBoundsException}). The one big-endian structure, the IRD/ORD header of
 * [MS-SMBD] 6.1, reads and writes its two fields itself ({@link IrdOrdHeader}).
 */
final class Le {

    private static final VarHandle LE16 = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LE32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    static final long U32_MAX = 0xFFFF_FFFFL;
    static final int U16_MAX = 0xFFFF;

    private Le() {
    }

    static int u16(ByteBuffer b, int off) {
        return Short.toUnsignedInt((short) LE16.get(b, off));
    }

    static long u32(ByteBuffer b, int off) {
        return Integer.toUnsignedLong((int) LE32.get(b, off));
    }

    static int i32(ByteBuffer b, int off) {
        return (int) LE32.get(b, off);
    }

    static void putU16(ByteBuffer b, int off, int v) {
        LE16.set(b, off, (short) v);
    }

    static void putU32(ByteBuffer b, int off, long v) {
        LE32.set(b, off, (int) v);
    }

    /** Throws when {@code v} does not fit an unsigned 16-bit field. */
    static int requireU16(String field, int v) {
        if (v < 0 || v > U16_MAX) {
            throw new IllegalArgumentException(field + "=" + v + " does not fit an unsigned 16-bit field");
        }
        return v;
    }

    /** Throws when {@code v} does not fit an unsigned 32-bit field. */
    static long requireU32(String field, long v) {
        if (v < 0 || v > U32_MAX) {
            throw new IllegalArgumentException(field + "=" + v + " does not fit an unsigned 32-bit field");
        }
        return v;
    }

    /**
     * Checks that {@code [off, off + length)} lies inside {@code [0, b.limit())}: the caller claims
     * a message of {@code length} bytes there.
     */
    static void requireRegion(ByteBuffer b, int off, int length) {
        if (off < 0 || length < 0 || (long) off + length > b.limit()) {
            throw new IndexOutOfBoundsException("message [" + off + ", " + ((long) off + length)
                    + ") outside buffer limit " + b.limit());
        }
    }
}
