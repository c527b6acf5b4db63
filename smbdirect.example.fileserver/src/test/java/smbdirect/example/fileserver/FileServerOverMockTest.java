package smbdirect.example.fileserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import smbdirect.example.fileserver.client.Response;
import smbdirect.example.fileserver.client.Smb2;
import smbdirect.example.fileserver.client.Smb2TestClient;
import smbdirect.example.fileserver.client.Smb2TestClient.Logon;
import smbdirect.example.fileserver.client.Smb2TestClient.Negotiated;
import smbdirect.example.fileserver.client.Smb3Signing;
import smbdirect.example.fileserver.client.Spnego;
import smbdirect.example.fileserver.client.Status;

/**
 * The file server end to end over the mock fabric, driven by the test client as Linux cifs drives
 * it: NEGOTIATE of both dialects, logon, tree connect, and the commands a mount uses.
 */
class FileServerOverMockTest extends ServedShareTest {

    private static void noProblems(Smb2TestClient c) {
        assertEquals(List.of(), c.problems(), "what was wrong with the server's responses");
    }

    // ---------------------------------------------------------------- NEGOTIATE, [MS-SMB2] 3.3.5.3.1, 3.3.5.4

    @Test
    void negotiate311AnswersWithThePreauthIntegrityContextSha512() throws Exception {
        Smb2TestClient c = fixture.client();
        Negotiated n = c.negotiate(new int[] {Smb2.DIALECT_311}, Smb2.SIGNING_ENABLED);
        assertEquals(Status.SUCCESS, n.status(), n.response().describe());
        assertEquals(Smb2.DIALECT_311, n.dialect());
        Smb2TestClient.Context preauth = n.context(Smb2.PREAUTH_INTEGRITY_CAPABILITIES);
        assertNotNull(preauth, "2.2.4: a 3.1.1 response carries SMB2_PREAUTH_INTEGRITY_CAPABILITIES; contexts: "
                + n.contexts().stream().map(x -> x.type()).toList());
        ByteBuffer p = Smb2.le(preauth.data());
        assertEquals(1, p.getShort(0), "HashAlgorithmCount: exactly one in a response (2.2.3.1.1)");
        int saltLength = p.getShort(2) & 0xFFFF;
        assertEquals(Smb2.HASH_SHA512, p.getShort(4), "the hash algorithm: SHA-512");
        assertEquals(6 + saltLength, preauth.data().length, "DataLength covers the salt");
        assertEquals(null, n.context(Smb2.ENCRYPTION_CAPABILITIES), "no cipher was offered, none is chosen");
        assertTrue(n.maxReadSize() >= 65536 && n.maxWriteSize() >= 65536 && n.maxTransactSize() >= 65536,
                "MaxReadSize " + n.maxReadSize() + ", MaxWriteSize " + n.maxWriteSize());
        assertTrue(n.securityBuffer().length > 0, "the NEGOTIATE response offers a security mechanism (GSS token)");
        long now = Smb2.filetime(System.currentTimeMillis());
        assertTrue(Math.abs(n.response().i64(40) - now) < 600_000_000L, "SystemTime within a minute of now: "
                + n.response().i64(40));
        noProblems(c);
    }

    @Test
    void negotiate302AloneAnswers302WithoutNegotiateContexts() throws Exception {
        Smb2TestClient c = fixture.client();
        Negotiated n = c.negotiate(new int[] {Smb2.DIALECT_302}, Smb2.SIGNING_ENABLED);
        assertEquals(Status.SUCCESS, n.status(), n.response().describe());
        assertEquals(Smb2.DIALECT_302, n.dialect());
        assertEquals(0, n.response().u16(6), "NegotiateContextCount of a dialect before 3.1.1");
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.4: the highest dialect both sides know. */
    @Test
    void negotiateOfferingEveryDialectChoosesTheHighestCommonOne311() throws Exception {
        Smb2TestClient c = fixture.client();
        Negotiated n = c.negotiate(new int[] {Smb2.DIALECT_202, Smb2.DIALECT_210, Smb2.DIALECT_300,
            Smb2.DIALECT_302, Smb2.DIALECT_311}, Smb2.SIGNING_ENABLED);
        assertEquals(Status.SUCCESS, n.status());
        assertEquals(Smb2.DIALECT_311, n.dialect());
        noProblems(c);
    }

    @Test
    void aClientOfferingOnly202IsRefusedWithNotSupported() throws Exception {
        Smb2TestClient c = fixture.client();
        Negotiated n = c.negotiate(new int[] {Smb2.DIALECT_202}, Smb2.SIGNING_ENABLED);
        assertEquals(Status.name(Status.NOT_SUPPORTED), Status.name(n.status()),
                "3.3.5.4: no common dialect");
        noProblems(c);
    }

    /** An SMB1 NEGOTIATE ([MS-CIFS] 2.2.4.52.1) offering {@code dialects}. */
    private static byte[] smb1Negotiate(String... dialects) {
        java.io.ByteArrayOutputStream names = new java.io.ByteArrayOutputStream();
        for (String d : dialects) {
            names.write(0x02);
            names.writeBytes(d.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            names.write(0);
        }
        ByteBuffer b = Smb2.le(32 + 3 + names.size());
        b.putInt(0x424D53FF).put((byte) 0x72).putInt(0).put((byte) 0x18).putShort((short) 0xC853).put(new byte[20])
                .put((byte) 0).putShort((short) names.size()).put(names.toByteArray());
        return b.array();
    }

    @Test
    void anSmb1NegotiateOfferingSmb2WildcardIsAnswered02FFAndTheSmb2NegotiateFollows() throws Exception {
        Smb2TestClient c = fixture.client();
        long id = c.takeMessageIds(1);
        Smb2TestClient.Outcome o = c.sendRaw(smb1Negotiate("NT LM 0.12", "SMB 2.002", "SMB 2.???"), id,
                Smb2.NEGOTIATE);
        assertNotNull(o.response(), "answered: " + o.closed());
        assertEquals(Status.SUCCESS, o.response().status());
        assertEquals(0x02FF, o.response().u16(4), "3.3.5.3.1: DialectRevision 0x02FF");
        Negotiated n = c.negotiate();
        assertEquals(Status.SUCCESS, n.status(), "the SMB2 NEGOTIATE with MessageId 1");
        assertEquals(Smb2.DIALECT_311, n.dialect());
        assertEquals(Status.SUCCESS, c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD).status());
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.3.1: an SMB1 NEGOTIATE without an SMB2 dialect gets no SMB2 answer. */
    @Test
    void anSmb1NegotiateWithoutSmb2ClosesTheConnection() throws Exception {
        Smb2TestClient c = fixture.client();
        Smb2TestClient.Outcome o = c.sendRawUnmatched(smb1Negotiate("NT LM 0.12"));
        assertNull(o.response(), "an SMB1-only client gets no SMB2 answer: " + o.response());
        assertNotNull(o.closed());
    }

    @Test
    void negotiate311WithoutThePreauthContextIsInvalidParameter() throws Exception {
        Smb2TestClient c = fixture.client();
        byte[] body = Smb2.negotiate(new int[] {Smb2.DIALECT_302}, Smb2.SIGNING_ENABLED, 0, new byte[16],
                new byte[32], false);
        Smb2.le(body).putShort(36, (short) Smb2.DIALECT_311); // 3.1.1 offered, no negotiate context
        long id = c.takeMessageIds(1);
        ByteBuffer m = Smb2.le(64 + body.length);
        Smb2.putHeader(m, Smb2.NEGOTIATE, 1, 1, 0, 0, id, 0, 0);
        m.put(body);
        Smb2TestClient.Outcome o = c.sendRaw(m.array(), id, Smb2.NEGOTIATE);
        assertNotNull(o.response(), "an answer, not a dropped connection: " + o.closed());
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(o.response().status()),
                "3.3.5.4: 3.1.1 without SMB2_PREAUTH_INTEGRITY_CAPABILITIES");
    }

    // ------------------------------------------------------- SESSION_SETUP, [MS-SMB2] 3.3.5.5, [MS-NLMP] 3.2.5

    @Test
    void theAccountLogsOnWith311AndTheFinalResponseIsSignedWithTheKeyBothSidesDerived() throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate(new int[] {Smb2.DIALECT_311}, Smb2.SIGNING_ENABLED).status());
        Logon l = c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD);
        assertEquals(Status.name(Status.MORE_PROCESSING_REQUIRED), Status.name(l.responses().get(0).status()));
        assertEquals(Status.name(Status.SUCCESS), Status.name(l.status()));
        assertNotEquals(0L, l.sessionId());
        assertEquals(0, l.sessionFlags() & (Smb2.SESSION_FLAG_IS_GUEST | Smb2.SESSION_FLAG_IS_NULL),
                "the account, not a guest");
        Response last = l.last();
        assertTrue((last.flags() & Smb2.FLAGS_SIGNED) != 0,
                "3.3.5.5.3: the final SESSION_SETUP response of a 3.1.1 session is signed");
        assertArrayEquals(Smb3Signing.signature(l.signingKey(), last.bytes()), last.signature(),
                "the signature is AES-CMAC with the key from the NTLMv2 session key and the pre-auth hash");
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.5.3, 3.1.4.2: 3.0.2 logon; the 3.0.2 signing key. */
    /**
     * [MS-SMB2] 3.3.5.4, [RFC 4178] 4.2.1: the NEGOTIATE response's security buffer is a SPNEGO
     * NegTokenInit whose mechTypes offer NTLMSSP; Linux cifs reads it to choose raw NTLMSSP
     * (sec=ntlmssp is refused when NTLMSSP is not offered).
     */
    @Test
    void theNegotiateResponseOffersNtlmsspInSpnegoAsCifsLooksForIt() throws Exception {
        Smb2TestClient c = fixture.client();
        Negotiated n = c.negotiate();
        List<byte[]> mechs = Spnego.mechTypes(n.securityBuffer());
        assertTrue(mechs.stream().anyMatch(m -> java.util.Arrays.equals(Spnego.NTLMSSP_OID, m)),
                "mechTypes: " + mechs.stream().map(java.util.HexFormat.of()::formatHex).toList());
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.5.3, [RFC 4178] 4.2.2: NTLMSSP wrapped in SPNEGO, as Windows logs on. */
    @Test
    void theAccountLogsOnThroughSpnegoAndTheLastTokenAcceptsCompletion() throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        Logon l = c.logonSpnego(FileServerFixture.USER, FileServerFixture.PASSWORD);
        assertEquals(Status.name(Status.SUCCESS), Status.name(l.status()));
        Response first = l.responses().get(0);
        assertEquals(1, Spnego.negState(first.slice(first.u16(4), first.u16(6))), "negState accept-incomplete");
        Response last = l.last();
        assertEquals(0, Spnego.negState(last.slice(last.u16(4), last.u16(6))), "negState accept-completed");
        assertArrayEquals(Smb3Signing.signature(l.signingKey(), last.bytes()), last.signature());
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        Smb2TestClient wrong = fixture.client();
        assertEquals(Status.SUCCESS, wrong.negotiate().status());
        assertEquals(Status.name(Status.LOGON_FAILURE),
                Status.name(wrong.logonSpnego(FileServerFixture.USER, "not-it").status()));
        noProblems(c);
        noProblems(wrong);
    }

    @Test
    void theAccountLogsOnWith302AndAnySignatureMatchesTheKey() throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate(new int[] {Smb2.DIALECT_302}, Smb2.SIGNING_ENABLED).status());
        Logon l = c.logon(FileServerFixture.USER.toUpperCase(), FileServerFixture.PASSWORD);
        assertEquals(Status.name(Status.SUCCESS), Status.name(l.status()), "user names compare without case");
        Response last = l.last();
        if ((last.flags() & Smb2.FLAGS_SIGNED) != 0) {
            assertArrayEquals(Smb3Signing.signature(l.signingKey(), last.bytes()), last.signature());
        }
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        noProblems(c);
    }

    @Test
    void aWrongPasswordIsRefusedWithLogonFailureAndTheSessionIsUnusable() throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        Logon l = c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD + "x");
        assertEquals(Status.name(Status.LOGON_FAILURE), Status.name(l.status()));
        c.sessionId(l.sessionId());
        Response r = c.treeConnect(fixture.sharePath());
        assertEquals(Status.name(Status.USER_SESSION_DELETED), Status.name(r.status()),
                "3.3.5.2.9: the refused session is gone");
        Logon again = c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD);
        assertEquals(Status.name(Status.SUCCESS), Status.name(again.status()), "the connection goes on");
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.5.3, [MS-NLMP] 3.2.5.1.2: no guest, no anonymous. */
    @Test
    void withGuestOffAnUnknownUserAndAnAnonymousLogonAreRefused() throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        assertEquals(Status.name(Status.LOGON_FAILURE), Status.name(c.logon("mallory", "guess").status()));
        Logon anonymous = c.logonAnonymous();
        assertNotEquals(Status.SUCCESS, anonymous.status(), "anonymous with guest off");
        noProblems(c);
    }

    @Test
    void withGuestOnAnUnknownUserAndAnAnonymousLogonGetAGuestSessionThatReadsTheShare() throws Exception {
        fixture.close();
        fixture = FileServerFixture.start(FileServerFixture.settings(shareDir, false, FileServerFixture.USER,
                FileServerFixture.PASSWORD, true));
        Files.write(shareDir.resolve("hello.txt"), FileData.pattern(100, 1));
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        Logon l = c.logon("mallory", "guess");
        assertEquals(Status.name(Status.SUCCESS), Status.name(l.status()));
        assertTrue((l.sessionFlags() & Smb2.SESSION_FLAG_IS_GUEST) != 0, "SMB2_SESSION_FLAG_IS_GUEST");
        assertEquals(0, l.last().flags() & Smb2.FLAGS_SIGNED, "a guest session is not signed (3.3.5.5.3)");
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        byte[] f = c.openFile("hello.txt", Smb2.FILE_OPEN);
        assertArrayEquals(FileData.pattern(100, 1), Smb2TestClient.readData(c.readInline(f, 0, 100)));

        Smb2TestClient a = fixture.client();
        assertEquals(Status.SUCCESS, a.negotiate().status());
        Logon anonymous = a.logonAnonymous();
        assertEquals(Status.name(Status.SUCCESS), Status.name(anonymous.status()));
        assertTrue((anonymous.sessionFlags() & (Smb2.SESSION_FLAG_IS_GUEST | Smb2.SESSION_FLAG_IS_NULL)) != 0,
                "an anonymous logon is a guest or null session: flags " + anonymous.sessionFlags());
        noProblems(c);
        noProblems(a);
    }

    /** [MS-SMB2] 3.3.5.5.3: SMB2_SESSION_FLAG_IS_GUEST when there is no account. */
    @Test
    void aServerWithoutAnAccountTakesEveryoneAsGuest() throws Exception {
        fixture.close();
        fixture = FileServerFixture.start(FileServerFixture.settings(shareDir, false, null, null, true));
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        Logon l = c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD);
        assertEquals(Status.name(Status.SUCCESS), Status.name(l.status()));
        assertTrue((l.sessionFlags() & Smb2.SESSION_FLAG_IS_GUEST) != 0, "no account: a guest");
        noProblems(c);
    }

    /** [MS-SMB2] 2.2.5 SecurityMode SMB2_NEGOTIATE_SIGNING_REQUIRED, 3.3.5.5: this server does not sign sessions. */
    @Test
    void aClientThatRequiresSigningIsRefusedWithAccessDeniedAndALogLineSayingWhy() throws Exception {
        Smb2TestClient c = fixture.client();
        Negotiated n = c.negotiate(new int[] {Smb2.DIALECT_302, Smb2.DIALECT_311},
                Smb2.SIGNING_ENABLED | Smb2.SIGNING_REQUIRED);
        assertEquals(Status.SUCCESS, n.status());
        assertEquals(0, n.securityMode() & Smb2.SIGNING_REQUIRED, "the server does not require signing");
        try (FileData.LogCapture log = new FileData.LogCapture()) {
            Logon l = c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD,
                    Smb2.SIGNING_ENABLED | Smb2.SIGNING_REQUIRED);
            assertEquals(Status.name(Status.ACCESS_DENIED), Status.name(l.status()),
                    "a client that requires signing gets no session from a server that does not sign");
            FileServerFixture.await("a log line saying the client requires signing",
                    () -> log.text().contains("requires signing"));
            c.sessionId(l.sessionId());
            assertNotEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        }
        assertEquals(Status.SUCCESS, c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD).status(),
                "the same client without the requirement logs on");
        noProblems(c);
    }

    // ---------------------------------------------------------------- signed requests, [MS-SMB2] 3.3.5.2.4

    @Test
    void aTreeConnectSignedAsCifsSignsItUnder311IsAnsweredWithAValidSignature() throws Exception {
        Smb2TestClient c = fixture.client();
        c.sign(Smb2.TREE_CONNECT);
        assertEquals(Smb2.DIALECT_311, c.negotiate().dialect());
        Logon l = c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD);
        assertEquals(Status.SUCCESS, l.status());
        Response tree = c.treeConnect(fixture.sharePath());
        assertEquals(Status.name(Status.SUCCESS), Status.name(tree.status()));
        assertTrue((tree.flags() & Smb2.FLAGS_SIGNED) != 0, "3.3.4.1.1: the response to a signed request is signed");
        assertArrayEquals(Smb3Signing.signature(l.signingKey(), tree.bytes()), tree.signature());
        c.sign();
        byte[] f = c.openFile("after-signing.txt", Smb2.FILE_CREATE);
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, new byte[8]).status(), "unsigned requests go on");
        noProblems(c);
    }

    private static byte[] signedTreeConnect(Smb2TestClient c, long messageId, byte[] key, String path) {
        Smb2.Body body = Smb2.treeConnect(path);
        ByteBuffer m = Smb2.le(64 + body.bytes().length);
        Smb2.putHeader(m, Smb2.TREE_CONNECT, 1, 1, Smb2.FLAGS_SIGNED, 0, messageId, 0, c.sessionId());
        m.put(body.bytes());
        m.put(48, key == null ? FileData.pattern(16, 3) : Smb3Signing.signature(key, m.array()));
        return m.array();
    }

    @Test
    void aRequestWithABadSignatureIsRefusedWithAccessDenied() throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        Logon l = c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD);
        long id = c.takeMessageIds(1);
        byte[] m = signedTreeConnect(c, id, l.signingKey(), fixture.sharePath());
        m[60] ^= 0x01;
        Smb2TestClient.Outcome o = c.sendRaw(m, id, Smb2.TREE_CONNECT);
        assertNotNull(o.response(), "answered, not dropped: " + o.closed());
        assertEquals(Status.name(Status.ACCESS_DENIED), Status.name(o.response().status()),
                "3.3.5.2.4: a signature that does not verify");
        long good = c.takeMessageIds(1);
        Smb2TestClient.Outcome ok = c.sendRaw(signedTreeConnect(c, good, l.signingKey(), fixture.sharePath()), good,
                Smb2.TREE_CONNECT);
        assertEquals(Status.name(Status.SUCCESS), Status.name(ok.response().status()), "the right signature");
    }

    /** [MS-SMB2] 3.3.5.2.4: a signed request of a session without a signing key. */
    @Test
    void aSignedRequestInAGuestSessionIsRefusedWithAccessDenied() throws Exception {
        fixture.close();
        fixture = FileServerFixture.start(FileServerFixture.settings(shareDir, false, FileServerFixture.USER,
                FileServerFixture.PASSWORD, true));
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        assertEquals(Status.SUCCESS, c.logon("visitor", "x").status());
        long id = c.takeMessageIds(1);
        Smb2TestClient.Outcome o = c.sendRaw(signedTreeConnect(c, id, null, fixture.sharePath()), id,
                Smb2.TREE_CONNECT);
        assertNotNull(o.response(), "answered, not dropped: " + o.closed());
        assertEquals(Status.name(Status.ACCESS_DENIED), Status.name(o.response().status()),
                "a guest session has no key to verify with");
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status(), "unsigned, it connects");
    }

    // ---------------------------------------------------------------- TREE_CONNECT, [MS-SMB2] 3.3.5.7

    @Test
    void treeConnectToTheShareIsADiskToIpcIsAPipeAndAnUnknownNameIsBadNetworkName() throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        assertEquals(Status.SUCCESS, c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD).status());
        Response share = c.treeConnect(fixture.path(FileServerFixture.SHARE.toUpperCase()));
        assertEquals(Status.name(Status.SUCCESS), Status.name(share.status()), "share names compare without case");
        assertEquals(Smb2.SHARE_TYPE_DISK, share.u8(2));
        assertNotEquals(0, share.i32(12), "MaximalAccess");
        int shareTree = c.treeId();
        Response ipc = c.treeConnect(fixture.path("IPC$"));
        assertEquals(Status.name(Status.SUCCESS), Status.name(ipc.status()));
        assertEquals(Smb2.SHARE_TYPE_PIPE, ipc.u8(2));
        assertNotEquals(shareTree, c.treeId(), "each tree connect has its own TreeId");
        Response unknown = c.treeConnect(fixture.path("nosuchshare"));
        assertEquals(Status.name(Status.BAD_NETWORK_NAME), Status.name(unknown.status()));
        noProblems(c);
    }

    @Test
    void requestsOutsideASessionOrTreeAreRefusedAndTheConnectionGoesOn() throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate().status());
        assertEquals(Status.name(Status.USER_SESSION_DELETED), Status.name(c.treeConnect(fixture.sharePath()).status()),
                "3.3.5.2.9: no session yet");
        assertEquals(Status.SUCCESS, c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD).status());
        c.treeId(0x7777);
        assertEquals(Status.name(Status.NETWORK_NAME_DELETED),
                Status.name(c.create("x", Smb2.READ_WRITE, 0, Smb2.FILE_OPEN_IF, 0).status()),
                "3.3.5.2.11: no such tree");
        assertEquals(Status.SUCCESS, c.echo().status());
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.8 TREE_DISCONNECT, 3.3.5.6 LOGOFF, 3.3.5.2.11, 3.3.5.2.9. */
    @Test
    void treeDisconnectEndsTheTreeAndLogoffTheSession() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("a.txt", Smb2.FILE_OVERWRITE_IF);
        assertEquals(Status.SUCCESS, c.treeDisconnect().status());
        assertEquals(Status.name(Status.NETWORK_NAME_DELETED),
                Status.name(c.create("b.txt", Smb2.READ_WRITE, 0, Smb2.FILE_OPEN_IF, 0).status()));
        assertNotEquals(Status.SUCCESS, c.writeInline(f, 0, new byte[10]).status(),
                "the tree's opens closed with it");
        assertEquals(Status.SUCCESS, c.logoff().status());
        assertEquals(Status.name(Status.USER_SESSION_DELETED),
                Status.name(c.treeConnect(fixture.sharePath()).status()));
        assertEquals(Status.SUCCESS, c.echo().status(), "the connection goes on");
        noProblems(c);
    }

    // ---------------------------------------------------------------- the commands a mount uses

    /**
     * [MS-SMB2] 3.3.5.9 CREATE dispositions and CreateAction, 3.3.5.13 WRITE, 3.3.5.12 READ, 3.3.5.10
     * CLOSE with SMB2_CLOSE_FLAG_POSTQUERY_ATTRIB.
     */
    @Test
    void createWriteReadInlineAndCloseReportTheFile() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Smb2TestClient.Created created = c.create("new.bin", Smb2.READ_WRITE, Smb2.FILE_ATTRIBUTE_NORMAL,
                Smb2.FILE_CREATE, Smb2.FILE_NON_DIRECTORY_FILE);
        assertEquals(Status.SUCCESS, created.status());
        assertEquals(Smb2.FILE_CREATED, created.createAction());
        assertEquals(0, created.endOfFile());
        byte[] data = FileData.pattern(3000, 7);
        Response w = c.writeInline(created.fileId(), 10, data);
        assertEquals(Status.SUCCESS, w.status());
        assertEquals(3000, w.i32(4), "Count");
        Response r = c.readInline(created.fileId(), 10, 3000);
        assertEquals(Status.SUCCESS, r.status());
        assertArrayEquals(data, Smb2TestClient.readData(r));
        Response tail = c.readInline(created.fileId(), 3000, 100);
        assertEquals(Status.SUCCESS, tail.status());
        assertEquals(10, tail.i32(4), "a read across the end returns what is there");
        long now = Smb2.filetime(System.currentTimeMillis());
        assertTrue(Math.abs(created.creationTime() - now) < 600_000_000L, "CreationTime of a new file: now");
        byte[] second = c.openFile("new.bin", Smb2.FILE_OPEN);
        Response plainClose = c.close(second);
        assertEquals(Status.SUCCESS, plainClose.status());
        assertArrayEquals(new byte[52], plainClose.slice(64 + 8, 52),
                "3.3.5.10: without SMB2_CLOSE_FLAG_POSTQUERY_ATTRIB the attributes and times are 0");
        Response close = c.closeWithAttributes(created.fileId());
        assertEquals(Status.SUCCESS, close.status());
        assertEquals(Smb2.CLOSE_FLAG_POSTQUERY_ATTRIB, close.u16(2));
        assertEquals(3010, close.i64(48), "EndOfFile after the close");
        byte[] onDisk = Files.readAllBytes(shareDir.resolve("new.bin"));
        assertEquals(3010, onDisk.length);
        assertArrayEquals(data, java.util.Arrays.copyOfRange(onDisk, 10, 3010));
        assertArrayEquals(new byte[10], java.util.Arrays.copyOf(onDisk, 10), "the hole reads as zeros");

        Smb2TestClient.Created again = c.create("new.bin", Smb2.READ_WRITE, 0, Smb2.FILE_CREATE, 0);
        assertEquals(Status.name(Status.OBJECT_NAME_COLLISION), Status.name(again.status()));
        Smb2TestClient.Created open = c.create("new.bin", Smb2.READ_WRITE, 0, Smb2.FILE_OPEN, 0);
        assertEquals(Smb2.FILE_OPENED, open.createAction());
        assertEquals(3010, open.endOfFile());
        Smb2TestClient.Created over = c.create("new.bin", Smb2.READ_WRITE, 0, Smb2.FILE_OVERWRITE_IF, 0);
        assertEquals(Smb2.FILE_OVERWRITTEN, over.createAction());
        assertEquals(0, over.endOfFile());
        Smb2TestClient.Created missing = c.create("nothere.bin", Smb2.READ_WRITE, 0, Smb2.FILE_OPEN, 0);
        assertEquals(Status.name(Status.OBJECT_NAME_NOT_FOUND), Status.name(missing.status()));
        Smb2TestClient.Created missingDir = c.create("nodir\\x.bin", Smb2.READ_WRITE, 0, Smb2.FILE_OPEN_IF, 0);
        assertEquals(Status.name(Status.OBJECT_PATH_NOT_FOUND), Status.name(missingDir.status()));
        noProblems(c);
    }

    @Test
    void readAtOrBeyondTheEndOfFileAnswersEndOfFile() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("empty.bin", Smb2.FILE_OVERWRITE_IF);
        assertEquals(Status.name(Status.END_OF_FILE), Status.name(c.readInline(f, 0, 10).status()),
                "3.3.5.12: nothing to read at the end");
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, new byte[0]).status(), "a 0-byte write");
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, FileData.pattern(5, 3)).status());
        assertEquals(Status.name(Status.END_OF_FILE), Status.name(c.readInline(f, 100, 10).status()));
        Response zero = c.readInline(f, 0, 0);
        assertEquals(Status.SUCCESS, zero.status(), "a 0-byte read within the file");
        assertEquals(0, zero.i32(4));
        noProblems(c);
    }

    @Test
    void accessRightsAndTheKindOfOpenAreCheckedForEachCommand() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.write(shareDir.resolve("ro.txt"), FileData.pattern(50, 1));
        Smb2TestClient.Created readOnly = c.create("ro.txt", Smb2.READ_ONLY, 0, Smb2.FILE_OPEN, 0);
        assertEquals(Status.SUCCESS, readOnly.status());
        assertEquals(Status.name(Status.ACCESS_DENIED),
                Status.name(c.writeInline(readOnly.fileId(), 0, new byte[1]).status()), "3.3.5.13: no FILE_WRITE_DATA");
        Smb2TestClient.Created attributesOnly = c.create("ro.txt", Smb2.FILE_READ_ATTRIBUTES, 0, Smb2.FILE_OPEN, 0);
        assertEquals(Status.SUCCESS, attributesOnly.status());
        assertEquals(Status.name(Status.ACCESS_DENIED),
                Status.name(c.readInline(attributesOnly.fileId(), 0, 10).status()), "3.3.5.12: no FILE_READ_DATA");
        assertEquals(Status.name(Status.END_OF_FILE),
                Status.name(c.call(Smb2.readInline(readOnly.fileId(), 40, 20, 15)).status()),
                "3.3.5.12: fewer bytes than MinimumCount");
        byte[] root = c.openDirectory("", Smb2.FILE_OPEN);
        assertNotEquals(Status.SUCCESS, c.readInline(root, 0, 10).status(), "READ of a directory");
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(c.queryDirectory(readOnly.fileId(),
                Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION, Smb2.RESTART_SCANS, "*", 4096).status()),
                "3.3.5.18: QUERY_DIRECTORY of a file");
        assertEquals(Status.name(Status.ACCESS_DENIED), Status.name(c.flush(readOnly.fileId()).status()),
                "3.3.5.11: FLUSH of a file opened without FILE_WRITE_DATA or FILE_APPEND_DATA");
        assertArrayEquals(FileData.pattern(50, 1), Files.readAllBytes(shareDir.resolve("ro.txt")));
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.10, 3.3.5.12, 3.3.5.13: an unknown FileId is STATUS_FILE_CLOSED. */
    @Test
    void operationsOnAClosedFileIdAnswerFileClosed() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("x.bin", Smb2.FILE_OVERWRITE_IF);
        assertEquals(Status.SUCCESS, c.close(f).status());
        assertEquals(Status.name(Status.FILE_CLOSED), Status.name(c.readInline(f, 0, 10).status()));
        assertEquals(Status.name(Status.FILE_CLOSED), Status.name(c.writeInline(f, 0, new byte[1]).status()));
        assertEquals(Status.name(Status.FILE_CLOSED), Status.name(c.close(f).status()));
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.21.1, [MS-FSCC] 2.4.14 FileEndOfFileInformation. */
    @Test
    void setEndOfFileTruncatesAndExtends() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("t.bin", Smb2.FILE_OVERWRITE_IF);
        byte[] data = FileData.pattern(10_000, 11);
        c.writeAll(f, 0, data, Smb2.CHANNEL_NONE, 1);
        assertEquals(Status.SUCCESS, c.setInfo(f, Smb2.INFO_FILE, Smb2.FILE_END_OF_FILE_INFORMATION,
                Smb2.endOfFileInformation(1000)).status());
        assertEquals(1000, Files.size(shareDir.resolve("t.bin")));
        assertEquals(1000, standardEndOfFile(c, f));
        assertEquals(Status.SUCCESS, c.setInfo(f, Smb2.INFO_FILE, Smb2.FILE_END_OF_FILE_INFORMATION,
                Smb2.endOfFileInformation(5000)).status());
        byte[] back = c.readAll(f, 0, 5000, Smb2.CHANNEL_NONE, 1);
        assertArrayEquals(java.util.Arrays.copyOf(data, 1000), java.util.Arrays.copyOf(back, 1000));
        assertArrayEquals(new byte[4000], java.util.Arrays.copyOfRange(back, 1000, 5000));
        noProblems(c);
    }

    private static long standardEndOfFile(Smb2TestClient c, byte[] f) throws Exception {
        Response q = c.queryInfo(f, Smb2.INFO_FILE, Smb2.FILE_STANDARD_INFORMATION, 24);
        assertEquals(Status.SUCCESS, q.status(), q.describe());
        byte[] info = Smb2TestClient.outputBuffer(q);
        assertEquals(24, info.length, "FileStandardInformation is 24 bytes ([MS-FSCC] 2.4.41)");
        return Smb2.le(info).getLong(8);
    }

    @Test
    void renameMovesTheFileAndRefusesToReplaceUnlessAsked() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.createDirectory(shareDir.resolve("sub"));
        Files.write(shareDir.resolve("taken.txt"), new byte[3]);
        // [MS-FSCC] 2.4.37 / Windows: a rename needs DELETE access on the open, as cifs asks for it
        Smb2TestClient.Created renamed = c.create("old.txt", Smb2.READ_WRITE | Smb2.DELETE, Smb2.FILE_ATTRIBUTE_NORMAL,
                Smb2.FILE_OVERWRITE_IF, Smb2.FILE_NON_DIRECTORY_FILE);
        assertEquals(Status.SUCCESS, renamed.status());
        byte[] f = renamed.fileId();
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, FileData.pattern(64, 5)).status());
        assertEquals(Status.SUCCESS, c.setInfo(f, Smb2.INFO_FILE, Smb2.FILE_RENAME_INFORMATION,
                Smb2.renameInformation("sub\\new.txt", false)).status());
        assertFalse(Files.exists(shareDir.resolve("old.txt")));
        assertArrayEquals(FileData.pattern(64, 5), Files.readAllBytes(shareDir.resolve("sub/new.txt")));
        assertEquals(Status.name(Status.OBJECT_NAME_COLLISION), Status.name(c.setInfo(f, Smb2.INFO_FILE,
                Smb2.FILE_RENAME_INFORMATION, Smb2.renameInformation("taken.txt", false)).status()));
        assertEquals(3, Files.size(shareDir.resolve("taken.txt")), "not replaced");
        assertEquals(Status.SUCCESS, c.setInfo(f, Smb2.INFO_FILE, Smb2.FILE_RENAME_INFORMATION,
                Smb2.renameInformation("taken.txt", true)).status());
        assertEquals(64, Files.size(shareDir.resolve("taken.txt")));
        assertEquals(Status.SUCCESS, c.writeInline(f, 64, new byte[] {1}).status(), "the open follows the file");
        assertEquals(Status.SUCCESS, c.close(f).status());
        assertEquals(65, Files.size(shareDir.resolve("taken.txt")));
        byte[] noDelete = c.openFile("taken.txt", Smb2.FILE_OPEN);
        assertEquals(Status.name(Status.ACCESS_DENIED), Status.name(c.setInfo(noDelete, Smb2.INFO_FILE,
                Smb2.FILE_RENAME_INFORMATION, Smb2.renameInformation("other.txt", false)).status()),
                "an open without DELETE access cannot rename");
        noProblems(c);
    }

    @Test
    void deleteByDispositionAndByDeleteOnCloseRemovesTheFileAtTheClose() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.write(shareDir.resolve("d1.txt"), new byte[1]);
        Files.write(shareDir.resolve("d2.txt"), new byte[1]);
        Smb2TestClient.Created d1 = c.create("d1.txt", Smb2.DELETE | Smb2.FILE_READ_ATTRIBUTES, 0, Smb2.FILE_OPEN, 0);
        assertEquals(Status.SUCCESS, d1.status());
        assertEquals(Status.SUCCESS, c.setInfo(d1.fileId(), Smb2.INFO_FILE, Smb2.FILE_DISPOSITION_INFORMATION,
                Smb2.dispositionInformation(true)).status());
        assertEquals(Status.SUCCESS, c.close(d1.fileId()).status());
        assertFalse(Files.exists(shareDir.resolve("d1.txt")), "[MS-FSCC] 2.4.11: deleted when the last open closes");
        Smb2TestClient.Created d2 = c.create("d2.txt", Smb2.DELETE | Smb2.FILE_READ_ATTRIBUTES, 0, Smb2.FILE_OPEN,
                Smb2.FILE_DELETE_ON_CLOSE);
        assertEquals(Status.SUCCESS, d2.status());
        assertTrue(Files.exists(shareDir.resolve("d2.txt")), "still there while open");
        assertEquals(Status.SUCCESS, c.close(d2.fileId()).status());
        assertFalse(Files.exists(shareDir.resolve("d2.txt")));
        noProblems(c);
    }

    /** [MS-SMB2] 3.3.5.9 FILE_DIRECTORY_FILE / FILE_NON_DIRECTORY_FILE, [MS-FSCC] 2.4.11 FileDispositionInformation. */
    @Test
    void mkdirAndRmdirAndANonEmptyDirectoryStays() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Smb2TestClient.Created dir = c.create("newdir", Smb2.READ_ONLY | Smb2.DELETE, Smb2.FILE_ATTRIBUTE_DIRECTORY,
                Smb2.FILE_CREATE, Smb2.FILE_DIRECTORY_FILE);
        assertEquals(Status.SUCCESS, dir.status());
        assertTrue((dir.fileAttributes() & Smb2.FILE_ATTRIBUTE_DIRECTORY) != 0);
        assertTrue(Files.isDirectory(shareDir.resolve("newdir")));
        byte[] inner = c.openFile("newdir\\inner.txt", Smb2.FILE_CREATE);
        assertEquals(Status.SUCCESS, c.close(inner).status());
        Response notEmpty = c.setInfo(dir.fileId(), Smb2.INFO_FILE, Smb2.FILE_DISPOSITION_INFORMATION,
                Smb2.dispositionInformation(true));
        assertEquals(Status.name(Status.DIRECTORY_NOT_EMPTY), Status.name(notEmpty.status()));
        assertEquals(Status.SUCCESS, c.close(dir.fileId()).status());
        assertTrue(Files.exists(shareDir.resolve("newdir/inner.txt")));
        Files.delete(shareDir.resolve("newdir/inner.txt"));
        Smb2TestClient.Created rmdir = c.create("newdir", Smb2.DELETE | Smb2.FILE_READ_ATTRIBUTES, 0, Smb2.FILE_OPEN,
                Smb2.FILE_DIRECTORY_FILE | Smb2.FILE_DELETE_ON_CLOSE);
        assertEquals(Status.SUCCESS, rmdir.status());
        assertEquals(Status.SUCCESS, c.close(rmdir.fileId()).status());
        assertFalse(Files.exists(shareDir.resolve("newdir")));
        Files.write(shareDir.resolve("plain.txt"), new byte[1]);
        assertEquals(Status.name(Status.NOT_A_DIRECTORY), Status.name(c.create("plain.txt", Smb2.READ_ONLY, 0,
                Smb2.FILE_OPEN, Smb2.FILE_DIRECTORY_FILE).status()));
        Files.createDirectory(shareDir.resolve("adir"));
        assertEquals(Status.name(Status.FILE_IS_A_DIRECTORY), Status.name(c.create("adir", Smb2.READ_WRITE, 0,
                Smb2.FILE_OPEN, Smb2.FILE_NON_DIRECTORY_FILE).status()));
        noProblems(c);
    }

    @Test
    void aDirectoryListingNamesEveryEntryOnceOverSeveralResponses() throws Exception {
        Smb2TestClient c = fixture.mounted();
        java.util.Set<String> expected = new java.util.TreeSet<>();
        for (int i = 0; i < 150; i++) {
            String name = "file-with-a-longish-name-" + i + ".dat";
            Files.write(shareDir.resolve(name), new byte[i]);
            expected.add(name);
        }
        Files.createDirectory(shareDir.resolve("subdir"));
        expected.add("subdir");
        byte[] root = c.openDirectory("", Smb2.FILE_OPEN);
        List<String> names = new java.util.ArrayList<>();
        int flags = Smb2.RESTART_SCANS;
        int responses = 0;
        while (true) {
            Response r = c.queryDirectory(root, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION, flags, "*", 2048);
            flags = 0;
            if (r.status() == Status.NO_MORE_FILES) {
                break;
            }
            assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()));
            byte[] out = Smb2TestClient.outputBuffer(r);
            assertTrue(out.length <= 2048, "OutputBufferLength " + out.length + " beyond the 2048 asked");
            names.addAll(Smb2TestClient.directoryNames(out, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION));
            assertTrue(++responses < 1000);
        }
        assertTrue(responses > 1, "150 entries do not fit in 2 KiB");
        List<String> real = names.stream().filter(n -> !n.equals(".") && !n.equals("..")).toList();
        assertEquals(real.size(), new java.util.HashSet<>(real).size(), "no entry twice: " + real);
        assertEquals(expected, new java.util.TreeSet<>(real));
        assertEquals(List.of("subdir"), c.list(root, "subd*"), "a pattern");
        assertEquals(Status.name(Status.NO_SUCH_FILE), Status.name(c.queryDirectory(root,
                Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION, Smb2.RESTART_SCANS, "nomatch*", 4096).status()),
                "3.3.5.18: nothing matches on the first call");
        noProblems(c);
    }

    /**
     * [MS-FSCC] 2.4.20 FileInternalInformation, 2.4.17 FileIdBothDirectoryInformation: the
     * IndexNumber (cifs's inode number with serverino) is one per file, the same in every open and
     * in the listing.
     */
    @Test
    void everyFileHasOneIndexNumberInEveryOpenAndInTheListing() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.write(shareDir.resolve("one"), new byte[1]);
        Files.write(shareDir.resolve("two"), new byte[2]);
        long one = indexNumber(c, "one");
        long two = indexNumber(c, "two");
        assertNotEquals(0L, one);
        assertNotEquals(one, two, "two files, two IndexNumbers");
        assertEquals(one, indexNumber(c, "one"), "the same file opened again");
        byte[] root = c.openDirectory("", Smb2.FILE_OPEN);
        Response r = c.queryDirectory(root, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION, Smb2.RESTART_SCANS, "one", 4096);
        assertEquals(Status.SUCCESS, r.status());
        assertEquals(one, Smb2.le(Smb2TestClient.outputBuffer(r)).getLong(96), "FileId of the listing's entry");
        Response single = c.queryDirectory(root, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION,
                Smb2.RESTART_SCANS | Smb2.RETURN_SINGLE_ENTRY, "*", 65536);
        assertEquals(Status.SUCCESS, single.status());
        assertEquals(1, Smb2TestClient.directoryNames(Smb2TestClient.outputBuffer(single),
                Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION).size(), "3.3.5.18: SMB2_RETURN_SINGLE_ENTRY");
        noProblems(c);
    }

    private static long indexNumber(Smb2TestClient c, String name) throws Exception {
        byte[] f = c.openFile(name, Smb2.FILE_OPEN);
        Response r = c.queryInfo(f, Smb2.INFO_FILE, Smb2.FILE_INTERNAL_INFORMATION, 8);
        assertEquals(Status.SUCCESS, r.status());
        assertEquals(Status.SUCCESS, c.close(f).status());
        return Smb2.le(Smb2TestClient.outputBuffer(r)).getLong(0);
    }

    @Test
    void queryInfoAnswersTheClassesCifsAsksWithTheFilesValues() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.write(shareDir.resolve("s.bin"), FileData.pattern(12_345, 2));
        byte[] f = c.openFile("s.bin", Smb2.FILE_OPEN);
        Response all = c.queryInfo(f, Smb2.INFO_FILE, Smb2.FILE_ALL_INFORMATION, 4096);
        assertEquals(Status.name(Status.SUCCESS), Status.name(all.status()));
        ByteBuffer a = Smb2.le(Smb2TestClient.outputBuffer(all));
        // [MS-FSCC] 2.4.2: Basic (40), Standard (24), Internal (8), Ea (4), Access (4), Position (8), Mode (4),
        // Alignment (4), Name
        long lastWrite = a.getLong(16);
        long expectedWrite = Files.getLastModifiedTime(shareDir.resolve("s.bin")).toMillis() * 10_000L
                + 116_444_736_000_000_000L;
        assertTrue(Math.abs(lastWrite - expectedWrite) < 20_000_000L, "LastWriteTime " + lastWrite + " vs the file's "
                + expectedWrite);
        assertEquals(0, a.getInt(32) & Smb2.FILE_ATTRIBUTE_DIRECTORY);
        assertEquals(12_345, a.getLong(48), "EndOfFile");
        assertTrue(a.getLong(40) >= 12_345, "AllocationSize");
        assertEquals(0, a.get(61), "Directory");
        Response basic = c.queryInfo(f, Smb2.INFO_FILE, Smb2.FILE_BASIC_INFORMATION, 40);
        assertEquals(Status.SUCCESS, basic.status());
        assertEquals(40, Smb2TestClient.outputBuffer(basic).length, "[MS-FSCC] 2.4.7");
        Response network = c.queryInfo(f, Smb2.INFO_FILE, Smb2.FILE_NETWORK_OPEN_INFORMATION, 56);
        assertEquals(Status.SUCCESS, network.status());
        assertEquals(12_345, Smb2.le(Smb2TestClient.outputBuffer(network)).getLong(40), "[MS-FSCC] 2.4.29 EndOfFile");
        Response internal = c.queryInfo(f, Smb2.INFO_FILE, Smb2.FILE_INTERNAL_INFORMATION, 8);
        assertEquals(Status.SUCCESS, internal.status());
        assertEquals(12_345, standardEndOfFile(c, f));
        Response tooSmall = c.queryInfo(f, Smb2.INFO_FILE, Smb2.FILE_BASIC_INFORMATION, 8);
        assertEquals(Status.name(Status.INFO_LENGTH_MISMATCH), Status.name(tooSmall.status()),
                "3.3.5.20.1: a fixed-size class in too small a buffer");
        Response badClass = c.queryInfo(f, Smb2.INFO_FILE, 0x7F, 4096);
        assertEquals(Status.name(Status.INVALID_INFO_CLASS), Status.name(badClass.status()));

        byte[] root = c.openDirectory("", Smb2.FILE_OPEN);
        Response dirInfo = c.queryInfo(root, Smb2.INFO_FILE, Smb2.FILE_STANDARD_INFORMATION, 24);
        assertEquals(Status.SUCCESS, dirInfo.status());
        assertEquals(1, Smb2TestClient.outputBuffer(dirInfo)[21], "Directory of the share's root");
        for (int fsClass : new int[] {Smb2.FILE_FS_FULL_SIZE_INFORMATION, Smb2.FILE_FS_SIZE_INFORMATION,
            Smb2.FILE_FS_ATTRIBUTE_INFORMATION, Smb2.FILE_FS_VOLUME_INFORMATION, Smb2.FILE_FS_DEVICE_INFORMATION}) {
            Response fs = c.queryInfo(root, Smb2.INFO_FILESYSTEM, fsClass, 4096);
            assertEquals(Status.name(Status.SUCCESS), Status.name(fs.status()), "FileFs class " + fsClass);
        }
        ByteBuffer full = Smb2.le(Smb2TestClient.outputBuffer(
                c.queryInfo(root, Smb2.INFO_FILESYSTEM, Smb2.FILE_FS_FULL_SIZE_INFORMATION, 32)));
        assertTrue(full.getLong(0) > 0 && full.getInt(24) > 0 && full.getInt(28) > 0,
                "[MS-FSCC] 2.5.4: TotalAllocationUnits, SectorsPerAllocationUnit, BytesPerSector");
        noProblems(c);
    }

    @Test
    void aRelatedCompoundCreateQueryInfoCloseAnswersAllThree() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.write(shareDir.resolve("c.bin"), FileData.pattern(777, 4));
        List<CompletableFuture<Response>> f = c.compound(true,
                Smb2.create("c.bin", Smb2.READ_ONLY, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN, 0),
                Smb2.queryInfo(Smb2.RELATED_FILE_ID, Smb2.INFO_FILE, Smb2.FILE_ALL_INFORMATION, 4096, 0),
                Smb2.close(Smb2.RELATED_FILE_ID, Smb2.CLOSE_FLAG_POSTQUERY_ATTRIB));
        Response create = c.await(f.get(0), "CREATE");
        Response query = c.await(f.get(1), "QUERY_INFO");
        Response close = c.await(f.get(2), "CLOSE");
        assertEquals(Status.SUCCESS, create.status());
        assertEquals(Status.name(Status.SUCCESS), Status.name(query.status()), "3.3.5.2.7.2: the related FileId");
        assertEquals(777, Smb2.le(Smb2TestClient.outputBuffer(query)).getLong(48));
        assertEquals(Status.SUCCESS, close.status());
        assertEquals(777, close.i64(48));
        Response closeAgain = c.close(Smb2TestClient.Created.of(create).fileId());
        assertEquals(Status.name(Status.FILE_CLOSED), Status.name(closeAgain.status()),
                "the compound's CLOSE closed it");
        noProblems(c);
    }

    @Test
    void aRelatedCompoundAfterAFailedCreateFailsTheRestWithTheSameStatus() throws Exception {
        Smb2TestClient c = fixture.mounted();
        List<CompletableFuture<Response>> f = c.compound(true,
                Smb2.create("missing.bin", Smb2.READ_ONLY, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN, 0),
                Smb2.queryInfo(Smb2.RELATED_FILE_ID, Smb2.INFO_FILE, Smb2.FILE_ALL_INFORMATION, 4096, 0),
                Smb2.close(Smb2.RELATED_FILE_ID, 0));
        assertEquals(Status.name(Status.OBJECT_NAME_NOT_FOUND), Status.name(c.await(f.get(0), "CREATE").status()));
        // 3.3.5.2.7.2: a related request after a failed one fails with the same status
        assertEquals(Status.name(Status.OBJECT_NAME_NOT_FOUND), Status.name(c.await(f.get(1), "QUERY_INFO").status()));
        assertEquals(Status.name(Status.OBJECT_NAME_NOT_FOUND), Status.name(c.await(f.get(2), "CLOSE").status()));
        assertEquals(Status.SUCCESS, c.echo().status());
        noProblems(c);
    }

    @Test
    void creditsAreGrantedSoThatTheClientNeverRunsDry() throws Exception {
        Smb2TestClient c = fixture.mounted();
        assertTrue(c.credits() > 1, "after the mount the client holds " + c.credits() + " credits");
        byte[] f = c.openFile("cr.bin", Smb2.FILE_OVERWRITE_IF);
        for (int i = 0; i < 300; i++) {
            assertEquals(Status.SUCCESS, c.writeInline(f, i, new byte[] {(byte) i}).status());
        }
        assertTrue(c.credits() >= 1, "credits left: " + c.credits());
        assertTrue(c.creditsGrantedTotal() >= c.nextMessageId(), "3.3.1.2: every MessageId sent was granted: "
                + c.creditsGrantedTotal() + " granted, " + c.nextMessageId() + " used");
        assertTrue(c.credits() >= 128, "enough credits for an 8 MiB READ or WRITE (128): " + c.credits());
        noProblems(c);
    }

    /**
     * [MS-SMB2] 3.3.1.2: the server never lets the credits the client holds fall to zero, even when it
     * asks for none.
     */
    @Test
    void aClientAskingForNoCreditsIsNeverLeftWithout() throws Exception {
        Smb2TestClient c = fixture.mounted();
        long start = c.credits();
        c.creditRequest(0);
        for (long i = 0; i < start + 50; i++) {
            assertEquals(Status.SUCCESS, c.echo().status());
            assertTrue(c.credits() >= 1, "after " + (i + 1) + " requests asking for no credit the client holds "
                    + c.credits());
        }
        c.creditRequest(-1);
        assertEquals(Status.SUCCESS, c.echo().status());
        assertTrue(c.credits() > 1, "asking again is granted: " + c.credits());
        noProblems(c);
    }

    @Test
    void echoFlushAndValidateNegotiateInfoAnswerAsCifsExpects() throws Exception {
        Smb2TestClient c = fixture.client();
        Negotiated n = c.negotiate(new int[] {Smb2.DIALECT_302}, Smb2.SIGNING_ENABLED);
        assertEquals(Status.SUCCESS, c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD).status());
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        assertEquals(Status.SUCCESS, c.echo().status());
        byte[] f = c.openFile("fl.bin", Smb2.FILE_OVERWRITE_IF);
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, new byte[100]).status());
        assertEquals(Status.SUCCESS, c.flush(f).status());
        // [MS-SMB2] 3.3.5.15.12: what cifs sends after a 3.0.2 tree connect; the answer repeats the NEGOTIATE's
        ByteBuffer in = Smb2.le(24 + 2);
        in.putInt(Smb2TestClient.CLIENT_CAPABILITIES).put(c.clientGuid()).putShort((short) Smb2.SIGNING_ENABLED)
                .putShort((short) 1)
                .putShort((short) Smb2.DIALECT_302);
        Response v = c.ioctl(Smb2.FSCTL_VALIDATE_NEGOTIATE_INFO, Smb2.RELATED_FILE_ID, in.array(), 24);
        assertEquals(Status.name(Status.SUCCESS), Status.name(v.status()));
        int outOffset = v.i32(32); // 2.2.32: OutputOffset, OutputCount
        int outCount = v.i32(36);
        assertEquals(24, outCount, "VALIDATE_NEGOTIATE_INFO response: 24 bytes");
        ByteBuffer out = Smb2.le(v.slice(outOffset, outCount));
        assertEquals(n.capabilities(), out.getInt(0), "Capabilities as in the NEGOTIATE response");
        assertArrayEquals(n.response().slice(64 + 8, 16), v.slice(outOffset + 4, 16), "ServerGuid");
        assertEquals(n.securityMode(), out.getShort(20) & 0xFFFF, "SecurityMode");
        assertEquals(Smb2.DIALECT_302, out.getShort(22) & 0xFFFF, "Dialect");
        noProblems(c);
    }

    /**
     * [MS-SMB2] 3.3.5.15.12: FSCTL_VALIDATE_NEGOTIATE_INFO on a 3.1.1 connection ends it (the pre-auth
     * hash protects 3.1.1).
     */
    @Test
    void validateNegotiateInfoUnder311ClosesTheConnection() throws Exception {
        Smb2TestClient c = fixture.mounted();
        assertEquals(Smb2.DIALECT_311, c.dialect());
        ByteBuffer in = Smb2.le(24 + 2);
        in.putInt(Smb2TestClient.CLIENT_CAPABILITIES).put(c.clientGuid()).putShort((short) Smb2.SIGNING_ENABLED)
                .putShort((short) 1).putShort((short) Smb2.DIALECT_311);
        Smb2TestClient.Outcome o = c.outcome(c.submit(Smb2.ioctl(Smb2.FSCTL_VALIDATE_NEGOTIATE_INFO,
                Smb2.RELATED_FILE_ID, in.array(), 24, Smb2.IOCTL_IS_FSCTL)));
        assertNull(o.response(), "no answer: " + o.response());
        assertNotNull(o.closed());
    }

    @Test
    void unsupportedCommandsAreAnsweredWithTheirStatusAndTheConnectionGoesOn() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] root = c.openDirectory("", Smb2.FILE_OPEN);
        byte[] f = c.openFile("u.bin", Smb2.FILE_OVERWRITE_IF);
        Response notify = c.call(Smb2.changeNotify(root, 0x1, 4096));
        assertEquals(Status.name(Status.NOT_SUPPORTED), Status.name(notify.status()),
                "CHANGE_NOTIFY is not served (no interim STATUS_PENDING either)");
        assertTrue(notify.isErrorBody());
        Response lock = c.call(Smb2.lock(f, 0, 10));
        assertEquals(Status.name(Status.NOT_SUPPORTED), Status.name(lock.status()), "LOCK is not served");
        assertTrue(lock.isErrorBody());
        Response ioctl = c.ioctl(0x0009_9999, f, new byte[8], 64);
        assertTrue(ioctl.status() == Status.NOT_SUPPORTED || ioctl.status() == Status.INVALID_DEVICE_REQUEST,
                "3.3.5.15: an unknown FSCTL: " + ioctl.describe());
        Response resumeKey = c.ioctl(0x0014_0078, f, new byte[0], 32); // FSCTL_SRV_REQUEST_RESUME_KEY
        assertEquals(Status.name(Status.NOT_SUPPORTED), Status.name(resumeKey.status()),
                "no server-side copy: cifs's copy_file_range falls back to READ and WRITE");
        Response notFsctl = c.call(Smb2.ioctl(0x0009_0000, f, new byte[0], 64, 0));
        assertEquals(Status.name(Status.NOT_SUPPORTED), Status.name(notFsctl.status()),
                "3.3.5.15: Flags without SMB2_0_IOCTL_IS_FSCTL");
        Response interfaces = c.ioctl(Smb2.FSCTL_QUERY_NETWORK_INTERFACE_INFO, Smb2.RELATED_FILE_ID, new byte[0],
                65536);
        assertNotEquals(Status.SUCCESS, interfaces.status(), "no multichannel: cifs takes the refusal and goes on");
        assertEquals(Status.SUCCESS, c.echo().status());
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, new byte[4]).status(), "the connection goes on");
        noProblems(c);
    }
}
