package smbdirect.example.fileserver.client;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.macs.CMac;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * What the client computes to check a signed response ([MS-SMB2] 3.1.4.1, 3.1.4.2, 3.2.5.3.1):
 * the SHA-512 pre-authentication integrity hash of 3.1.1, the SP800-108 KDF (counter mode,
 * HMAC-SHA256) and AES-128-CMAC. Test code, written apart from the server's. Static, thread-safe.
 */
public final class Smb3Signing {

    private Smb3Signing() {
    }

    /** SHA-512(previous || message). */
    public static byte[] preauth(byte[] previous, byte[] message) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-512");
            sha.update(previous);
            sha.update(message);
            return sha.digest();
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    /** KDF(Ki, Label, Context) with L = 128 ([MS-SMB2] 3.1.4.2, SP800-108 5.1). */
    public static byte[] kdf(byte[] key, byte[] label, byte[] context) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(new byte[] {0, 0, 0, 1});
            mac.update(label);
            mac.update((byte) 0);
            mac.update(context);
            mac.update(new byte[] {0, 0, 0, (byte) 128});
            return Arrays.copyOf(mac.doFinal(), 16);
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The signing key of a session ([MS-SMB2] 3.3.5.5.3): by dialect, from the session key and, for
     * 3.1.1, the pre-auth hash.
     */
    public static byte[] signingKey(int dialect, byte[] sessionKey, byte[] preauthHash) {
        if (dialect == Smb2.DIALECT_311) {
            return kdf(sessionKey, "SMBSigningKey\0".getBytes(StandardCharsets.US_ASCII), preauthHash);
        }
        return kdf(sessionKey, "SMB2AESCMAC\0".getBytes(StandardCharsets.US_ASCII),
                "SmbSign\0".getBytes(StandardCharsets.US_ASCII));
    }

    /** The AES-128-CMAC signature of {@code message} with its Signature field taken as zero. */
    public static byte[] signature(byte[] signingKey, byte[] message) {
        byte[] copy = message.clone();
        Arrays.fill(copy, 48, 64, (byte) 0);
        CMac cmac = new CMac(AESEngine.newInstance());
        cmac.init(new KeyParameter(signingKey));
        cmac.update(copy, 0, copy.length);
        byte[] out = new byte[16];
        cmac.doFinal(out, 0);
        return out;
    }
}
