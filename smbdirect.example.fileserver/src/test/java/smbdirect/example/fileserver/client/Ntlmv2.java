package smbdirect.example.fileserver.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Locale;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.bouncycastle.crypto.digests.MD4Digest;
import org.bouncycastle.crypto.engines.RC4Engine;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The client's side of NTLMv2 ([MS-NLMP] 2.2.1, 3.1.5, 3.3.2) as raw NTLMSSP tokens, the way Linux
 * cifs sends them in SESSION_SETUP: a NEGOTIATE_MESSAGE, then an AUTHENTICATE_MESSAGE with the
 * NTLMv2 response to the server's CHALLENGE_MESSAGE, with or without key exchange; or an anonymous
 * AUTHENTICATE_MESSAGE (3.2.5.1.2). Computes the session key the server must arrive at. Test code.
 * Static, thread-safe.
 */
public final class Ntlmv2 {

    public static final int NEGOTIATE_UNICODE = 0x00000001;
    public static final int REQUEST_TARGET = 0x00000004;
    public static final int NEGOTIATE_SIGN = 0x00000010;
    public static final int NEGOTIATE_NTLM = 0x00000200;
    public static final int NEGOTIATE_ANONYMOUS = 0x00000800;
    public static final int NEGOTIATE_ALWAYS_SIGN = 0x00008000;
    public static final int NEGOTIATE_EXTENDED_SESSIONSECURITY = 0x00080000;
    public static final int NEGOTIATE_TARGET_INFO = 0x00800000;
    public static final int NEGOTIATE_128 = 0x20000000;
    public static final int NEGOTIATE_KEY_EXCH = 0x40000000;
    /** What cifs offers: unicode, target, sign, NTLM, always sign, extended session security, 128, key exchange. */
    public static final int FLAGS = NEGOTIATE_UNICODE | REQUEST_TARGET | NEGOTIATE_SIGN | NEGOTIATE_NTLM
            | NEGOTIATE_ALWAYS_SIGN | NEGOTIATE_EXTENDED_SESSIONSECURITY | NEGOTIATE_TARGET_INFO | NEGOTIATE_128
            | NEGOTIATE_KEY_EXCH;

    static final byte[] SIGNATURE = "NTLMSSP\0".getBytes(StandardCharsets.US_ASCII);

    private Ntlmv2() {
    }

    /** NEGOTIATE_MESSAGE (type 1) with {@link #FLAGS}, no domain or workstation. */
    public static byte[] negotiate() {
        ByteBuffer b = Smb2.le(32);
        b.put(SIGNATURE).putInt(1).putInt(FLAGS).putLong(0).putLong(0);
        return b.array();
    }

    /** What a CHALLENGE_MESSAGE (type 2, [MS-NLMP] 2.2.1.2) carries. */
    public record Challenge(int flags, byte[] serverChallenge, byte[] targetInfo) {

        /** Decodes {@code m}; an {@link AssertionError} saying what is wrong when it is not a well-formed CHALLENGE. */
        public static Challenge of(byte[] m) {
            if (m.length < 48 || !Arrays.equals(SIGNATURE, Arrays.copyOf(m, 8))) {
                throw new AssertionError("not an NTLMSSP message: " + m.length + " bytes");
            }
            ByteBuffer b = Smb2.le(m);
            if (b.getInt(8) != 2) {
                throw new AssertionError("NTLMSSP MessageType " + b.getInt(8) + ", not CHALLENGE (2)");
            }
            int len = b.getShort(40) & 0xFFFF;
            int off = b.getInt(44);
            if (off < 0 || off + len > m.length) {
                throw new AssertionError("CHALLENGE TargetInfoFields (" + len + " at " + off + ") beyond its "
                        + m.length + " bytes");
            }
            return new Challenge(b.getInt(20), Arrays.copyOfRange(m, 24, 32), Arrays.copyOfRange(m, off, off + len));
        }
    }

    /**
     * An AUTHENTICATE_MESSAGE and the session key both sides use from then on
     * ([MS-NLMP] 3.2.5.1.2: the ExportedSessionKey).
     */
    public record Authenticate(byte[] token, byte[] sessionKey) {
    }

    /**
     * AUTHENTICATE_MESSAGE (type 3) with the NTLMv2 response for {@code user} / {@code password}
     * ([MS-NLMP] 3.3.2); with key exchange when the server's CHALLENGE agreed to it, a random
     * session key sent RC4-encrypted with the session base key.
     */
    public static Authenticate authenticate(Challenge c, String user, String domain, String password,
            byte[] clientChallenge, long timestamp, byte[] randomSessionKey) {
        try {
            byte[] ntHash = md4(password.getBytes(StandardCharsets.UTF_16LE));
            byte[] v2Hash = hmacMd5(ntHash,
                    concat(user.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_16LE),
                            domain.getBytes(StandardCharsets.UTF_16LE)));
            ByteBuffer blob = Smb2.le(28 + c.targetInfo().length + 4);
            blob.put((byte) 1).put((byte) 1).putShort((short) 0).putInt(0).putLong(timestamp).put(clientChallenge)
                    .putInt(0).put(c.targetInfo()).putInt(0);
            byte[] proof = hmacMd5(v2Hash, concat(c.serverChallenge(), blob.array()));
            byte[] nt = concat(proof, blob.array());
            byte[] sessionBaseKey = hmacMd5(v2Hash, proof);
            int flags = FLAGS & (c.flags() | ~NEGOTIATE_KEY_EXCH);
            byte[] exported = sessionBaseKey;
            byte[] encrypted = new byte[0];
            if ((flags & NEGOTIATE_KEY_EXCH) != 0) {
                exported = randomSessionKey.clone();
                encrypted = rc4(sessionBaseKey, exported);
            }
            byte[] lm = new byte[24];
            return new Authenticate(message(flags, lm, nt, domain, user, encrypted), exported);
        } catch (GeneralSecurityException e) {
            throw new AssertionError("NTLMv2: " + e, e);
        }
    }

    /** The anonymous AUTHENTICATE_MESSAGE ([MS-NLMP] 3.2.5.1.2): empty user, LM response Z(1), no NT response. */
    public static byte[] anonymous() {
        return message((FLAGS & ~NEGOTIATE_KEY_EXCH) | NEGOTIATE_ANONYMOUS, new byte[1], new byte[0], "", "",
                new byte[0]);
    }

    private static byte[] message(int flags, byte[] lm, byte[] nt, String domain, String user, byte[] sessionKey) {
        byte[] dom = domain.getBytes(StandardCharsets.UTF_16LE);
        byte[] usr = user.getBytes(StandardCharsets.UTF_16LE);
        byte[] ws = "TESTCLIENT".getBytes(StandardCharsets.UTF_16LE);
        int off = 64;
        ByteBuffer b = Smb2.le(off + lm.length + nt.length + dom.length + usr.length + ws.length + sessionKey.length);
        b.put(SIGNATURE).putInt(3);
        off = fields(b, lm.length, off);
        off = fields(b, nt.length, off);
        off = fields(b, dom.length, off);
        off = fields(b, usr.length, off);
        off = fields(b, ws.length, off);
        fields(b, sessionKey.length, off);
        b.putInt(flags);
        b.put(lm).put(nt).put(dom).put(usr).put(ws).put(sessionKey);
        return b.array();
    }

    private static int fields(ByteBuffer b, int len, int off) {
        b.putShort((short) len).putShort((short) len).putInt(off);
        return off + len;
    }

    public static byte[] md4(byte[] data) {
        MD4Digest d = new MD4Digest();
        d.update(data, 0, data.length);
        byte[] out = new byte[16];
        d.doFinal(out, 0);
        return out;
    }

    static byte[] rc4(byte[] key, byte[] data) {
        RC4Engine rc4 = new RC4Engine();
        rc4.init(true, new KeyParameter(key));
        byte[] out = new byte[data.length];
        rc4.processBytes(data, 0, data.length, out, 0);
        return out;
    }

    static byte[] hmacMd5(byte[] key, byte[] data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacMD5");
        mac.init(new SecretKeySpec(key, "HmacMD5"));
        return mac.doFinal(data);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
