package smbdirect.interop.siw;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The few SMB2 bytes the SMB Direct interop tests put on the wire and read back ([MS-SMB2] 2.2.1,
 * 2.2.3-2.2.6): a NEGOTIATE request ksmbd 6.1 accepts, SESSION_SETUP requests, and the response
 * fields the tests check. Test code, not an SMB2 client. Static, thread-safe.
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
        for (int i = 0; i < 16; i++) {
            b.put((byte) (0xA0 + i)); // ClientGuid
        }
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

    /** A 64-byte SMB2 request header followed by {@code body}. */
    static byte[] request(int command, long messageId, long sessionId, int treeId, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(64 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PROTOCOL_ID).putShort((short) 64).putShort((short) 1).putInt(0).putShort((short) command)
                .putShort((short) 32).putInt(0).putInt(0).putLong(messageId).putInt(0).putInt(treeId)
                .putLong(sessionId).put(new byte[16]).put(body);
        return b.array();
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
}
