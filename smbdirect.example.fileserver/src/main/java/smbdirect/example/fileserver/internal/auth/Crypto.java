package smbdirect.example.fileserver.internal.auth;

import java.nio.charset.StandardCharsets;

import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.MD4Digest;
import org.bouncycastle.crypto.digests.MD5Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.digests.SHA512Digest;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.engines.RC4Engine;
import org.bouncycastle.crypto.macs.CMac;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The primitives of NTLMv2 ([MS-NLMP] 3.3.2, 3.4.5.1) and SMB 3.x signing ([MS-SMB2] 3.1.4.1),
 * through Bouncy Castle's lightweight API: nothing is registered as a JCA provider. Stateless.
 */
final class Crypto {

    private Crypto() {
    }

    /** UNICODE(s): UTF-16LE without a byte order mark, as [MS-NLMP] encodes every string. */
    static byte[] unicode(String s) {
        return s.getBytes(StandardCharsets.UTF_16LE);
    }

    static byte[] md4(byte[] data) {
        return digest(new MD4Digest(), data);
    }

    static byte[] sha512(byte[]... parts) {
        return digest(new SHA512Digest(), parts);
    }

    static byte[] hmacMd5(byte[] key, byte[]... parts) {
        return hmac(new HMac(new MD5Digest()), key, parts);
    }

    static byte[] hmacSha256(byte[] key, byte[]... parts) {
        return hmac(new HMac(new SHA256Digest()), key, parts);
    }

    /** RC4(key, data) of one message: a fresh key stream ([MS-NLMP] 3.4.5.1 RC4K). */
    static byte[] rc4(byte[] key, byte[] data) {
        RC4Engine rc4 = new RC4Engine();
        rc4.init(true, new KeyParameter(key));
        byte[] out = new byte[data.length];
        rc4.processBytes(data, 0, data.length, out, 0);
        return out;
    }

    /** AES-128-CMAC ([RFC 4493]) of {@code len} bytes of {@code data} from {@code off}. */
    static byte[] aesCmac(byte[] key, byte[] data, int off, int len) {
        CMac cmac = new CMac(AESEngine.newInstance());
        cmac.init(new KeyParameter(key));
        cmac.update(data, off, len);
        byte[] out = new byte[cmac.getMacSize()];
        cmac.doFinal(out, 0);
        return out;
    }

    /** NTOWFv2 ([MS-NLMP] 3.3.2): HMAC_MD5(MD4(UNICODE(password)), UNICODE(UPPER(user) || domain)). */
    static byte[] ntowfv2(String password, String user, String domain) {
        return hmacMd5(md4(unicode(password)), unicode(upper(user) + domain));
    }

    /**
     * Upper case one UTF-16 unit at a time, as Windows and Linux cifs upper-case a user name (the
     * length never changes: "ß" stays "ß", where {@link String#toUpperCase} would give "SS").
     */
    static String upper(String s) {
        char[] c = s.toCharArray();
        for (int i = 0; i < c.length; i++) {
            c[i] = Character.toUpperCase(c[i]);
        }
        return new String(c);
    }

    private static byte[] digest(Digest d, byte[]... parts) {
        for (byte[] p : parts) {
            d.update(p, 0, p.length);
        }
        byte[] out = new byte[d.getDigestSize()];
        d.doFinal(out, 0);
        return out;
    }

    private static byte[] hmac(HMac mac, byte[] key, byte[]... parts) {
        mac.init(new KeyParameter(key));
        for (byte[] p : parts) {
            mac.update(p, 0, p.length);
        }
        byte[] out = new byte[mac.getMacSize()];
        mac.doFinal(out, 0);
        return out;
    }
}
