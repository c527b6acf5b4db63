package smbdirect.impl.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The IRD/ORD negotiate header of [MS-SMBD] 6.1 (informative): the first 8 bytes of the
 * connection private data on iWARP providers without RFC 6581, {IRD u32, ORD u32}. A sender
 * writes both big-endian; a receiver accepts both byte orders: Linux's cifs client writes
 * them little-endian ({@code 20 00 00 00 01 00 00 00} for IRD 32, ORD 1), so a big-endian reading
 * at or above 2^16 is taken as the other order.
 *
 * <p>Static codec at an absolute offset; independent of the buffer's byte order, never changes
 * position or limit, allocates nothing on the success path. Thread-safe (stateless).
 */
public final class IrdOrdHeader {

    /** The header's fields are the only big-endian ones of [MS-SMBD]; every other goes through {@link Le}. */
    private static final VarHandle BE32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    /** Offset of IRD. */
    public static final int IRD = 0;
    /** Offset of ORD. */
    public static final int ORD = 4;

    private IrdOrdHeader() {
    }

    /**
     * Writes the 8-byte header at {@code off}.
     *
     * @throws IllegalArgumentException when a value does not fit an unsigned 32-bit field
     */
    public static void encode(ByteBuffer b, int off, long ird, long ord) {
        Le.requireU32("IRD", ird);
        Le.requireU32("ORD", ord);
        Le.requireRegion(b, off, SmbdWire.IRD_ORD_HEADER_SIZE);
        BE32.set(b, off + IRD, (int) ird);
        BE32.set(b, off + ORD, (int) ord);
    }

    /** The smallest big-endian reading taken as the other byte order. */
    static final long OTHER_ORDER = 1L << 16;

    /** IRD (incoming RDMA Read depth of the sender), unsigned, in either byte order. */
    public static long ird(ByteBuffer b, int off) {
        return depth(Integer.toUnsignedLong((int) BE32.get(b, off + IRD)));
    }

    /** ORD (outgoing RDMA Read depth of the sender), unsigned, in either byte order. */
    public static long ord(ByteBuffer b, int off) {
        return depth(Integer.toUnsignedLong((int) BE32.get(b, off + ORD)));
    }

    /**
     * A depth read big-endian, or its byte-swapped value when the reading is at or above 2^16 and
     * the swapped value is smaller (A-45: a little-endian sender such as Linux's cifs client).
     */
    static long depth(long bigEndian) {
        if (bigEndian < OTHER_ORDER) {
            return bigEndian;
        }
        long swapped = Integer.toUnsignedLong(Integer.reverseBytes((int) bigEndian));
        return Math.min(bigEndian, swapped);
    }

    /** {@code depth} clamped to {@code int} range, for the engine's int depths. */
    public static int clampToInt(long depth) {
        return (int) Math.min(depth, Integer.MAX_VALUE);
    }

    /**
     * Checks that a header is present ({@code length >= 8}, R-6.2-01) and that IRD and ORD are
     * both greater than 0 (R-6.1-02, R-6.2-03: the acceptor rejects the connection otherwise).
     *
     * @param length the private data length available at {@code off}
     * @return {@code null} when the header is usable, otherwise the violation (TERMINATE)
     */
    public static Violation check(ByteBuffer b, int off, int length) {
        Le.requireRegion(b, off, length);
        if (length < SmbdWire.IRD_ORD_HEADER_SIZE) {
            return Violation.terminate("R-6.2-01", "length", length,
                    "is shorter than the 8-byte IRD/ORD header");
        }
        long ird = ird(b, off);
        if (ird == 0) {
            return Violation.terminate("R-6.1-02", "IRD", ird, "is not greater than 0");
        }
        long ord = ord(b, off);
        if (ord == 0) {
            return Violation.terminate("R-6.1-02", "ORD", ord, "is not greater than 0");
        }
        return null;
    }
}
