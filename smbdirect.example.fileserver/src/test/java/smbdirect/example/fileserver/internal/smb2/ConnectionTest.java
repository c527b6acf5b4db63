package smbdirect.example.fileserver.internal.smb2;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What ends a connection ([MS-SMB2] 3.3.5.2, 3.3.5.2.3): a malformed header, or requests out of order. */
class ConnectionTest {

    @TempDir
    Path dir;
    private Harness h;

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness(dir.resolve("f"), 1 << 20);
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    @Test
    void badProtocolIdClosesTheConnection() {
        ByteBuffer m = h.request(Smb2.ECHO, 1, 0, 0, RequestBytes.echo());
        m.putInt(0, 0x424D53FD);
        h.deliver(m);
        assertTrue(h.transport.closed.isDone());
        assertTrue(h.transport.sent.isEmpty());
    }

    @Test
    void messageShorterThanAHeaderClosesTheConnection() {
        h.deliver(ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).putInt(0, Smb2.PROTOCOL_ID));
        assertTrue(h.transport.closed.isDone());
    }

    @Test
    void wrongHeaderStructureSizeClosesTheConnection() {
        ByteBuffer m = h.request(Smb2.ECHO, 1, 0, 0, RequestBytes.echo());
        m.putShort(4, (short) 65);
        h.deliver(m);
        assertTrue(h.transport.closed.isDone());
    }

    @Test
    void requestBeforeNegotiateClosesTheConnection() {
        h.deliver(h.request(Smb2.ECHO, 1, 0, 0, RequestBytes.echo()));
        assertTrue(h.transport.closed.isDone());
    }

    @Test
    void nextCommandOutsideTheMessageClosesTheConnection() {
        ByteBuffer m = RequestBytes.compound(List.of(h.request(Smb2.ECHO, 1, 0, 0, RequestBytes.echo()),
                h.request(Smb2.ECHO, 1, 1, 0, RequestBytes.echo())));
        m.putInt(20, 4096);
        h.deliver(m);
        assertTrue(h.transport.closed.isDone());
    }

    @Test
    void smb1NegotiateWithoutSmb2WildcardClosesTheConnection() {
        byte[] dialects = "\u0002NT LM 0.12\u0000".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteBuffer m = ByteBuffer.allocate(35 + dialects.length).order(ByteOrder.LITTLE_ENDIAN);
        m.putInt(Smb2.SMB1_ID).put((byte) 0x72).position(33);
        m.putShort((short) dialects.length).put(dialects).flip();
        assertFalse(Negotiate.offersSmb2Wildcard(m));
        h.deliver(m);
        assertTrue(h.transport.closed.isDone());
    }
}
