package smbdirect.example.fileserver.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/**
 * The test client's own NTLMv2 and SMB 3 key derivation against the published vectors, so that a
 * logon failure in the file server's tests points at the server.
 */
class Ntlmv2Test {

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    @Test
    void md4OfAbcIsTheRfc1320Value() {
        assertArrayEquals(hex("a448017aaf21d8525fc10ae87aa6729d"),
                Ntlmv2.md4("abc".getBytes(StandardCharsets.US_ASCII)));
    }

    /**
     * [MS-NLMP] 4.2.4: NTLMv2 of User / Domain / Password, server challenge 0123456789abcdef, client
     * challenge aa..., time 0.
     */
    @Test
    void ntlmv2ResponseAndSessionBaseKeyMatchTheMsNlmpExample() {
        byte[] domain = "Domain".getBytes(StandardCharsets.UTF_16LE);
        byte[] server = "Server".getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer ti = Smb2.le(4 + domain.length + 4 + server.length + 4);
        ti.putShort((short) 2).putShort((short) domain.length).put(domain);
        ti.putShort((short) 1).putShort((short) server.length).put(server);
        ti.putInt(0);
        Ntlmv2.Challenge c = new Ntlmv2.Challenge(Ntlmv2.FLAGS & ~Ntlmv2.NEGOTIATE_KEY_EXCH,
                hex("0123456789abcdef"), ti.array());
        Ntlmv2.Authenticate a = Ntlmv2.authenticate(c, "User", "Domain", "Password", hex("aaaaaaaaaaaaaaaa"), 0,
                new byte[16]);
        ByteBuffer t = Smb2.le(a.token());
        int ntLength = t.getShort(20) & 0xFFFF;
        int ntOffset = t.getInt(24);
        byte[] proof = Arrays.copyOfRange(a.token(), ntOffset, ntOffset + 16);
        assertArrayEquals(hex("68cd0ab851e51c96aabc927bebef6a1c"), proof, "NTProofStr");
        assertEquals(16 + 28 + ti.capacity() + 4, ntLength);
        assertArrayEquals(hex("8de40ccadbc14a82f15cb0ad0de95ca3"), a.sessionKey(), "SessionBaseKey");
    }

    @Test
    void withKeyExchangeTheSessionKeyIsTheRandomOneAndTravelsRc4Encrypted() {
        Ntlmv2.Challenge c = new Ntlmv2.Challenge(Ntlmv2.FLAGS, hex("0123456789abcdef"), new byte[4]);
        byte[] random = hex("55555555555555555555555555555555");
        Ntlmv2.Authenticate a = Ntlmv2.authenticate(c, "User", "Domain", "Password", hex("aaaaaaaaaaaaaaaa"), 0,
                random);
        assertArrayEquals(random, a.sessionKey());
        ByteBuffer t = Smb2.le(a.token());
        int len = t.getShort(52) & 0xFFFF;
        int off = t.getInt(56);
        assertEquals(16, len);
        byte[] encrypted = Arrays.copyOfRange(a.token(), off, off + len);
        assertEquals(false, Arrays.equals(random, encrypted));
        assertEquals(Ntlmv2.FLAGS, t.getInt(60));
    }
}
