package smbdirect.example.fileserver.internal.smb2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

/** The SMB2 header codec ([MS-SMB2] 2.2.1.1, 2.2.1.2). */
class Smb2HeaderTest {

    @Test
    void decodesEveryFieldOfASyncRequestHeader() throws Exception {
        ByteBuffer m = RequestBytes.request(Smb2.WRITE, 3, 0x1122334455L, 0x0A0B0C0D0E0FL, 0x77, 0, new byte[] {49, 0});
        Smb2Header h = Smb2Header.decode(m, 0);
        assertEquals(3, h.creditCharge());
        assertEquals(Smb2.WRITE, h.command());
        assertEquals(8, h.credits());
        assertEquals(0x1122334455L, h.messageId());
        assertEquals(0xFEFF, h.processId());
        assertEquals(0x77, h.treeId());
        assertEquals(0x0A0B0C0D0E0FL, h.sessionId());
    }

    @Test
    void encodedResponseHeaderDecodesToTheSameFields() throws Exception {
        Smb2Header h = new Smb2Header(2, NtStatus.END_OF_FILE, Smb2.READ, 17, Smb2.FLAGS_SERVER_TO_REDIR, 0, 99, 5, 6, 0, 7);
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        h.encode(b);
        assertEquals(64, b.position());
        assertEquals(Smb2.PROTOCOL_ID, b.getInt(0));
        assertEquals(64, b.getShort(4));
        assertEquals(NtStatus.END_OF_FILE, b.getInt(8));
        assertEquals(17, b.getShort(14));
        assertEquals(99, b.getLong(24));
        assertEquals(6, b.getInt(36));
        assertEquals(7, b.getLong(40));
    }

    @Test
    void malformedHeadersNameTheFieldAndValue() {
        ByteBuffer good = RequestBytes.request(Smb2.ECHO, 1, 0, 0, 0, 0, new byte[] {4, 0, 0, 0});
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> Smb2Header.decode(copy(good).putInt(0, 0x424D53FD), 0));
        assertTrue(e.getMessage().startsWith("ProtocolId=0x424D53FD"), e.getMessage());
        e = assertThrows(MalformedMessageException.class, () -> Smb2Header.decode(copy(good).putShort(4, (short) 0), 0));
        assertTrue(e.getMessage().startsWith("StructureSize=0"), e.getMessage());
        e = assertThrows(MalformedMessageException.class, () -> Smb2Header.decode(copy(good).limit(63), 0));
        assertTrue(e.getMessage().contains("63"), e.getMessage());
        e = assertThrows(MalformedMessageException.class, () -> Smb2Header.decode(copy(good).putInt(16, 1), 0));
        assertTrue(e.getMessage().startsWith("Flags="), e.getMessage());
        e = assertThrows(MalformedMessageException.class, () -> Smb2Header.decode(copy(good).putInt(20, 12), 0));
        assertTrue(e.getMessage().startsWith("NextCommand=12"), e.getMessage());
    }

    @Test
    void requestFieldsOutsideTheBodyAnswerInvalidParameter() throws Exception {
        ByteBuffer m = RequestBytes.request(Smb2.ECHO, 1, 0, 0, 0, 0, new byte[] {4, 0, 0, 0});
        Smb2Request r = new Smb2Request(m, 0, m.limit(), Smb2Header.decode(m, 0));
        assertEquals(NtStatus.INVALID_PARAMETER, assertThrows(SmbStatusException.class, () -> r.u32(2)).status());
        assertEquals(NtStatus.INVALID_PARAMETER,
                assertThrows(SmbStatusException.class, () -> r.region("Name", 60, 8)).status());
        assertEquals(NtStatus.INVALID_PARAMETER,
                assertThrows(SmbStatusException.class, () -> r.region("Name", 64, 6)).status());
        assertEquals(0, r.region("Name", 0, 0).remaining(), "an empty buffer may have any offset");
    }

    private static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.remaining()).order(ByteOrder.LITTLE_ENDIAN);
        c.put(b.duplicate()).flip();
        return c;
    }
}
