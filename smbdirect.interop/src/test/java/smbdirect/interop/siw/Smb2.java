package smbdirect.interop.siw;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import smbdirect.api.BufferDescriptor;

/**
 * The few SMB2 bytes the SMB Direct interop tests put on the wire and read back ([MS-SMB2] 2.2.1,
 * 2.2.3-2.2.6, 2.2.9-2.2.10, 2.2.13-2.2.15, 2.2.19-2.2.22): a NEGOTIATE request ksmbd 6.1 accepts,
 * SESSION_SETUP, TREE_CONNECT, CREATE, CLOSE, and READ and WRITE with an RDMA channel, and the
 * response fields the tests check. Test code; {@link Smb2Client} sends them. Static, thread-safe.
 */
final class Smb2 {

    /** ProtocolId, Command NEGOTIATE, the SERVER_TO_REDIR flag. */
    static final int PROTOCOL_ID = 0x424D53FE;
    static final int NEGOTIATE = 0;
    static final int SERVER_TO_REDIR = 0x1;
    /** Dialects ksmbd 6.1 knows besides 0x0311 (which needs negotiate contexts), and 0x0202 which it does not. */
    static final int[] DIALECTS = {0x0202, 0x0210, 0x0300, 0x0302};

    private Smb2() {
    }

    /**
     * A NEGOTIATE request (64-byte header, StructureSize 36, the dialects of {@link #DIALECTS},
     * SecurityMode 1, Capabilities 0x7F), 108 bytes.
     */
    static byte[] negotiateRequest(long messageId) {
        byte[] guid = new byte[16];
        for (int i = 0; i < 16; i++) {
            guid[i] = (byte) (0xA0 + i);
        }
        return negotiateRequest(messageId, guid);
    }

    /** The same with the client's {@code clientGuid} (16 bytes). */
    static byte[] negotiateRequest(long messageId, byte[] clientGuid) {
        ByteBuffer b = ByteBuffer.allocate(64 + 36 + 2 * DIALECTS.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PROTOCOL_ID);
        b.putShort((short) 64);   // StructureSize
        b.putShort((short) 0);    // CreditCharge
        b.putInt(0);              // Status
        b.putShort((short) NEGOTIATE);
        b.putShort((short) 1);    // CreditRequest
        b.putInt(0);              // Flags
        b.putInt(0);              // NextCommand
        b.putLong(messageId);
        b.putInt(0);              // Reserved
        b.putInt(0);              // TreeId
        b.putLong(0);             // SessionId
        b.put(new byte[16]);      // Signature
        b.putShort((short) 36);   // StructureSize
        b.putShort((short) DIALECTS.length);
        b.putShort((short) 1);    // SecurityMode: signing enabled
        b.putShort((short) 0);    // Reserved
        b.putInt(0x7F);           // Capabilities
        b.put(clientGuid, 0, 16);
        b.putLong(0);             // ClientStartTime
        for (int d : DIALECTS) {
            b.putShort((short) d);
        }
        return b.array();
    }

    /** The header and body fields of an SMB2 message a test checks. */
    record Header(int protocolId, int structureSize, int status, int command, int flags, long messageId,
            int bodyStructureSize) {

        static Header of(byte[] m) {
            if (m.length < 66) {
                throw new AssertionError("an SMB2 message has a 64-byte header and a body: " + m.length + " bytes");
            }
            ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
            return new Header(b.getInt(0), b.getShort(4) & 0xFFFF, b.getInt(8), b.getShort(12) & 0xFFFF, b.getInt(16),
                    b.getLong(24), b.getShort(64) & 0xFFFF);
        }
    }

    /** DialectRevision of a NEGOTIATE response ([MS-SMB2] 2.2.4, body offset 4). */
    static int dialectRevision(byte[] response) {
        return ByteBuffer.wrap(response).order(ByteOrder.LITTLE_ENDIAN).getShort(64 + 4) & 0xFFFF;
    }

    /** DialectCount of a NEGOTIATE request ([MS-SMB2] 2.2.3, body offset 2). */
    static int dialectCount(byte[] request) {
        return ByteBuffer.wrap(request).order(ByteOrder.LITTLE_ENDIAN).getShort(64 + 2) & 0xFFFF;
    }

    /** SMB2 commands of [MS-SMB2] 2.2.1.2. */
    static final int SESSION_SETUP = 1;
    /** STATUS_MORE_PROCESSING_REQUIRED: the first SESSION_SETUP's answer. */
    static final int MORE_PROCESSING_REQUIRED = 0xC0000016;

    /** A 64-byte SMB2 request header (CreditCharge 1, CreditRequest 256) followed by {@code body}. */
    static byte[] request(int command, long messageId, long sessionId, int treeId, byte[] body) {
        return request(command, 1, 256, messageId, sessionId, treeId, body);
    }

    /** A 64-byte SMB2 request header ([MS-SMB2] 2.2.1.2) followed by {@code body}. */
    static byte[] request(int command, int creditCharge, int creditRequest, long messageId, long sessionId,
            int treeId, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(64 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PROTOCOL_ID).putShort((short) 64).putShort((short) creditCharge).putInt(0).putShort((short) command)
                .putShort((short) creditRequest).putInt(0).putInt(0).putLong(messageId).putInt(0).putInt(treeId)
                .putLong(sessionId).put(new byte[16]).put(body);
        return b.array();
    }

    /** CreditResponse of a response header: the credits the server granted with it. */
    static int creditsGranted(byte[] m) {
        return ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).getShort(14) & 0xFFFF;
    }

    /** TreeId of a response header. */
    static int treeId(byte[] m) {
        return ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).getInt(36);
    }

    private static ByteBuffer body(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** SESSION_SETUP request ([MS-SMB2] 2.2.5) carrying {@code token}. */
    static byte[] sessionSetup(long messageId, long sessionId, byte[] token) {
        ByteBuffer b = body(24 + token.length);
        b.putShort((short) 25).put((byte) 0).put((byte) 1).putInt(0).putInt(0).putShort((short) (64 + 24))
                .putShort((short) token.length).putLong(0).put(token);
        return request(SESSION_SETUP, messageId, sessionId, 0, b.array());
    }

    /** The security buffer of a SESSION_SETUP response ([MS-SMB2] 2.2.6). */
    static byte[] securityBuffer(byte[] response) {
        ByteBuffer b = ByteBuffer.wrap(response).order(ByteOrder.LITTLE_ENDIAN);
        int off = b.getShort(64 + 4) & 0xFFFF;
        int len = b.getShort(64 + 6) & 0xFFFF;
        return java.util.Arrays.copyOfRange(response, off, off + len);
    }

    /** SessionId of a response header. */
    static long sessionId(byte[] m) {
        return ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).getLong(40);
    }

    /** SessionFlags of a SESSION_SETUP response ([MS-SMB2] 2.2.6, body offset 2). */
    static int sessionFlags(byte[] m) {
        return ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).getShort(64 + 2) & 0xFFFF;
    }

    static final int TREE_CONNECT = 3;
    static final int CREATE = 5;
    static final int CLOSE = 6;
    static final int READ = 8;
    static final int WRITE = 9;

    /** READ/WRITE Channel ([MS-SMB2] 2.2.19, 2.2.21): the data moves by RDMA, without or with remote invalidation. */
    static final int CHANNEL_RDMA_V1 = 1;
    static final int CHANNEL_RDMA_V1_INVALIDATE = 2;

    /** CREATE: FILE_GENERIC_READ | FILE_GENERIC_WRITE, share all, a non-directory file. */
    static final int READ_WRITE_ACCESS = 0x0012019F;
    /** CreateDisposition: open an existing file; create or truncate. */
    static final int FILE_OPEN = 1;
    static final int FILE_OVERWRITE_IF = 5;

    /** TREE_CONNECT request ([MS-SMB2] 2.2.9) for {@code path} (\\server\share). */
    static byte[] treeConnect(long messageId, long sessionId, String path) {
        byte[] name = path.getBytes(java.nio.charset.StandardCharsets.UTF_16LE);
        ByteBuffer b = body(8 + name.length);
        b.putShort((short) 9).putShort((short) 0).putShort((short) (64 + 8)).putShort((short) name.length).put(name);
        return request(TREE_CONNECT, messageId, sessionId, 0, b.array());
    }

    /**
     * CREATE request ([MS-SMB2] 2.2.13) for {@code name} in the tree, read and write access, no
     * oplock, no lease, no create contexts.
     */
    static byte[] create(long messageId, long sessionId, int treeId, String name, int disposition) {
        byte[] n = name.getBytes(java.nio.charset.StandardCharsets.UTF_16LE);
        ByteBuffer b = body(56 + Math.max(1, n.length));
        b.putShort((short) 57).put((byte) 0).put((byte) 0) // SecurityFlags, RequestedOplockLevel NONE
                .putInt(2)                                  // ImpersonationLevel: Impersonation
                .putLong(0).putLong(0)                      // SmbCreateFlags, Reserved
                .putInt(READ_WRITE_ACCESS).putInt(0x80)     // DesiredAccess, FILE_ATTRIBUTE_NORMAL
                .putInt(7).putInt(disposition)              // ShareAccess read|write|delete
                .putInt(0x40)                               // CreateOptions: FILE_NON_DIRECTORY_FILE
                .putShort((short) (64 + 56)).putShort((short) n.length).putInt(0).putInt(0).put(n);
        return request(CREATE, messageId, sessionId, treeId, b.array());
    }

    /** The 16-byte FileId (persistent, volatile) of a CREATE response ([MS-SMB2] 2.2.14, body offset 64). */
    static byte[] fileId(byte[] createResponse) {
        return java.util.Arrays.copyOfRange(createResponse, 64 + 64, 64 + 80);
    }

    /** CLOSE request ([MS-SMB2] 2.2.15). */
    static byte[] close(long messageId, long sessionId, int treeId, byte[] fileId) {
        ByteBuffer b = body(24);
        b.putShort((short) 24).putShort((short) 0).putInt(0).put(fileId);
        return request(CLOSE, messageId, sessionId, treeId, b.array());
    }

    /**
     * WRITE request with an RDMA channel ([MS-SMB2] 2.2.21): no data in the message (DataOffset and
     * Length 0, as ksmbd requires); RemainingBytes is the length the server RDMA-Reads from the
     * buffers {@code descriptors} describe, which follow as WriteChannelInfo.
     */
    static byte[] writeRdma(long messageId, int creditCharge, long sessionId, int treeId, byte[] fileId,
            long offset, int length, int channel, List<BufferDescriptor> descriptors) {
        ByteBuffer b = body(48 + BufferDescriptor.BYTES * descriptors.size());
        b.putShort((short) 49).putShort((short) 0).putInt(0).putLong(offset).put(fileId).putInt(channel)
                .putInt(length).putShort((short) (64 + 48)).putShort((short) (BufferDescriptor.BYTES * descriptors.size()))
                .putInt(0);
        for (BufferDescriptor d : descriptors) {
            d.encode(b);
        }
        return request(WRITE, creditCharge, 256, messageId, sessionId, treeId, b.array());
    }

    /**
     * READ request with an RDMA channel ([MS-SMB2] 2.2.19): the server RDMA-Writes up to
     * {@code length} bytes into the buffers {@code descriptors} describe (ReadChannelInfo).
     */
    static byte[] readRdma(long messageId, int creditCharge, long sessionId, int treeId, byte[] fileId,
            long offset, int length, int channel, List<BufferDescriptor> descriptors) {
        ByteBuffer b = body(48 + BufferDescriptor.BYTES * descriptors.size());
        b.putShort((short) 49).put((byte) 0).put((byte) 0).putInt(length).putLong(offset).put(fileId)
                .putInt(0).putInt(channel).putInt(0) // MinimumCount, Channel, RemainingBytes
                .putShort((short) (64 + 48)).putShort((short) (BufferDescriptor.BYTES * descriptors.size()));
        for (BufferDescriptor d : descriptors) {
            d.encode(b);
        }
        return request(READ, creditCharge, 256, messageId, sessionId, treeId, b.array());
    }

    /** Count of a WRITE response ([MS-SMB2] 2.2.22, body offset 4). */
    static int writeCount(byte[] response) {
        return ByteBuffer.wrap(response).order(ByteOrder.LITTLE_ENDIAN).getInt(64 + 4);
    }

    /** DataLength and DataRemaining of a READ response ([MS-SMB2] 2.2.20, body offsets 4 and 8). */
    static int readDataLength(byte[] response) {
        return ByteBuffer.wrap(response).order(ByteOrder.LITTLE_ENDIAN).getInt(64 + 4);
    }

    static int readDataRemaining(byte[] response) {
        return ByteBuffer.wrap(response).order(ByteOrder.LITTLE_ENDIAN).getInt(64 + 8);
    }
}
