package smbdirect.perf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 32-byte header at the start of every perf message (little-endian): magic, op, and three
 * 64-bit arguments. Static helpers over a buffer, no state.
 */
final class PerfHeader {

    /** "SDPF". */
    static final int MAGIC = 0x46504453;
    static final int LENGTH = 32;

    /** Data to be counted (a = sequence, b = send time in ns). */
    static final int DATA = 1;
    /** Echo me back (a = sequence, b = send time in ns). */
    static final int ECHO = 2;
    /** Start a run: reset the counters. */
    static final int START = 3;
    /** Stream to me: a = count (-1 until STOP), b = size, c = depth. */
    static final int PULL = 4;
    /** Stop the stream started by PULL. */
    static final int STOP = 5;
    /** End of the send run: reply with STATS. */
    static final int FIN = 6;
    /** Counters: a = messages, b = bytes received since START. */
    static final int STATS = 7;
    /** End of a PULL stream: a = messages sent. */
    static final int END = 8;
    /**
     * Register a buffer for RDMA: a = its size, b = 1 to fill it with {@link #pattern} (for RDMA
     * Reads of it), 0 to leave it zeroed (for RDMA Writes into it). Answered by REGION_READY.
     */
    static final int REGION = 9;
    /** The buffer of REGION: a = the number of Buffer Descriptor V1 entries following the header (0: refused). */
    static final int REGION_READY = 10;
    /**
     * End of an RDMA run: a = bytes of the buffer to check, b = the RDMA operations completed, c = the
     * bytes they moved. Answered by REGION_STATS.
     */
    static final int REGION_FIN = 11;
    /**
     * a = the CRC32C of the first REGION_FIN.a bytes of the buffer, b = that length, c = the RDMA bytes
     * the server counted for the run (REGION_FIN.c), or -1 when it refused the client's numbers.
     */
    static final int REGION_STATS = 12;

    private PerfHeader() {
    }

    /** Writes a header at the buffer's position; position, limit and byte order unchanged. */
    static void put(ByteBuffer b, int op, long a, long bArg, long c) {
        int p = b.position();
        writeInt(b, p, MAGIC);
        writeInt(b, p + 4, op);
        writeLong(b, p + 8, a);
        writeLong(b, p + 16, bArg);
        writeLong(b, p + 24, c);
    }

    /** The op of a received message, or -1 when it is no perf message. */
    static int op(ByteBuffer b) {
        if (b.remaining() < LENGTH) {
            return -1;
        }
        int p = b.position();
        if (readInt(b, p) != MAGIC) {
            return -1;
        }
        return readInt(b, p + 4);
    }

    static long a(ByteBuffer b) {
        return readLong(b, b.position() + 8);
    }

    static long b(ByteBuffer b) {
        return readLong(b, b.position() + 16);
    }

    static long c(ByteBuffer b) {
        return readLong(b, b.position() + 24);
    }

    /**
     * Fills {@code b}'s first {@code length} bytes (absolute, position and limit unchanged) with the
     * perf pattern, the same on both ends and never zero (so a byte not written cannot pass for one
     * written).
     */
    static void pattern(ByteBuffer b, int length) {
        for (int i = 0; i < length; i++) {
            b.put(i, patternByte(i));
        }
    }

    /** Whether {@code b}'s first {@code length} bytes hold the pattern; -1 if so, else the first offset that does not. */
    static int patternMismatch(ByteBuffer b, int length) {
        for (int i = 0; i < length; i++) {
            if (b.get(i) != patternByte(i)) {
                return i;
            }
        }
        return -1;
    }

    private static byte patternByte(int i) {
        int x = i * 0x9E3779B1;
        return (byte) ((x >>> 24) ^ (i >>> 8) ^ i | 1);
    }

    private static void writeInt(ByteBuffer b, int index, int v) {
        b.putInt(index, b.order() == ByteOrder.LITTLE_ENDIAN ? v : Integer.reverseBytes(v));
    }

    private static void writeLong(ByteBuffer b, int index, long v) {
        b.putLong(index, b.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v));
    }

    private static int readInt(ByteBuffer b, int index) {
        int v = b.getInt(index);
        return b.order() == ByteOrder.LITTLE_ENDIAN ? v : Integer.reverseBytes(v);
    }

    private static long readLong(ByteBuffer b, int index) {
        long v = b.getLong(index);
        return b.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    }
}
