package smbdirect.example.fileserver.internal.smb2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.example.fileserver.internal.auth.NtlmAuthenticator;
import smbdirect.example.fileserver.internal.share.Share;

/**
 * NEGOTIATE ([MS-SMB2] 3.3.5.3, 3.3.5.4), SESSION_SETUP refusals (3.3.5.5), TREE_CONNECT
 * (3.3.5.7), CREATE on IPC$ and FSCTL_VALIDATE_NEGOTIATE_INFO (3.3.5.15.12), through
 * {@link Smb2Connection#onMessage} as the transport delivers them.
 */
class ProtocolTest {

    private static final byte[] CLIENT_GUID = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;
    private FakeConnection transport;
    private Smb2Connection connection;
    private NtlmAuthenticator authenticator;

    @BeforeEach
    void setUp() throws Exception {
        transport = new FakeConnection(1 << 20);
        authenticator = new NtlmAuthenticator("alice", "secret", false);
        Share share = new Share("Data", dir, false);
        connection = new Smb2Connection(ServerContext.create(share, authenticator, Runnable::run), transport, c -> { });
    }

    private ByteBuffer deliver(ByteBuffer message) {
        transport.deliver(connection, message);
        FakeConnection.Sent s = transport.sent.poll();
        return s == null ? null : s.le();
    }

    /** NEGOTIATE (2.2.3) with {@code dialects}; for 0x0311 with a PREAUTH_INTEGRITY_CAPABILITIES context when {@code preauth}. */
    static ByteBuffer negotiate(long messageId, boolean preauth, int... dialects) {
        boolean v311 = Arrays.stream(dialects).anyMatch(d -> d == 0x0311) && preauth;
        int fixed = 36 + 2 * dialects.length;
        int contextAt = (64 + fixed + 7) & ~7;
        byte[] salt = new byte[32];
        int size = v311 ? contextAt - 64 + 8 + 38 : fixed;
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 36).putShort((short) dialects.length).putShort((short) 1).putShort((short) 0).putInt(0x7F)
                .put(CLIENT_GUID).putInt(v311 ? contextAt : 0).putShort((short) (v311 ? 1 : 0)).putShort((short) 0);
        for (int d : dialects) {
            b.putShort((short) d);
        }
        if (v311) {
            b.position(contextAt - 64);
            b.putShort((short) 1).putShort((short) 38).putInt(0).putShort((short) 1).putShort((short) 32)
                    .putShort((short) 1).put(salt);
        }
        return RequestBytes.request(Smb2.NEGOTIATE, 0, messageId, 0, 0, 0, b.array());
    }

    @Test
    void negotiate311AnswersThePreauthContextAndHashesRequestAndResponse() throws Exception {
        // 3.3.5.4: highest common dialect; SHA-512 with a 32-byte salt; the connection's PreauthIntegrityHashValue
        ByteBuffer request = negotiate(0, true, 0x0210, 0x0300, 0x0302, 0x0311);
        ByteBuffer r = deliver(request);
        assertEquals(NtStatus.SUCCESS, r.getInt(8));
        assertEquals(65, r.getShort(64));
        assertEquals(Smb2.NEGOTIATE_SIGNING_ENABLED, r.getShort(64 + 2), "SecurityMode");
        assertEquals(0x0311, r.getShort(64 + 4), "DialectRevision");
        assertEquals(1, r.getShort(64 + 6), "NegotiateContextCount");
        assertEquals(Smb2.GLOBAL_CAP_LARGE_MTU, r.getInt(64 + 24), "Capabilities: LARGE_MTU only");
        assertEquals(1 << 20, r.getInt(64 + 32), "MaxReadSize = MaxReadWriteSize");
        assertEquals(1 << 20, r.getInt(64 + 36), "MaxWriteSize");
        int blobAt = r.getShort(64 + 56);
        byte[] blob = new byte[r.getShort(64 + 58)];
        r.get(blobAt, blob);
        assertArrayEquals(authenticator.negotiateToken(), blob);
        int ctx = r.getInt(64 + 60);
        assertEquals(0, ctx % 8);
        assertEquals(1, r.getShort(ctx), "PREAUTH_INTEGRITY_CAPABILITIES");
        assertEquals(38, r.getShort(ctx + 2));
        assertEquals(1, r.getShort(ctx + 8), "HashAlgorithmCount");
        assertEquals(32, r.getShort(ctx + 10), "SaltLength");
        assertEquals(1, r.getShort(ctx + 12), "SHA-512");
        assertEquals(ctx + 8 + 38, r.limit());
        MessageDigest sha = MessageDigest.getInstance("SHA-512");
        sha.update(new byte[64]);
        sha.update(request.duplicate());
        byte[] h1 = sha.digest();
        sha.update(h1);
        sha.update(r.duplicate().position(0));
        assertArrayEquals(sha.digest(), connection.preauthHash());
    }

    @Test
    void negotiateAnswersTheHighestCommonDialect302WithoutContexts() {
        ByteBuffer r = deliver(negotiate(0, false, 0x0202, 0x0210, 0x0300, 0x0302));
        assertEquals(0x0302, r.getShort(64 + 4));
        assertEquals(0, r.getShort(64 + 6));
        assertEquals(0, r.getInt(64 + 60));
    }

    @Test
    void negotiateWithoutACommonDialectAnswersNotSupported() {
        ByteBuffer r = deliver(negotiate(0, false, 0x0202, 0x0210, 0x0300));
        assertEquals(NtStatus.NOT_SUPPORTED, r.getInt(8));
        assertFalse(transport.closed.isDone());
    }

    @Test
    void negotiate311WithoutPreauthContextAnswersInvalidParameter() {
        ByteBuffer r = deliver(negotiate(0, false, 0x0311));
        assertEquals(NtStatus.INVALID_PARAMETER, r.getInt(8));
    }

    @Test
    void secondNegotiateClosesTheConnection() {
        assertNotNull(deliver(negotiate(0, false, 0x0302)));
        assertEquals(null, deliver(negotiate(1, false, 0x0302)));
        assertTrue(transport.closed.isDone());
    }

    @Test
    void smb1NegotiateOfferingSmb2WildcardIsAnsweredWith02FFThenSmb2NegotiateFollows() {
        // 3.3.5.3.1: the SMB2 NEGOTIATE response with DialectRevision 0x02FF, MessageId 0
        byte[] dialects = "\u0002NT LM 0.12\u0000\u0002SMB 2.002\u0000\u0002SMB 2.???\u0000".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer m = ByteBuffer.allocate(35 + dialects.length).order(ByteOrder.LITTLE_ENDIAN);
        m.putInt(Smb2.SMB1_ID).put((byte) 0x72).position(33);
        m.putShort((short) dialects.length).put(dialects).flip();
        ByteBuffer r = deliver(m);
        assertEquals(Smb2.PROTOCOL_ID, r.getInt(0));
        assertEquals(0, r.getLong(24), "MessageId");
        assertEquals(0x02FF, r.getShort(64 + 4));
        ByteBuffer second = deliver(negotiate(1, false, 0x0302));
        assertEquals(0x0302, second.getShort(64 + 4));
        assertFalse(transport.closed.isDone());
    }

    private long negotiated302() {
        deliver(negotiate(0, false, 0x0302));
        return 1;
    }

    static ByteBuffer sessionSetup(long messageId, long sessionId, int flags, int securityMode, byte[] token) {
        ByteBuffer b = ByteBuffer.allocate(24 + token.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 25).put((byte) flags).put((byte) securityMode).putInt(0).putInt(0)
                .putShort((short) (64 + 24)).putShort((short) token.length).putLong(0).put(token);
        return RequestBytes.request(Smb2.SESSION_SETUP, 1, messageId, sessionId, 0, 0, b.array());
    }

    /** An NTLMSSP NEGOTIATE_MESSAGE ([MS-NLMP] 2.2.1.1) with no domain or workstation. */
    static byte[] ntlmNegotiate() {
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        b.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(0x60088215);
        return b.array();
    }

    @Test
    void firstSessionSetupLegAnswersMoreProcessingWithANewSessionId() {
        long id = negotiated302();
        ByteBuffer r = deliver(sessionSetup(id, 0, 0, 1, ntlmNegotiate()));
        assertEquals(NtStatus.MORE_PROCESSING_REQUIRED, r.getInt(8));
        assertNotEquals(0, r.getLong(40), "SessionId");
        int blobAt = r.getShort(64 + 4);
        assertEquals(72, blobAt);
        assertTrue(r.getShort(64 + 6) > 0, "the CHALLENGE");
    }

    @Test
    void clientRequiringSigningIsRefusedWithAccessDenied() {
        long id = negotiated302();
        ByteBuffer r = deliver(sessionSetup(id, 0, 0, Smb2.NEGOTIATE_SIGNING_REQUIRED, ntlmNegotiate()));
        assertEquals(NtStatus.ACCESS_DENIED, r.getInt(8));
    }

    @Test
    void sessionBindingIsRefusedWithRequestNotAccepted() {
        long id = negotiated302();
        ByteBuffer r = deliver(sessionSetup(id, 0, 1, 1, ntlmNegotiate()));
        assertEquals(NtStatus.REQUEST_NOT_ACCEPTED, r.getInt(8));
    }

    private Session loggedOn() {
        negotiated302();
        Session s = connection.newSession();
        s.loggedOn("alice", false);
        return s;
    }

    static ByteBuffer treeConnect(long messageId, long sessionId, String path) {
        byte[] name = path.getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer b = ByteBuffer.allocate(8 + name.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 9).putShort((short) 0).putShort((short) (64 + 8)).putShort((short) name.length).put(name);
        return RequestBytes.request(Smb2.TREE_CONNECT, 1, messageId, sessionId, 0, 0, b.array());
    }

    @Test
    void treeConnectFindsTheShareWithoutRegardToCaseAndRefusesOtherNames() {
        Session s = loggedOn();
        ByteBuffer disk = deliver(treeConnect(1, s.id(), "\\\\host\\DATA"));
        assertEquals(NtStatus.SUCCESS, disk.getInt(8));
        assertNotEquals(0, disk.getInt(36), "TreeId");
        assertEquals(TreeCommands.SHARE_TYPE_DISK, disk.get(64 + 2));
        assertEquals(TreeCommands.ACCESS_ALL, disk.getInt(64 + 12), "MaximalAccess");
        ByteBuffer other = deliver(treeConnect(2, s.id(), "\\\\host\\other"));
        assertEquals(NtStatus.BAD_NETWORK_NAME, other.getInt(8));
    }

    @Test
    void signedTreeConnectIsVerifiedAndItsResponseSigned() {
        // cifs signs TREE_CONNECT under 3.1.1 (3.2.4.1.1); 3.3.5.2.4 verify, 3.3.4.1.1 sign the response
        Session s = loggedOn();
        byte[] key = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
        s.signingKey(key);
        ByteBuffer request = treeConnect(1, s.id(), "\\\\host\\Data");
        request.putInt(16, Smb2.FLAGS_SIGNED);
        smbdirect.example.fileserver.internal.auth.Smb3Keys.sign(key, request.duplicate().order(ByteOrder.LITTLE_ENDIAN));
        ByteBuffer r = deliver(request);
        assertEquals(NtStatus.SUCCESS, r.getInt(8));
        assertEquals(Smb2.FLAGS_SIGNED, r.getInt(16) & Smb2.FLAGS_SIGNED);
        byte[] signature = new byte[16];
        r.get(48, signature);
        ByteBuffer copy = ByteBuffer.allocate(r.limit()).order(ByteOrder.LITTLE_ENDIAN).put(r.duplicate().position(0)).flip();
        smbdirect.example.fileserver.internal.auth.Smb3Keys.sign(key, copy.duplicate().order(ByteOrder.LITTLE_ENDIAN));
        byte[] expected = new byte[16];
        copy.get(48, expected);
        assertArrayEquals(expected, signature);

        ByteBuffer tampered = treeConnect(2, s.id(), "\\\\host\\Data");
        tampered.putInt(16, Smb2.FLAGS_SIGNED);
        smbdirect.example.fileserver.internal.auth.Smb3Keys.sign(key, tampered.duplicate().order(ByteOrder.LITTLE_ENDIAN));
        tampered.put(tampered.limit() - 1, (byte) 'x');
        assertEquals(NtStatus.ACCESS_DENIED, deliver(tampered).getInt(8));
    }

    @Test
    void createOnIpcFindsNoPipe() {
        Session s = loggedOn();
        ByteBuffer ipc = deliver(treeConnect(1, s.id(), "\\\\host\\IPC$"));
        assertEquals(TreeCommands.SHARE_TYPE_PIPE, ipc.get(64 + 2));
        byte[] name = "srvsvc".getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer b = ByteBuffer.allocate(56 + name.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 57).putShort((short) 0).putInt(2).putLong(0).putLong(0).putInt(0x0012019F).putInt(0)
                .putInt(7).putInt(1).putInt(0).putShort((short) (64 + 56)).putShort((short) name.length).putInt(0)
                .putInt(0).put(name);
        ByteBuffer r = deliver(RequestBytes.request(Smb2.CREATE, 1, 2, s.id(), ipc.getInt(36), 0, b.array()));
        assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, r.getInt(8));
    }

    /** CREATE (2.2.13) of {@code name}, FILE_OPEN_IF, read and write, with the create contexts named (no data). */
    static ByteBuffer create(long messageId, long sessionId, int treeId, String name, String... contexts) {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        int contextsAt = (64 + 56 + n.length + 7) & ~7;
        int contextsLength = 24 * contexts.length;
        ByteBuffer b = ByteBuffer.allocate(contextsAt - 64 + contextsLength).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 57).putShort((short) 0).putInt(2).putLong(0).putLong(0).putInt(0x0012019F).putInt(0x80)
                .putInt(7).putInt(3).putInt(0x40).putShort((short) (64 + 56)).putShort((short) n.length)
                .putInt(contexts.length == 0 ? 0 : contextsAt).putInt(contextsLength).put(n);
        for (int i = 0; i < contexts.length; i++) {
            b.position(contextsAt - 64 + 24 * i);
            b.putInt(i == contexts.length - 1 ? 0 : 24).putShort((short) 16).putShort((short) 4).putShort((short) 0)
                    .putShort((short) 0).putInt(0).put(contexts[i].getBytes(StandardCharsets.US_ASCII));
        }
        return RequestBytes.request(Smb2.CREATE, 1, messageId, sessionId, treeId, 0, b.array());
    }

    @Test
    void createAnswersMaximalAccessAndDiskIdContextsAndLogoffClosesTheOpen() {
        // 2.2.14.2.5 MxAc, 2.2.14.2.9 QFid; 3.3.5.6 LOGOFF closes the session's opens
        Session s = loggedOn();
        int tree = deliver(treeConnect(1, s.id(), "\\\\host\\Data")).getInt(36);
        ByteBuffer r = deliver(create(2, s.id(), tree, "a.txt", "MxAc", "DH2Q", "QFid"));
        assertEquals(NtStatus.SUCCESS, r.getInt(8));
        assertEquals(2, r.getInt(64 + 4), "CreateAction FILE_CREATED");
        assertEquals(0, r.get(64 + 2), "no oplock");
        int at = r.getInt(64 + 80);
        int length = r.getInt(64 + 84);
        assertEquals(64 + 88, at);
        assertEquals("MxAc", name(r, at));
        assertEquals(NtStatus.SUCCESS, r.getInt(at + r.getShort(at + 10)));
        assertEquals(TreeCommands.ACCESS_ALL, r.getInt(at + r.getShort(at + 10) + 4));
        int next = at + r.getInt(at);
        assertEquals(0, (next - at) % 8);
        assertEquals("QFid", name(r, next));
        assertEquals(32, r.getInt(next + 12));
        assertEquals(0, r.getInt(next), "the last context");
        assertEquals(at + length, next + 24 + 32);
        assertEquals(1, connection.opens().size());
        assertEquals(NtStatus.SUCCESS, deliver(RequestBytes.request(Smb2.LOGOFF, 1, 3, s.id(), 0, 0,
                new byte[] {4, 0, 0, 0})).getInt(8));
        assertEquals(0, connection.opens().size());
    }

    static ByteBuffer queryInfo(long messageId, long sessionId, int treeId, long[] fileId, int infoType, int infoClass,
            int outputLength, int additional) {
        ByteBuffer b = ByteBuffer.allocate(41).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 41).put((byte) infoType).put((byte) infoClass).putInt(outputLength).putShort((short) 0)
                .putShort((short) 0).putInt(0).putInt(additional).putInt(0).putLong(fileId[0]).putLong(fileId[1]);
        return RequestBytes.request(Smb2.QUERY_INFO, 1, messageId, sessionId, treeId, 0, b.array());
    }

    @Test
    void securityDescriptorLargerThanTheBufferAnswersBufferTooSmallWithTheSizeNeeded() {
        // 3.3.5.20.3 and 2.2.2: STATUS_BUFFER_TOO_SMALL, ErrorData the 4-byte size (3.0.2: bare; 3.1.1: an error context)
        for (boolean v311 : new boolean[] {false, true}) {
            transport = new FakeConnection(1 << 20);
            connection = new Smb2Connection(connection.server(), transport, c -> { });
            deliver(v311 ? negotiate(0, true, 0x0311) : negotiate(0, false, 0x0302));
            Session s = connection.newSession();
            s.loggedOn("alice", false);
            int tree = deliver(treeConnect(1, s.id(), "\\\\host\\Data")).getInt(36);
            ByteBuffer created = deliver(create(2, s.id(), tree, "acl.bin"));
            long[] fileId = {created.getLong(64 + 64), created.getLong(64 + 72)};
            ByteBuffer full = deliver(queryInfo(3, s.id(), tree, fileId, 3, 0, 65536, 7));
            assertEquals(NtStatus.SUCCESS, full.getInt(8));
            int size = full.getInt(64 + 4);
            ByteBuffer small = deliver(queryInfo(4, s.id(), tree, fileId, 3, 0, 8, 7));
            assertEquals(NtStatus.BUFFER_TOO_SMALL, small.getInt(8));
            if (v311) {
                assertEquals(1, small.get(64 + 2), "ErrorContextCount");
                assertEquals(12, small.getInt(64 + 4), "ByteCount: one 12-byte error context");
                assertEquals(4, small.getInt(64 + 8), "ErrorDataLength");
                assertEquals(0, small.getInt(64 + 12), "ErrorId SMB2_ERROR_ID_DEFAULT");
                assertEquals(size, small.getInt(64 + 16));
            } else {
                assertEquals(0, small.get(64 + 2), "ErrorContextCount");
                assertEquals(4, small.getInt(64 + 4), "ByteCount");
                assertEquals(size, small.getInt(64 + 8));
            }
        }
    }

    private static String name(ByteBuffer r, int context) {
        byte[] n = new byte[r.getShort(context + 6)];
        r.get(context + r.getShort(context + 4), n);
        return new String(n, StandardCharsets.US_ASCII);
    }

    static ByteBuffer validateNegotiate(long messageId, long sessionId, int treeId, int capabilities, int... dialects) {
        ByteBuffer in = ByteBuffer.allocate(24 + 2 * dialects.length).order(ByteOrder.LITTLE_ENDIAN);
        in.putInt(capabilities).put(CLIENT_GUID).putShort((short) 1).putShort((short) dialects.length);
        for (int d : dialects) {
            in.putShort((short) d);
        }
        ByteBuffer b = ByteBuffer.allocate(56 + in.capacity()).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 57).putShort((short) 0).putInt(IoctlCommand.FSCTL_VALIDATE_NEGOTIATE_INFO).putLong(-1)
                .putLong(-1).putInt(64 + 56).putInt(in.capacity()).putInt(0).putInt(0).putInt(0).putInt(24).putInt(1)
                .putInt(0).put(in.array());
        return RequestBytes.request(Smb2.IOCTL, 1, messageId, sessionId, treeId, 0, b.array());
    }

    @Test
    void validateNegotiateInfoAnswersTheServersValues() {
        // 3.3.5.15.12: the client's NEGOTIATE values match; the server's Capabilities, Guid, SecurityMode, Dialect
        Session s = loggedOn();
        int tree = deliver(treeConnect(1, s.id(), "\\\\host\\IPC$")).getInt(36);
        ByteBuffer r = deliver(validateNegotiate(2, s.id(), tree, 0x7F, 0x0302));
        assertEquals(NtStatus.SUCCESS, r.getInt(8));
        int out = r.getInt(64 + 32);
        assertEquals(24, r.getInt(64 + 36), "OutputCount");
        assertEquals(Smb2.GLOBAL_CAP_LARGE_MTU, r.getInt(out));
        byte[] guid = new byte[16];
        r.get(out + 4, guid);
        assertArrayEquals(connection.server().serverGuid(), guid);
        assertEquals(Smb2.NEGOTIATE_SIGNING_ENABLED, r.getShort(out + 20));
        assertEquals(0x0302, r.getShort(out + 22));
    }

    @Test
    void validateNegotiateInfoUnder311ClosesTheConnection() {
        // 3.3.5.15.12: "If Connection.Dialect is 3.1.1, the server MUST terminate the transport connection"
        deliver(negotiate(0, true, 0x0302, 0x0311));
        Session s = connection.newSession();
        s.loggedOn("alice", false);
        int tree = deliver(treeConnect(1, s.id(), "\\\\host\\IPC$")).getInt(36);
        assertEquals(null, deliver(validateNegotiate(2, s.id(), tree, 0x7F, 0x0302, 0x0311)));
        assertTrue(transport.closed.isDone());
    }

    @Test
    void validateNegotiateInfoThatDiffersClosesTheConnection() {
        Session s = loggedOn();
        int tree = deliver(treeConnect(1, s.id(), "\\\\host\\IPC$")).getInt(36);
        assertEquals(null, deliver(validateNegotiate(2, s.id(), tree, 0x7F, 0x0300, 0x0302)));
        assertTrue(transport.closed.isDone());
    }
}
