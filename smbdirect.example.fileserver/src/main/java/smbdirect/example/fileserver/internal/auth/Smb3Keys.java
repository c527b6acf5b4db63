package smbdirect.example.fileserver.internal.auth;

/**
 * SMB 3.x key material ([MS-SMB2] 3.1.4.2, 3.3.5.5.3): the SP800-108 counter-mode KDF with
 * HMAC-SHA256, the pre-authentication integrity hash (SHA-512, 3.1.1), and AES-128-CMAC signing
 * (3.1.4.1) of the one message this server signs: the final SESSION_SETUP response of a 3.1.1
 * session that is not guest. Static, thread-safe.
 */
public final class Smb3Keys {

    private Smb3Keys() {
    }

    /** SP800-108 KDF in counter mode, HMAC-SHA256, L = 128: a 16-byte key. */
    public static byte[] kdf(byte[] key, byte[] label, byte[] context) {
        throw new UnsupportedOperationException("not yet");
    }

    /** The signing key: 3.0.2 (label "SMB2AESCMAC\0", context "SmbSign\0"), 3.1.1 ("SMBSigningKey\0", the session's pre-auth hash). */
    public static byte[] signingKey(int dialect, byte[] sessionKey, byte[] preauthHash) {
        throw new UnsupportedOperationException("not yet");
    }

    /** PreauthIntegrityHashValue = SHA-512(previous || message); the first previous is 64 zero bytes. */
    public static byte[] preauthHash(byte[] previous, java.nio.ByteBuffer message) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Signs the SMB2 message between position and limit of {@code message} in place: sets
     * SMB2_FLAGS_SIGNED, zeroes the Signature field, computes AES-128-CMAC over the message and
     * writes its 16 bytes at offset 48 of the header.
     */
    public static void sign(byte[] signingKey, java.nio.ByteBuffer message) {
        throw new UnsupportedOperationException("not yet");
    }
}
