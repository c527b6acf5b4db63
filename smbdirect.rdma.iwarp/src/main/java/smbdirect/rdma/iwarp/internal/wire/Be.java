package smbdirect.rdma.iwarp.internal.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Absolute-offset big-endian (network order) reads and writes over a {@link ByteBuffer}, the byte
 * order of every iWARP header field (RFC 5044 §3, RFC 5041 §4, RFC 5040 §4), independent of the
 * buffer's own order. Never touches position or limit, never allocates; offsets outside the limit
 * throw {@link IndexOutOfBoundsException}. Thread-safe (stateless).
 */
public final class Be {

    private static final VarHandle BE16 = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LE32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private Be() {
    }

    public static int u8(ByteBuffer b, int off) {
        return b.get(off) & 0xFF;
    }

    public static int u16(ByteBuffer b, int off) {
        return Short.toUnsignedInt((short) BE16.get(b, off));
    }

    /** A 32-bit field as a Java int (STags, MSNs, MOs are compared as bit patterns). */
    public static int i32(ByteBuffer b, int off) {
        return (int) BE32.get(b, off);
    }

    public static long i64(ByteBuffer b, int off) {
        return (long) BE64.get(b, off);
    }

    public static void putU8(ByteBuffer b, int off, int v) {
        b.put(off, (byte) v);
    }

    public static void putU16(ByteBuffer b, int off, int v) {
        BE16.set(b, off, (short) v);
    }

    public static void putI32(ByteBuffer b, int off, int v) {
        BE32.set(b, off, v);
    }

    public static void putI64(ByteBuffer b, int off, long v) {
        BE64.set(b, off, v);
    }

    /** A little-endian 32-bit field: only the MPA CRC is sent least-significant byte first (RFC 5044 §6.1). */
    public static int le32(ByteBuffer b, int off) {
        return (int) LE32.get(b, off);
    }

    public static void putLe32(ByteBuffer b, int off, int v) {
        LE32.set(b, off, v);
    }
}
