package smbdirect.interop.rping;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The wire facts of rdma-core's {@code rping} (librdmacm/examples/rping.c) that a peer must match
 * byte for byte: the 16-byte {@code struct rping_rdma_info} a Send carries, the ping data the client
 * puts in its source buffer, and the sizes and depths rping uses.
 *
 * <p>One iteration ("ping/pong loop" in rping.c): the client Sends the {@code rping_rdma_info} of its
 * source buffer; the server RDMA Reads that buffer and Sends a "go ahead"; the client Sends the info
 * of its sink buffer; the server RDMA Writes what it read ({@code strlen + 1} bytes) into the sink and
 * Sends a "go ahead". After {@code -C} iterations the client disconnects. Every Send is exactly 16
 * bytes; a receive of any other length is an error on both sides. Static helpers, thread-safe.
 */
public final class Rping {

    /** rping's default port ({@code cb->port = htobe16(7174)}). */
    public static final int DEFAULT_PORT = 7174;
    /** rping's default ping data size ({@code cb->size = 64}). */
    public static final int DEFAULT_SIZE = 64;
    /**
     * The smallest {@code -S} rping accepts ({@code RPING_MIN_BUFSIZE}; Debian 12's rping prints
     * "valid range is 23 to 65536").
     */
    public static final int MIN_SIZE = 23;
    /** The largest {@code -S} rping accepts ({@code RPING_BUFSIZE - 1}, although its message says 65536). */
    public static final int MAX_SIZE = 64 * 1024 - 1;
    /** {@code sizeof(struct rping_rdma_info)}: buf (be64), rkey (be32), size (be32). */
    public static final int INFO_SIZE = 16;
    /** {@code RPING_SQ_DEPTH}: rping's send queue depth. */
    public static final int SEND_QUEUE_DEPTH = 16;
    /** rping's receive queue depth ({@code max_recv_wr = 2}); it keeps one receive posted. */
    public static final int RECEIVE_QUEUE_DEPTH = 2;
    /** rping's responder resources and initiator depth ({@code rping_init_conn_param}). */
    public static final int READ_DEPTH = 1;

    /** Printable characters of the pattern run from 'A' (65) to 'z' (122), then wrap. */
    private static final int FIRST = 65;
    private static final int LAST = 122;

    private Rping() {
    }

    /** The decoded {@code struct rping_rdma_info}: a buffer the peer may RDMA Read or Write. */
    public record Info(long buf, int rkey, int size) {

        /**
         * Writes the 16 bytes in network byte order at {@code off} (the buffer's byte order is
         * ignored; position and limit unchanged).
         */
        public void encode(ByteBuffer b, int off) {
            ByteBuffer be = b.duplicate().order(ByteOrder.BIG_ENDIAN);
            be.putLong(off, buf);
            be.putInt(off + 8, rkey);
            be.putInt(off + 12, size);
        }

        /** Reads 16 bytes in network byte order at {@code off} (the buffer's byte order is ignored). */
        public static Info decode(ByteBuffer b, int off) {
            ByteBuffer be = b.duplicate().order(ByteOrder.BIG_ENDIAN);
            return new Info(be.getLong(off), be.getInt(off + 8), be.getInt(off + 12));
        }

        /** {@code size} as the unsigned value rping reads with {@code be32toh}. */
        public long unsignedSize() {
            return Integer.toUnsignedLong(size);
        }
    }

    /**
     * Writes ping {@code ping}'s data into {@code b} at {@code off} as {@code rping_test_client}
     * does: {@code "rdma-ping-<ping>: "}, then characters from 'A' + (ping mod 58) counting up and
     * wrapping from 'z' to 'A', the last of {@code size} bytes 0.
     *
     * @throws IllegalArgumentException when {@code size} cannot hold the prefix and the terminator
     */
    public static void fill(ByteBuffer b, int off, int ping, int size) {
        byte[] prefix = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        if (size < prefix.length + 1) {
            throw new IllegalArgumentException("ping size " + size + " cannot hold \"" + new String(prefix,
                    StandardCharsets.US_ASCII) + "\" and its terminator");
        }
        b.put(off, prefix);
        int c = FIRST + Math.floorMod(ping, LAST - FIRST + 1);
        for (int i = prefix.length; i < size; i++) {
            b.put(off + i, (byte) c);
            c = c == LAST ? FIRST : c + 1;
        }
        b.put(off + size - 1, (byte) 0);
    }

    /** Ping {@code ping}'s data as a new array (see {@link #fill}). */
    public static byte[] data(int ping, int size) {
        ByteBuffer b = ByteBuffer.allocate(size);
        fill(b, 0, ping, size);
        return b.array();
    }

    /**
     * The length of the C string at {@code off}: bytes before the first 0, at most {@code max}.
     * rping's server writes {@code strlen(rdma_buf) + 1} bytes back.
     */
    public static int strlen(ByteBuffer b, int off, int max) {
        for (int i = 0; i < max; i++) {
            if (b.get(off + i) == 0) {
                return i;
            }
        }
        return max;
    }

    /** The C string at {@code off} (at most {@code max} bytes, up to the first 0) as text. */
    public static String string(ByteBuffer b, int off, int max) {
        byte[] s = new byte[strlen(b, off, max)];
        b.get(off, s);
        return new String(s, StandardCharsets.ISO_8859_1);
    }
}
