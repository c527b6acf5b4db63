package smbdirect.interop.siw;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Locale;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The NTLMSSP messages ([MS-NLMP] 2.2.1) a test client needs to log on to ksmbd with a user and a
 * password, NTLMv2 ([MS-NLMP] 3.3.2), without SPNEGO (ksmbd takes raw NTLMSSP) and without key
 * exchange, signing or sealing. Test code. Static, thread-safe.
 */
final class Ntlm {

    /** UNICODE, REQUEST_TARGET, NTLM, ALWAYS_SIGN, EXTENDED_SESSIONSECURITY, TARGET_INFO, 128. */
    static final int FLAGS = 0x1 | 0x4 | 0x200 | 0x8000 | 0x80000 | 0x800000 | 0x20000000;
    private static final byte[] SIGNATURE = "NTLMSSP\0".getBytes(StandardCharsets.US_ASCII);

    private Ntlm() {
    }

    /** NEGOTIATE_MESSAGE (type 1), no domain or workstation. */
    static byte[] negotiate() {
        ByteBuffer b = le(32);
        b.put(SIGNATURE).putInt(1).putInt(FLAGS);
        b.putLong(0).putLong(0); // DomainNameFields, WorkstationFields
        return b.array();
    }

    /** The server challenge and target info of a CHALLENGE_MESSAGE (type 2). */
    record Challenge(byte[] serverChallenge, byte[] targetInfo) {

        static Challenge of(byte[] m) {
            ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
            if (!Arrays.equals(SIGNATURE, Arrays.copyOf(m, 8)) || b.getInt(8) != 2) {
                throw new AssertionError("not an NTLMSSP CHALLENGE_MESSAGE");
            }
            byte[] challenge = Arrays.copyOfRange(m, 24, 32);
            int len = b.getShort(40) & 0xFFFF;
            int off = b.getInt(44);
            return new Challenge(challenge, Arrays.copyOfRange(m, off, off + len));
        }
    }

    /** AUTHENTICATE_MESSAGE (type 3) with an NTLMv2 response for {@code user} / {@code password}. */
    static byte[] authenticate(Challenge c, String user, String domain, String password, byte[] clientChallenge,
            long timestamp) throws GeneralSecurityException {
        byte[] ntHash = Md4.digest(password.getBytes(StandardCharsets.UTF_16LE));
        byte[] v2Hash = hmacMd5(ntHash, (user.toUpperCase(Locale.ROOT) + domain).getBytes(StandardCharsets.UTF_16LE));
        ByteBuffer blob = le(28 + c.targetInfo().length + 4);
        blob.put((byte) 1).put((byte) 1).putShort((short) 0).putInt(0).putLong(timestamp).put(clientChallenge)
                .putInt(0).put(c.targetInfo()).putInt(0);
        byte[] proof = hmacMd5(v2Hash, concat(c.serverChallenge(), blob.array()));
        byte[] nt = concat(proof, blob.array());
        byte[] lm = new byte[24];
        byte[] dom = domain.getBytes(StandardCharsets.UTF_16LE);
        byte[] usr = user.getBytes(StandardCharsets.UTF_16LE);
        byte[] ws = new byte[0];
        int off = 64;
        ByteBuffer b = le(off + lm.length + nt.length + dom.length + usr.length);
        b.put(SIGNATURE).putInt(3);
        off = fields(b, lm.length, off);
        off = fields(b, nt.length, off);
        off = fields(b, dom.length, off);
        off = fields(b, usr.length, off);
        off = fields(b, ws.length, off);
        fields(b, 0, off); // EncryptedRandomSessionKey
        b.putInt(FLAGS);
        b.put(lm).put(nt).put(dom).put(usr);
        return b.array();
    }

    private static int fields(ByteBuffer b, int len, int off) {
        b.putShort((short) len).putShort((short) len).putInt(off);
        return off + len;
    }

    private static byte[] hmacMd5(byte[] key, byte[] data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacMD5");
        mac.init(new SecretKeySpec(key, "HmacMD5"));
        return mac.doFinal(data);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** MD4 (RFC 1320), for the NT hash; the JDK offers none to applications. */
    static final class Md4 {

        private Md4() {
        }

        static byte[] digest(byte[] message) {
            int n = ((message.length + 8) / 64 + 1) * 64;
            ByteBuffer m = le(n);
            m.put(message).put((byte) 0x80);
            m.putLong(n - 8, (long) message.length * 8);
            int a = 0x67452301;
            int b = 0xefcdab89;
            int c = 0x98badcfe;
            int d = 0x10325476;
            int[] x = new int[16];
            for (int blk = 0; blk < n; blk += 64) {
                for (int i = 0; i < 16; i++) {
                    x[i] = m.getInt(blk + 4 * i);
                }
                int aa = a;
                int bb = b;
                int cc = c;
                int dd = d;
                int[] s1 = {3, 7, 11, 19};
                for (int i = 0; i < 16; i++) {
                    int t = a + ((b & c) | (~b & d)) + x[i];
                    a = d;
                    d = c;
                    c = b;
                    b = Integer.rotateLeft(t, s1[i % 4]);
                }
                int[] s2 = {3, 5, 9, 13};
                int[] o2 = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
                for (int i = 0; i < 16; i++) {
                    int t = a + ((b & c) | (b & d) | (c & d)) + x[o2[i]] + 0x5a827999;
                    a = d;
                    d = c;
                    c = b;
                    b = Integer.rotateLeft(t, s2[i % 4]);
                }
                int[] s3 = {3, 9, 11, 15};
                int[] o3 = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
                for (int i = 0; i < 16; i++) {
                    int t = a + (b ^ c ^ d) + x[o3[i]] + 0x6ed9eba1;
                    a = d;
                    d = c;
                    c = b;
                    b = Integer.rotateLeft(t, s3[i % 4]);
                }
                a += aa;
                b += bb;
                c += cc;
                d += dd;
            }
            return le(16).putInt(a).putInt(b).putInt(c).putInt(d).array();
        }
    }
}
