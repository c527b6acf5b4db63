package smbdirect.example.fileserver.internal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.example.fileserver.internal.auth.ScriptedNtlmClient.hex;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

import smbdirect.example.fileserver.internal.auth.AuthResult.Outcome;

/** The server's NTLMv2 logon ([MS-NLMP] 3.2.5, 3.3.2) against a client written in the tests, raw and in SPNEGO ([RFC 4178]). */
class NtlmAuthenticatorTest {

    private static final byte[] NTLMSSP_OID = hex("2B06010401823702020A");

    /** One logon, raw NTLMSSP: NEGOTIATE, CHALLENGE, AUTHENTICATE. */
    private static AuthResult logon(NtlmAuthenticator server, ScriptedNtlmClient client) {
        NtlmAuthenticator.Exchange exchange = server.newExchange();
        AuthResult challenge = exchange.step(client.negotiate());
        assertEquals(Outcome.CONTINUE, challenge.outcome(), () -> "first leg: " + challenge.reason());
        client.challenge(challenge.securityBlob());
        return exchange.step(client.authenticate());
    }

    /** One logon in SPNEGO as Windows sends it: NegTokenInit with the NEGOTIATE, NegTokenResp with the AUTHENTICATE. */
    private static AuthResult spnegoLogon(NtlmAuthenticator server, ScriptedNtlmClient client) {
        NtlmAuthenticator.Exchange exchange = server.newExchange();
        AuthResult first = exchange.step(negTokenInit(client.negotiate()));
        assertEquals(Outcome.CONTINUE, first.outcome(), () -> "first leg: " + first.reason());
        byte[] challenge = responseToken(first.securityBlob(), 1);
        client.challenge(challenge);
        return exchange.step(negTokenResp(client.authenticate()));
    }

    @Test
    void rightPasswordAuthenticatesWithTheExchangedSessionKey() {
        // [MS-NLMP] 3.2.5.1.2: NTProofStr checked, ExportedSessionKey = RC4(KeyExchangeKey, EncryptedRandomSessionKey)
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        AuthResult r = logon(new NtlmAuthenticator("alice", "secret", false), client);
        assertEquals(Outcome.AUTHENTICATED, r.outcome(), r.reason());
        assertArrayEquals(client.randomSessionKey, r.sessionKey());
        assertEquals("alice", r.user());
        assertEquals(0, r.securityBlob().length, "raw NTLMSSP: nothing to send with the final response");
    }

    @Test
    void withoutKeyExchangeTheSessionKeyIsTheSessionBaseKey() {
        // [MS-NLMP] 3.4.5.1 KXKEY with NTLMv2 = SessionBaseKey; no KEY_EXCH: ExportedSessionKey = KeyExchangeKey
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.negotiateFlags &= ~0x40000000;
        AuthResult r = logon(new NtlmAuthenticator("alice", "secret", false), client);
        assertEquals(Outcome.AUTHENTICATED, r.outcome(), r.reason());
        assertEquals(0, client.challengeFlags & 0x40000000, "KEY_EXCH answered although not asked");
        assertArrayEquals(client.sessionBaseKey, r.sessionKey());
        assertFalse(Arrays.equals(client.randomSessionKey, r.sessionKey()));
    }

    @Test
    void authenticateShapedAsLinuxCifsSendsItAuthenticates() {
        // cifs hashes the domain it sends: "" by default, our MsvAvNbDomainName with domainauto
        for (String domain : new String[] {"", "SMBDIRECT"}) {
            ScriptedNtlmClient client = new ScriptedNtlmClient();
            client.cifs = true;
            client.domain = domain;
            AuthResult r = logon(new NtlmAuthenticator("alice", "secret", false), client);
            assertEquals(Outcome.AUTHENTICATED, r.outcome(), domain + ": " + r.reason());
            assertArrayEquals(client.randomSessionKey, r.sessionKey());
        }
    }

    @Test
    void userNameIsComparedWithoutRegardToCase() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.user = "ALICE";
        AuthResult r = logon(new NtlmAuthenticator("Alice", "secret", false), client);
        assertEquals(Outcome.AUTHENTICATED, r.outcome(), r.reason());
    }

    @Test
    void anyDomainTheClientSendsIsAcceptedAndSoIsNone() {
        for (String domain : new String[] {"", "WORKGROUP", "Elsewhere"}) {
            ScriptedNtlmClient client = new ScriptedNtlmClient();
            client.domain = domain;
            AuthResult r = logon(new NtlmAuthenticator("alice", "secret", false), client);
            assertEquals(Outcome.AUTHENTICATED, r.outcome(), domain + ": " + r.reason());
        }
    }

    @Test
    void wrongPasswordIsDeniedEvenWhenGuestIsOn() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.password = "Secret";
        AuthResult r = logon(new NtlmAuthenticator("alice", "secret", true), client);
        assertEquals(Outcome.DENIED, r.outcome());
        assertNull(r.sessionKey());
        assertTrue(r.reason().contains("wrong password"), r.reason());
        assertFalse(r.reason().contains("secret") || r.reason().contains("Secret"), "the reason names a password: " + r.reason());
    }

    @Test
    void unknownUserIsGuestWhenGuestIsOnAndDeniedWhenOff() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.user = "mallory";
        AuthResult on = logon(new NtlmAuthenticator("alice", "secret", true), client);
        assertEquals(Outcome.GUEST, on.outcome());
        assertNull(on.sessionKey(), "a guest session has no key");
        assertTrue(on.reason().contains("unknown user"), on.reason());
        ScriptedNtlmClient again = new ScriptedNtlmClient();
        again.user = "mallory";
        AuthResult off = logon(new NtlmAuthenticator("alice", "secret", false), again);
        assertEquals(Outcome.DENIED, off.outcome());
        assertTrue(off.reason().contains("guest logon is off"), off.reason());
    }

    @Test
    void anyNamedUserIsGuestOnAGuestOnlyServer() {
        AuthResult r = logon(new NtlmAuthenticator(null, null, true), new ScriptedNtlmClient());
        assertEquals(Outcome.GUEST, r.outcome(), r.reason());
    }

    @Test
    void anonymousLogonIsGuestWhenGuestIsOnAndDeniedWhenOff() {
        // [MS-NLMP] 3.2.5.1.2: empty user name, empty NtChallengeResponse, LmChallengeResponse Z(1)
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.anonymous = true;
        AuthResult on = logon(new NtlmAuthenticator("alice", "secret", true), client);
        assertEquals(Outcome.GUEST, on.outcome(), on.reason());
        assertNull(on.user());
        assertTrue(on.reason().contains("anonymous"), on.reason());
        ScriptedNtlmClient again = new ScriptedNtlmClient();
        again.anonymous = true;
        AuthResult off = logon(new NtlmAuthenticator("alice", "secret", false), again);
        assertEquals(Outcome.DENIED, off.outcome());
    }

    @Test
    void ntlmV1ResponseIsRefused() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.ntlmV1 = true;
        AuthResult r = logon(new NtlmAuthenticator("alice", "secret", true), client);
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().startsWith("NTLMv1 refused"), r.reason());
    }

    @Test
    void lmOnlyResponseIsRefused() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.lmOnly = true;
        AuthResult r = logon(new NtlmAuthenticator("alice", "secret", true), client);
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().startsWith("NTLMv1 refused"), r.reason());
    }

    @Test
    void rightMicIsAcceptedAndWrongMicDenied() {
        // [MS-NLMP] 3.2.5.1.2: MsvAvFlags 0x2 => MIC = HMAC_MD5(ExportedSessionKey, NEGOTIATE || CHALLENGE || AUTHENTICATE with MIC zeroed)
        ScriptedNtlmClient good = new ScriptedNtlmClient();
        good.mic = true;
        AuthResult ok = logon(new NtlmAuthenticator("alice", "secret", false), good);
        assertEquals(Outcome.AUTHENTICATED, ok.outcome(), ok.reason());
        ScriptedNtlmClient bad = new ScriptedNtlmClient();
        bad.mic = true;
        bad.corruptMic = true;
        AuthResult denied = logon(new NtlmAuthenticator("alice", "secret", true), bad);
        assertEquals(Outcome.DENIED, denied.outcome());
        assertTrue(denied.reason().contains("MIC"), denied.reason());
    }

    @Test
    void micOverAnAlteredNegotiateIsDenied() {
        // the MIC binds the NEGOTIATE_MESSAGE too: the client's record of it differs from what the server saw
        NtlmAuthenticator server = new NtlmAuthenticator("alice", "secret", false);
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.mic = true;
        NtlmAuthenticator.Exchange exchange = server.newExchange();
        byte[] sent = client.negotiate();
        client.negotiateMessage[39] ^= 0x01; // the Version's last byte, which the server does not interpret
        client.challenge(exchange.step(sent).securityBlob());
        AuthResult r = exchange.step(client.authenticate());
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().contains("MIC"), r.reason());
    }

    @Test
    void challengeAnswersTheClientsFlagsAndNamesTheServer() {
        // [MS-NLMP] 2.2.1.2, 3.2.5.1.1
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        NtlmAuthenticator server = new NtlmAuthenticator("alice", "secret", false, "FILES01");
        client.challenge(server.newExchange().step(client.negotiate()).securityBlob());
        int f = client.challengeFlags;
        int expected = 0x00000001 | 0x00000004 | 0x00000010 | 0x00000020 | 0x00000200 | 0x00008000 | 0x00020000 | 0x00080000
                | 0x00800000 | 0x02000000 | 0x20000000 | 0x40000000 | 0x80000000;
        assertEquals(Integer.toHexString(expected), Integer.toHexString(f));
        ByteBuffer m = ByteBuffer.wrap(client.challengeMessage).order(ByteOrder.LITTLE_ENDIAN);
        int nameLen = m.getShort(12);
        int nameOff = m.getInt(16);
        assertEquals("FILES01", new String(client.challengeMessage, nameOff, nameLen, StandardCharsets.UTF_16LE));
        assertEquals(0x0F, client.challengeMessage[55], "Version: NTLMSSP_REVISION_W2K3");
        // TargetInfo: the four names, a timestamp, MsvAvEOL last
        ByteBuffer ti = ByteBuffer.wrap(client.targetInfo).order(ByteOrder.LITTLE_ENDIAN);
        StringBuilder ids = new StringBuilder();
        int p = 0;
        while (true) {
            int id = ti.getShort(p);
            int len = ti.getShort(p + 2);
            ids.append(id).append(' ');
            if (id == 7) {
                long filetime = ti.getLong(p + 4);
                long millis = filetime / 10_000 - 11_644_473_600_000L;
                assertTrue(Math.abs(millis - System.currentTimeMillis()) < 60_000, "MsvAvTimestamp is not now: " + filetime);
            }
            if (id == 2 || id == 1) {
                assertEquals("FILES01", new String(client.targetInfo, p + 4, len, StandardCharsets.UTF_16LE));
            }
            if (id == 3 || id == 4) {
                assertEquals("files01", new String(client.targetInfo, p + 4, len, StandardCharsets.UTF_16LE));
            }
            p += 4 + len;
            if (id == 0) {
                break;
            }
        }
        assertEquals("2 1 4 3 7 0 ", ids.toString());
        assertEquals(client.targetInfo.length, p);
    }

    @Test
    void challengeLeavesOutWhatTheClientDidNotAsk() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.negotiateFlags = 0x00000001 | 0x00000200; // UNICODE, NTLM only
        client.challenge(new NtlmAuthenticator("alice", "secret", false).newExchange().step(client.negotiate()).securityBlob());
        assertEquals(Integer.toHexString(0x00000001 | 0x00000004 | 0x00000200 | 0x00020000 | 0x00800000),
                Integer.toHexString(client.challengeFlags));
        assertEquals(0, client.challengeMessage[55], "no Version when VERSION was not negotiated");
        AuthResult r = new NtlmAuthenticator("alice", "secret", false).newExchange().step(client.authenticate());
        assertEquals(Outcome.DENIED, r.outcome(), "an AUTHENTICATE for another exchange's challenge");
    }

    @Test
    void aClientWithoutUnicodeIsDenied() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.negotiateFlags = 0x00000002 | 0x00000200; // OEM, NTLM
        AuthResult r = new NtlmAuthenticator("alice", "secret", true).newExchange().step(client.negotiate());
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().contains("Unicode"), r.reason());
    }

    @Test
    void everyExchangeHasItsOwnServerChallenge() {
        NtlmAuthenticator server = new NtlmAuthenticator("alice", "secret", false);
        ScriptedNtlmClient a = new ScriptedNtlmClient();
        ScriptedNtlmClient b = new ScriptedNtlmClient();
        a.challenge(server.newExchange().step(a.negotiate()).securityBlob());
        b.challenge(server.newExchange().step(b.negotiate()).securityBlob());
        assertFalse(Arrays.equals(a.serverChallenge, b.serverChallenge));
    }

    @Test
    void authenticateReplayedIntoAnotherExchangeIsDenied() {
        NtlmAuthenticator server = new NtlmAuthenticator("alice", "secret", false);
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        NtlmAuthenticator.Exchange first = server.newExchange();
        client.challenge(first.step(client.negotiate()).securityBlob());
        byte[] auth = client.authenticate();
        assertEquals(Outcome.AUTHENTICATED, first.step(auth).outcome());
        NtlmAuthenticator.Exchange second = server.newExchange();
        second.step(new ScriptedNtlmClient().negotiate());
        assertEquals(Outcome.DENIED, second.step(auth).outcome());
    }

    @Test
    void aLegAfterTheLogonEndedIsDenied() {
        NtlmAuthenticator server = new NtlmAuthenticator("alice", "secret", false);
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        NtlmAuthenticator.Exchange exchange = server.newExchange();
        client.challenge(exchange.step(client.negotiate()).securityBlob());
        byte[] auth = client.authenticate();
        assertEquals(Outcome.AUTHENTICATED, exchange.step(auth).outcome());
        AuthResult again = exchange.step(auth);
        assertEquals(Outcome.DENIED, again.outcome());
        assertTrue(again.reason().contains("already ended"), again.reason());
    }

    @Test
    void authenticateFirstIsDenied() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.challenge(new NtlmAuthenticator("alice", "secret", false).newExchange().step(client.negotiate()).securityBlob());
        AuthResult r = new NtlmAuthenticator("alice", "secret", false).newExchange().step(client.authenticate());
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().contains("expected NEGOTIATE_MESSAGE"), r.reason());
    }

    @Test
    void negotiateWhereAuthenticateIsDueIsDenied() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        NtlmAuthenticator.Exchange exchange = new NtlmAuthenticator("alice", "secret", false).newExchange();
        exchange.step(client.negotiate());
        AuthResult r = exchange.step(client.negotiate());
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().contains("expected AUTHENTICATE_MESSAGE"), r.reason());
    }

    @Test
    void emptyFirstBufferIsAnsweredWithTheMechanismOffer() {
        // [MS-SMB2] 3.3.5.5.3: the server may start the GSS exchange itself
        NtlmAuthenticator server = new NtlmAuthenticator("alice", "secret", false);
        NtlmAuthenticator.Exchange exchange = server.newExchange();
        AuthResult r = exchange.step(new byte[0]);
        assertEquals(Outcome.CONTINUE, r.outcome());
        assertArrayEquals(server.negotiateToken(), r.securityBlob());
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.challenge(exchange.step(client.negotiate()).securityBlob());
        assertEquals(Outcome.AUTHENTICATED, exchange.step(client.authenticate()).outcome());
    }

    // ---- SPNEGO ----

    @Test
    void negotiateTokenIsTheNegTokenInitCifsDecodes() {
        // RFC 4178 4.2.1 in an RFC 2743 3.1 InitialContextToken; cifs's cifs_spnego_negtokeninit.asn1:
        // [APPLICATION 0] { thisMech 1.3.6.1.5.5.2, [0] NegTokenInit2 { [0] mechTypes { 1.3.6.1.4.1.311.2.2.10 } } }
        byte[] expected = hex("601C" + "06062B0601050502" + "A012" + "3010" + "A00E" + "300C" + "060A2B06010401823702020A");
        assertEquals(HexFormat.of().formatHex(expected),
                HexFormat.of().formatHex(new NtlmAuthenticator(null, null, true).negotiateToken()));
    }

    @Test
    void spnegoLogonIsAnsweredInSpnego() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.mic = true;
        AuthResult r = spnegoLogon(new NtlmAuthenticator("alice", "secret", false), client);
        assertEquals(Outcome.AUTHENTICATED, r.outcome(), r.reason());
        assertArrayEquals(client.randomSessionKey, r.sessionKey());
        // NegTokenResp { negState accept-completed }
        assertEquals("a1073005a0030a0100", HexFormat.of().formatHex(r.securityBlob()));
    }

    @Test
    void spnegoMechListMicIsCheckedAndAnswered() {
        // [RFC 4178] 5, [MS-SPNG] 3.3.5.1: the client signs its MechTypeList with NTLM's client keys; the server
        // checks it and answers with the same list signed with its own keys
        byte[] mechTypes = der(0x30, der(0x06, NTLMSSP_OID));
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        NtlmAuthenticator.Exchange exchange = new NtlmAuthenticator("alice", "secret", false).newExchange();
        client.challenge(responseToken(exchange.step(negTokenInit(client.negotiate())).securityBlob(), 1));
        byte[] auth = client.authenticate();
        AuthResult r = exchange.step(der(0xA1, der(0x30, der(0xA2, der(0x04, auth)),
                der(0xA3, der(0x04, client.mechListMic(false, mechTypes))))));
        assertEquals(Outcome.AUTHENTICATED, r.outcome(), r.reason());
        byte[] expected = der(0xA1, der(0x30, der(0xA0, der(0x0A, new byte[] {0})),
                der(0xA3, der(0x04, client.mechListMic(true, mechTypes)))));
        assertEquals(HexFormat.of().formatHex(expected), HexFormat.of().formatHex(r.securityBlob()));
    }

    @Test
    void wrongSpnegoMechListMicIsDenied() {
        byte[] mechTypes = der(0x30, der(0x06, NTLMSSP_OID));
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        NtlmAuthenticator.Exchange exchange = new NtlmAuthenticator("alice", "secret", false).newExchange();
        client.challenge(responseToken(exchange.step(negTokenInit(client.negotiate())).securityBlob(), 1));
        byte[] auth = client.authenticate();
        byte[] mic = client.mechListMic(true, mechTypes); // the server's keys: not what the client must use
        AuthResult r = exchange.step(der(0xA1, der(0x30, der(0xA2, der(0x04, auth)), der(0xA3, der(0x04, mic)))));
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().contains("mechListMIC"), r.reason());
    }

    @Test
    void spnegoGuestIsAnsweredAcceptCompleted() {
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.user = "bob";
        AuthResult r = spnegoLogon(new NtlmAuthenticator("alice", "secret", true), client);
        assertEquals(Outcome.GUEST, r.outcome(), r.reason());
        assertEquals("a1073005a0030a0100", HexFormat.of().formatHex(r.securityBlob()));
    }

    @Test
    void windowsNegTokenInitGetsTheFlagsAWindowsServerAnswered() {
        // The first SESSION_SETUP's security buffer of Microsoft's SMB 3.1.1 key derivation example (a Windows
        // client); the Windows server answered its NEGOTIATE (flags 0xE2088297) with flags 0xE28A8215.
        byte[] windows = hex("604806062B0601050502A03E303CA00E300C060A2B06010401823702020AA22A04284E544C4D5353500001000000"
                + "978208E200000000000000000000000000000000060380250000000F");
        AuthResult r = new NtlmAuthenticator("alice", "secret", false).newExchange().step(windows);
        assertEquals(Outcome.CONTINUE, r.outcome(), r.reason());
        byte[] challenge = responseToken(r.securityBlob(), 1);
        int flags = ByteBuffer.wrap(challenge).order(ByteOrder.LITTLE_ENDIAN).getInt(20);
        assertEquals("e28a8215", Integer.toHexString(flags));
    }

    @Test
    void negTokenInitWithAnotherMechFirstIsAskedForNtlmssp() {
        // RFC 4178 5: the optimistic token is for Kerberos; the acceptor selects NTLMSSP and waits for its token
        byte[] krb5 = hex("2A864886F712010202");
        byte[] init = der(0x60, der(0x06, hex("2B0601050502")), der(0xA0, der(0x30,
                der(0xA0, der(0x30, der(0x06, krb5), der(0x06, NTLMSSP_OID))),
                der(0xA2, der(0x04, hex("6E8201")))))); // not really an AP-REQ: it is not looked at
        NtlmAuthenticator.Exchange exchange = new NtlmAuthenticator("alice", "secret", false).newExchange();
        AuthResult first = exchange.step(init);
        assertEquals(Outcome.CONTINUE, first.outcome(), first.reason());
        assertEquals("a1153013a0030a0101a10c060a2b06010401823702020a", HexFormat.of().formatHex(first.securityBlob()));
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        AuthResult second = exchange.step(negTokenResp(client.negotiate()));
        client.challenge(responseToken(second.securityBlob(), 1));
        AuthResult third = exchange.step(negTokenResp(client.authenticate()));
        assertEquals(Outcome.AUTHENTICATED, third.outcome(), third.reason());
    }

    @Test
    void negTokenInitWithoutNtlmsspIsDenied() {
        byte[] init = der(0x60, der(0x06, hex("2B0601050502")), der(0xA0, der(0x30,
                der(0xA0, der(0x30, der(0x06, hex("2A864886F712010202")))))));
        AuthResult r = new NtlmAuthenticator("alice", "secret", true).newExchange().step(init);
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().contains("NTLMSSP"), r.reason());
    }

    @Test
    void gssTokenOfAnotherMechanismIsDenied() {
        byte[] init = der(0x60, der(0x06, hex("2A864886F712010202")), der(0xA0, der(0x30,
                der(0xA0, der(0x30, der(0x06, NTLMSSP_OID))))));
        AuthResult r = new NtlmAuthenticator("alice", "secret", true).newExchange().step(init);
        assertEquals(Outcome.DENIED, r.outcome());
        assertTrue(r.reason().contains("not SPNEGO"), r.reason());
    }

    // ---- malformed input ----

    @Test
    void everyTruncationOfEveryLegIsDeniedWithAReasonAndNeverThrows() {
        // [MS-NLMP] 2.2.1: fields past the message's end; X.690 8.1.3: lengths past the token's end
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.mic = true;
        NtlmAuthenticator server = new NtlmAuthenticator("alice", "secret", true);
        NtlmAuthenticator.Exchange exchange = server.newExchange();
        byte[] negotiate = client.negotiate();
        client.challenge(exchange.step(negotiate).securityBlob());
        byte[] authenticate = client.authenticate();
        byte[][] firstLegs = {negotiate, negTokenInit(negotiate)};
        byte[][] secondLegs = {authenticate, negTokenResp(authenticate)};
        for (byte[] leg : firstLegs) {
            for (int n = 1; n < leg.length; n++) {
                byte[] cut = Arrays.copyOf(leg, n);
                AuthResult r = server.newExchange().step(cut);
                boolean rawButComplete = leg == negotiate && n >= 16; // NEGOTIATE's fields past its flags are not used
                assertEquals(rawButComplete ? Outcome.CONTINUE : Outcome.DENIED, r.outcome(), "first leg cut to " + n);
                assertReasoned(r, n);
            }
        }
        for (byte[] leg : secondLegs) {
            for (int n = 0; n < leg.length; n++) {
                NtlmAuthenticator.Exchange e = server.newExchange();
                e.step(negotiate);
                AuthResult r = e.step(Arrays.copyOf(leg, n));
                assertEquals(Outcome.DENIED, r.outcome(), "second leg cut to " + n);
                assertReasoned(r, n);
            }
        }
    }

    @Test
    void corruptedBytesNeverEscapeAsExceptions() {
        // every single-bit flip of each leg, raw and in SPNEGO: an answer with a reason, never an internal error
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.mic = true;
        NtlmAuthenticator server = new NtlmAuthenticator("alice", "secret", true);
        NtlmAuthenticator.Exchange exchange = server.newExchange();
        byte[] negotiate = client.negotiate();
        client.challenge(exchange.step(negotiate).securityBlob());
        byte[] authenticate = client.authenticate();
        int authenticated = 0;
        for (byte[] leg : new byte[][] {authenticate, negTokenResp(authenticate)}) {
            for (int bit = 0; bit < leg.length * 8; bit++) {
                byte[] bad = leg.clone();
                bad[bit / 8] ^= (byte) (1 << (bit % 8));
                NtlmAuthenticator.Exchange e = server.newExchange();
                e.step(negotiate);
                AuthResult r = e.step(bad);
                assertNotNull(r);
                if (r.outcome() == Outcome.AUTHENTICATED) {
                    authenticated++;
                } else {
                    assertReasoned(r, bit);
                }
            }
        }
        // the server challenge differs per exchange, so the untouched proof cannot pass: no flip may log on
        assertEquals(0, authenticated);
        Random random = new Random(4178);
        for (int i = 0; i < 2000; i++) {
            byte[] junk = new byte[random.nextInt(200)];
            random.nextBytes(junk);
            if (junk.length > 0 && i % 3 == 0) {
                junk[0] = (byte) (i % 2 == 0 ? 0x60 : 0xA1);
            }
            AuthResult r = server.newExchange().step(junk);
            if (r.outcome() != Outcome.CONTINUE) {
                assertReasoned(r, i);
            }
        }
    }

    @Test
    void nullBufferIsTakenAsEmpty() {
        AuthResult r = new NtlmAuthenticator("alice", "secret", false).newExchange().step(null);
        assertEquals(Outcome.CONTINUE, r.outcome());
    }

    private static void assertReasoned(AuthResult r, int at) {
        if (r.outcome() == Outcome.DENIED) {
            assertNotNull(r.reason(), "no reason at " + at);
            assertFalse(r.reason().startsWith("internal error"), "at " + at + ": " + r.reason());
            assertNull(r.sessionKey());
        }
    }

    // ---- SPNEGO written by hand for the tests ----

    static byte[] negTokenInit(byte[] ntlm) {
        return der(0x60, der(0x06, hex("2B0601050502")), der(0xA0, der(0x30,
                der(0xA0, der(0x30, der(0x06, NTLMSSP_OID))),
                der(0xA2, der(0x04, ntlm)))));
    }

    static byte[] negTokenResp(byte[] ntlm) {
        return der(0xA1, der(0x30, der(0xA2, der(0x04, ntlm))));
    }

    /** The responseToken of a server's NegTokenResp, checking negState and supportedMech. */
    static byte[] responseToken(byte[] resp, int negState) {
        ByteBuffer b = ByteBuffer.wrap(resp);
        int[] pos = {0};
        expectTag(resp, pos, 0xA1);
        expectTag(resp, pos, 0x30);
        expectTag(resp, pos, 0xA0);
        expectTag(resp, pos, 0x0A);
        assertEquals(negState, b.get(pos[0]++));
        expectTag(resp, pos, 0xA1);
        int oidLen = expectTag(resp, pos, 0x06);
        assertArrayEquals(NTLMSSP_OID, Arrays.copyOfRange(resp, pos[0], pos[0] + oidLen));
        pos[0] += oidLen;
        expectTag(resp, pos, 0xA2);
        int len = expectTag(resp, pos, 0x04);
        assertEquals(resp.length, pos[0] + len, "responseToken ends the token");
        return Arrays.copyOfRange(resp, pos[0], pos[0] + len);
    }

    private static int expectTag(byte[] b, int[] pos, int tag) {
        assertEquals(tag, b[pos[0]++] & 0xFF, "tag at " + (pos[0] - 1));
        int len = b[pos[0]++] & 0xFF;
        if (len > 0x80) {
            int n = len & 0x7F;
            len = 0;
            for (int i = 0; i < n; i++) {
                len = len << 8 | (b[pos[0]++] & 0xFF);
            }
        }
        return len;
    }

    static byte[] der(int tag, byte[]... parts) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            content.writeBytes(p);
        }
        int n = content.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        if (n < 0x80) {
            out.write(n);
        } else if (n < 0x100) {
            out.write(0x81);
            out.write(n);
        } else {
            out.write(0x82);
            out.write(n >> 8);
            out.write(n);
        }
        out.writeBytes(content.toByteArray());
        return out.toByteArray();
    }
}
