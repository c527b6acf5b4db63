package smbdirect.rdma.iwarp.internal.wire;

import java.nio.ByteBuffer;

/**
 * RDMAP (RFC 5040 §4): the control byte (RV, opcode), the opcodes, and the 28-byte RDMA Read
 * Request body that follows the untagged header (RFC 5040 §4.4). Offsets are relative to the FPDU
 * start. Static, big-endian, never allocates. Thread-safe (stateless).
 */
public final class Rdmap {

    public static final int RDMA_WRITE = 0;
    public static final int READ_REQUEST = 1;
    public static final int READ_RESPONSE = 2;
    public static final int SEND = 3;
    public static final int SEND_INVALIDATE = 4;
    public static final int SEND_SE = 5;
    public static final int SEND_SE_INVALIDATE = 6;
    public static final int TERMINATE = 7;

    /** The RDMAP version of RFC 5040 (RV). */
    public static final int VERSION = 1;
    /** Opcode bits of the RDMAP control byte. */
    public static final int OPCODE_MASK = 0x0F;

    /** Offset of the Data Sink STag of a Read Request. */
    public static final int SINK_STAG = 20;
    /** Offset of the Data Sink Tagged Offset. */
    public static final int SINK_TO = 24;
    /** Offset of the RDMA Read Message Size. */
    public static final int READ_SIZE = 32;
    /** Offset of the Data Source STag. */
    public static final int SOURCE_STAG = 36;
    /** Offset of the Data Source Tagged Offset. */
    public static final int SOURCE_TO = 40;
    /** Bytes from the FPDU start through the Read Request (length 2, untagged header 18, body 28). */
    public static final int READ_REQUEST_HEADER = 48;
    /** Bytes of the Read Request body. */
    public static final int READ_REQUEST_BODY = 28;

    private static final String[] NAMES = {"RDMA Write", "RDMA Read Request", "RDMA Read Response", "Send",
        "Send with Invalidate", "Send with Solicited Event", "Send with Solicited Event and Invalidate", "Terminate"};

    private Rdmap() {
    }

    /** The control byte for {@code opcode}: RV 1, reserved 0. */
    public static int control(int opcode) {
        return (VERSION << 6) | (opcode & OPCODE_MASK);
    }

    public static int control(ByteBuffer b, int off) {
        return Be.u8(b, off + Ddp.RDMAP_CONTROL);
    }

    public static int version(int control) {
        return control >>> 6;
    }

    public static int opcode(int control) {
        return control & OPCODE_MASK;
    }

    /** Opcodes 3 to 6: the four Send variants, all accepted alike (RFC 5040 §4.3). */
    public static boolean isSend(int opcode) {
        return opcode >= SEND && opcode <= SEND_SE_INVALIDATE;
    }

    /** Send with Invalidate and Send with SE and Invalidate carry an Invalidate STag (RFC 5040 §4.3). */
    public static boolean invalidates(int opcode) {
        return opcode == SEND_INVALIDATE || opcode == SEND_SE_INVALIDATE;
    }

    /** RDMA Write and Read Response use the tagged buffer model; the others the untagged one. */
    public static boolean isTaggedOpcode(int opcode) {
        return opcode == RDMA_WRITE || opcode == READ_RESPONSE;
    }

    public static String name(int opcode) {
        return opcode >= 0 && opcode < NAMES.length ? NAMES[opcode] : "opcode " + opcode;
    }

    /** Writes the Read Request body after an untagged header at {@code off}. */
    public static void putReadRequest(ByteBuffer b, int off, int sinkStag, long sinkTo, int size, int sourceStag,
            long sourceTo) {
        Be.putI32(b, off + SINK_STAG, sinkStag);
        Be.putI64(b, off + SINK_TO, sinkTo);
        Be.putI32(b, off + READ_SIZE, size);
        Be.putI32(b, off + SOURCE_STAG, sourceStag);
        Be.putI64(b, off + SOURCE_TO, sourceTo);
    }

    public static int sinkStag(ByteBuffer b, int off) {
        return Be.i32(b, off + SINK_STAG);
    }

    public static long sinkTo(ByteBuffer b, int off) {
        return Be.i64(b, off + SINK_TO);
    }

    /** The RDMA Read Message Size as an unsigned value. */
    public static long readSize(ByteBuffer b, int off) {
        return Integer.toUnsignedLong(Be.i32(b, off + READ_SIZE));
    }

    public static int sourceStag(ByteBuffer b, int off) {
        return Be.i32(b, off + SOURCE_STAG);
    }

    public static long sourceTo(ByteBuffer b, int off) {
        return Be.i64(b, off + SOURCE_TO);
    }
}
