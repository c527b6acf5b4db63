package smbdirect.impl.trace;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A plain SMB2 NEGOTIATE request (64-byte header + body) for payloads the SMB2 dissector decodes. */
public final class Smb2Negotiate {

    private Smb2Negotiate() {
    }

    /** The request with the given MessageId and {@code dialectCount} dialects 0x0202, 0x0210, ... or 0x0200+i. */
    public static byte[] request(long messageId, int... dialects) {
        ByteBuffer b = ByteBuffer.allocate(64 + 36 + 2 * dialects.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0xFE).put((byte) 'S').put((byte) 'M').put((byte) 'B');
        b.putShort((short) 64);   // StructureSize
        b.putShort((short) 0);    // CreditCharge
        b.putInt(0);              // Status
        b.putShort((short) 0);    // Command NEGOTIATE
        b.putShort((short) 1);    // CreditRequest
        b.putInt(0);              // Flags
        b.putInt(0);              // NextCommand
        b.putLong(messageId);     // MessageId
        b.putInt(0);              // Reserved
        b.putInt(0);              // TreeId
        b.putLong(0);             // SessionId
        b.put(new byte[16]);      // Signature
        b.putShort((short) 36);   // StructureSize
        b.putShort((short) dialects.length);
        b.putShort((short) 1);    // SecurityMode
        b.putShort((short) 0);    // Reserved
        b.putInt(0x7F);           // Capabilities
        for (int i = 0; i < 16; i++) {
            b.put((byte) i);      // ClientGuid
        }
        b.putLong(0);             // ClientStartTime
        for (int d : dialects) {
            b.putShort((short) d);
        }
        return b.array();
    }

    /** The four-dialect request of smbd_pcap.py (108 bytes). */
    public static byte[] small(long messageId) {
        return request(messageId, 0x0202, 0x0210, 0x0300, 0x0302);
    }

    /** A 340-byte request with 120 dialects, as smbd_pcap.py fragments it. */
    public static byte[] big(long messageId) {
        int[] dialects = new int[120];
        for (int i = 0; i < dialects.length; i++) {
            dialects[i] = 0x0200 + i;
        }
        return request(messageId, dialects);
    }
}
