package smbdirect.example.fileserver.internal.smb2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compound requests ([MS-SMB2] 3.3.5.2.7) and the session and tree checks (3.3.5.2.9, 3.3.5.2.11). */
class CompoundTest {

    private static final long[] PREVIOUS = {-1L, -1L};

    @TempDir
    Path dir;
    private Harness h;

    @BeforeEach
    void setUp() throws Exception {
        Path path = dir.resolve("f");
        Files.write(path, "0123456789abcdefghij".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        h = new Harness(path, 1 << 20);
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    @Test
    void relatedRequestUsesThePreviousFileIdAndResponsesAreChainedEightByteAligned() throws Exception {
        // 3.3.5.2.7.2: FileId 0xFFFF... in a related request is the previous request's; 3.3.5.2.7: responses 8-byte aligned
        ByteBuffer m = RequestBytes.compound(List.of(
                h.request(Smb2.READ, 1, 0, 0, RequestBytes.read(3, 0, h.fileId(), 0, 0, List.of())),
                RequestBytes.request(Smb2.READ, 1, 1, 0, 0, Smb2.FLAGS_RELATED_OPERATIONS,
                        RequestBytes.read(5, 10, PREVIOUS, 0, 0, List.of())),
                h.request(Smb2.ECHO, 1, 2, 0, RequestBytes.echo())));
        FakeConnection.Sent s = h.run(m);
        ByteBuffer r = s.le();
        int first = r.getInt(20);
        assertEquals(0, first % 8);
        assertEquals(Smb2.FLAGS_SERVER_TO_REDIR, r.getInt(16));
        assertArrayEquals("012".getBytes(), Arrays.copyOfRange(s.bytes(), 80, 83));
        int second = first + r.getInt(first + 20);
        assertEquals(0, second % 8);
        assertEquals(NtStatus.SUCCESS, Harness.status(r, first));
        assertEquals(Smb2.FLAGS_SERVER_TO_REDIR | Smb2.FLAGS_RELATED_OPERATIONS, r.getInt(first + 16));
        assertEquals(h.session.id(), r.getLong(first + 40), "the related response carries the previous SessionId");
        assertArrayEquals("abcde".getBytes(), Arrays.copyOfRange(s.bytes(), first + 80, first + 85));
        assertEquals(Smb2.ECHO, r.getShort(second + 12));
        assertEquals(0, r.getInt(second + 20), "the last response has NextCommand 0");
        assertEquals(2, r.getLong(second + 24), "MessageId");
    }

    @Test
    void relatedRequestAfterAFailedOneFailsWithItsStatus() throws Exception {
        // 3.3.5.2.7.2: the previous operation failed, the related one fails with the same status
        ByteBuffer m = RequestBytes.compound(List.of(
                h.request(Smb2.READ, 1, 0, 0, RequestBytes.read(3, 0, new long[] {1, 999}, 0, 0, List.of())),
                RequestBytes.request(Smb2.READ, 1, 1, 0, 0, Smb2.FLAGS_RELATED_OPERATIONS,
                        RequestBytes.read(5, 10, PREVIOUS, 0, 0, List.of()))));
        ByteBuffer r = h.run(m).le();
        assertEquals(NtStatus.FILE_CLOSED, Harness.status(r, 0));
        assertEquals(NtStatus.FILE_CLOSED, Harness.status(r, r.getInt(20)));
    }

    @Test
    void relatedRequestAfterOneThatFailedUsingTheFileIdStillUsesIt() throws Exception {
        // 3.3.5.2.7.2: a request that found the open and then failed (a READ at the end of the file, as a
        // QUERY_INFO that fails in CREATE + QUERY_INFO + CLOSE) leaves the FileId to the next related request
        ByteBuffer m = RequestBytes.compound(List.of(
                h.request(Smb2.READ, 1, 0, 0, RequestBytes.read(3, 1000, h.fileId(), 0, 0, List.of())),
                RequestBytes.request(Smb2.READ, 1, 1, 0, 0, Smb2.FLAGS_RELATED_OPERATIONS,
                        RequestBytes.read(5, 10, PREVIOUS, 0, 0, List.of()))));
        FakeConnection.Sent s = h.run(m);
        ByteBuffer r = s.le();
        assertEquals(NtStatus.END_OF_FILE, Harness.status(r, 0));
        int first = r.getInt(20);
        assertEquals(NtStatus.SUCCESS, Harness.status(r, first));
        assertArrayEquals("abcde".getBytes(), Arrays.copyOfRange(s.bytes(), first + 80, first + 85));
    }

    @Test
    void requestInAnUnknownSessionAnswersUserSessionDeleted() throws Exception {
        ByteBuffer m = RequestBytes.request(Smb2.READ, 1, 0, 0x1234, h.tree.id(), 0,
                RequestBytes.read(3, 0, h.fileId(), 0, 0, List.of()));
        assertEquals(NtStatus.USER_SESSION_DELETED, Harness.status(h.run(m).le(), 0));
    }

    @Test
    void requestInAnUnknownTreeAnswersNetworkNameDeleted() throws Exception {
        ByteBuffer m = RequestBytes.request(Smb2.READ, 1, 0, h.session.id(), 77, 0,
                RequestBytes.read(3, 0, h.fileId(), 0, 0, List.of()));
        assertEquals(NtStatus.NETWORK_NAME_DELETED, Harness.status(h.run(m).le(), 0));
    }

    @Test
    void wrongBodyStructureSizeAnswersInvalidParameter() throws Exception {
        byte[] body = RequestBytes.read(3, 0, h.fileId(), 0, 0, List.of());
        body[0] = 48;
        assertEquals(NtStatus.INVALID_PARAMETER, Harness.status(h.run(h.request(Smb2.READ, 1, 0, 0, body)).le(), 0));
    }

    @Test
    void signedRequestInASessionWithoutSigningKeyIsRefusedWithAccessDenied() throws Exception {
        // 3.3.5.2.4: a signed request is verified with Session.SigningKey; without one it cannot be
        ByteBuffer m = h.request(Smb2.READ, 1, 0, Smb2.FLAGS_SIGNED, RequestBytes.read(3, 0, h.fileId(), 0, 0, List.of()));
        assertEquals(NtStatus.ACCESS_DENIED, Harness.status(h.run(m).le(), 0));
    }

    @Test
    void lockAndChangeNotifyAnswerNotSupported() throws Exception {
        byte[] lock = new byte[48 + 24];
        lock[0] = 48;
        assertEquals(NtStatus.NOT_SUPPORTED, Harness.status(h.run(h.request(Smb2.LOCK, 1, 0, 0, lock)).le(), 0));
        byte[] notify = new byte[32];
        notify[0] = 32;
        assertEquals(NtStatus.NOT_SUPPORTED, Harness.status(h.run(h.request(Smb2.CHANGE_NOTIFY, 1, 1, 0, notify)).le(), 0));
    }

    @Test
    void responsesGrantTheCreditsAskedForUpToTheCap() throws Exception {
        // 3.3.1.2: each response grants credits; the request header asks for 8
        ByteBuffer r = h.run(h.request(Smb2.ECHO, 1, 0, 0, RequestBytes.echo())).le();
        assertEquals(8, r.getShort(14));
    }
}
