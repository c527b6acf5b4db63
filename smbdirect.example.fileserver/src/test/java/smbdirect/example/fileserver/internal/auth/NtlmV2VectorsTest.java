package smbdirect.example.fileserver.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static smbdirect.example.fileserver.internal.auth.ScriptedNtlmClient.hex;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import smbdirect.example.fileserver.internal.auth.AuthResult.Outcome;

/**
 * [MS-NLMP] 4.2.4 (NTLMv2 Authentication) with the common values of 4.2.1: user "User", domain
 * "Domain", password "Password", server challenge 0123456789abcdef, client challenge aaaaaaaaaaaaaaaa,
 * time 0, RandomSessionKey 55555555555555555555555555555555, AV pairs MsvAvNbDomainName "Domain",
 * MsvAvNbComputerName "Server".
 */
class NtlmV2VectorsTest {

    private static final byte[] SERVER_CHALLENGE = hex("0123456789abcdef");
    private static final byte[] RANDOM_SESSION_KEY = hex("55555555555555555555555555555555");
    /** temp of 4.2.4.2.2: 0x01 0x01, Z(6), time 0, client challenge, Z(4), the AV pairs, Z(4). */
    private static final byte[] TEMP = hex("0101000000000000" + "0000000000000000" + "aaaaaaaaaaaaaaaa" + "00000000"
            + "02000c0044006f006d00610069006e00" + "01000c00530065007200760065007200" + "00000000" + "00000000");

    private static String h(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Test
    void responseKeyNtIsNtowfv2OfTheExample() {
        // 4.2.4.1.1 NTOWFv2()
        assertEquals("0c868a403bfd7a93a3001ef22ef02e3f", h(Crypto.ntowfv2("Password", "User", "Domain")));
        // only the user is upper-cased ([MS-NLMP] 3.3.2)
        assertEquals("0c868a403bfd7a93a3001ef22ef02e3f", h(Crypto.ntowfv2("Password", "user", "Domain")));
    }

    @Test
    void userNameIsUpperCasedOneCharacterAtATime() {
        assertEquals("STRAßE", Crypto.upper("straße"));
        assertEquals("ÉLODIE", Crypto.upper("élodie"));
    }

    @Test
    void ntProofStrAndSessionBaseKeyOfTheExample() {
        byte[] key = Crypto.ntowfv2("Password", "User", "Domain");
        byte[] proof = Crypto.hmacMd5(key, SERVER_CHALLENGE, TEMP);
        assertEquals("68cd0ab851e51c96aabc927bebef6a1c", h(proof)); // 4.2.4.2.2 NTLMv2 Response
        assertEquals("8de40ccadbc14a82f15cb0ad0de95ca3", h(Crypto.hmacMd5(key, proof))); // 4.2.4.1.2 Session Base Key
    }

    @Test
    void keyExchangeOfTheExample() {
        // 4.2.4.2.3 Encrypted Session Key = RC4(KeyExchangeKey = SessionBaseKey, RandomSessionKey), and back
        byte[] kek = hex("8de40ccadbc14a82f15cb0ad0de95ca3");
        assertEquals("c5dad2544fc9799094ce1ce90bc9d03e", h(Crypto.rc4(kek, RANDOM_SESSION_KEY)));
        assertEquals(h(RANDOM_SESSION_KEY), h(Crypto.rc4(kek, hex("c5dad2544fc9799094ce1ce90bc9d03e"))));
    }

    @Test
    void serverAcceptsTheExampleResponseAndExportsTheRandomSessionKey() {
        // the whole server path on the example's values: the client's NtChallengeResponse is NTProofStr || temp,
        // EncryptedRandomSessionKey c5dad254...; the server must log User on with the RandomSessionKey
        NtlmAuthenticator server = new NtlmAuthenticator("user", "Password", false, "Server",
                challenge -> System.arraycopy(SERVER_CHALLENGE, 0, challenge, 0, 8));
        NtlmAuthenticator.Exchange exchange = server.newExchange();
        ScriptedNtlmClient client = new ScriptedNtlmClient();
        client.negotiateFlags = 0xE2888235; // the 4.2.4 flags (without OEM)
        AuthResult challenge = exchange.step(client.negotiate());
        assertEquals("0123456789abcdef", h(Arrays.copyOfRange(challenge.securityBlob(), 24, 32)));
        byte[] nt = ScriptedNtlmClient.concat(hex("68cd0ab851e51c96aabc927bebef6a1c"), TEMP);
        byte[] auth = authenticate(nt, "Domain", "User", hex("c5dad2544fc9799094ce1ce90bc9d03e"),
                ByteBuffer.wrap(challenge.securityBlob()).order(ByteOrder.LITTLE_ENDIAN).getInt(20));
        AuthResult r = exchange.step(auth);
        assertEquals(Outcome.AUTHENTICATED, r.outcome(), r.reason());
        assertEquals(h(RANDOM_SESSION_KEY), h(r.sessionKey()));
    }

    @Test
    void mechListMicsOfMicrosoftsSmb311Example() {
        // Microsoft's SMB 3.1.1 key derivation example: SessionKey (the NTLM exported session key)
        // 270E1BA896585EEB7AF3472D3B4C75A7, negotiated flags 0xE2888215 (ESS, KEY_EXCH, 128), MechTypeList
        // { NTLMSSP }; the client's final NegTokenResp carries mechListMIC 01000000 63775A9A5FD97F06 00000000,
        // the server's answer 01000000 3B453CDC35241642 00000000 ([MS-NLMP] 3.4.4.2, SeqNum 0)
        byte[] key = hex("270E1BA896585EEB7AF3472D3B4C75A7");
        byte[] mechTypes = hex("300C060A2B06010401823702020A");
        assertEquals("0100000063775a9a5fd97f0600000000", h(NtlmSignature.first(key, 0xE2888215, false, mechTypes)));
        assertEquals("010000003b453cdc3524164200000000", h(NtlmSignature.first(key, 0xE2888215, true, mechTypes)));
    }

    /** An AUTHENTICATE_MESSAGE ([MS-NLMP] 2.2.1.3) with a zero LMv2 response and no MIC. */
    private static byte[] authenticate(byte[] nt, String domain, String user, byte[] encryptedKey, int flags) {
        byte[] lm = new byte[24];
        byte[] dom = ScriptedNtlmClient.unicode(domain);
        byte[] usr = ScriptedNtlmClient.unicode(user);
        byte[] ws = ScriptedNtlmClient.unicode("COMPUTER");
        int header = 72;
        ByteBuffer b = ByteBuffer.allocate(header + lm.length + nt.length + dom.length + usr.length + ws.length + encryptedKey.length)
                .order(ByteOrder.LITTLE_ENDIAN);
        b.put(hex("4e544c4d53535000")).putInt(3);
        int off = header;
        for (int len : new int[] {lm.length, nt.length, dom.length, usr.length, ws.length, encryptedKey.length}) {
            b.putShort((short) len).putShort((short) len).putInt(off);
            off += len;
        }
        b.putInt(flags).put(new byte[8]);
        b.put(lm).put(nt).put(dom).put(usr).put(ws).put(encryptedKey);
        return b.array();
    }
}
