package smbdirect.example.fileserver.internal.auth;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * SMB 3.x key material ([MS-SMB2] 3.1.4.2, 3.3.5.5.3): the SP800-108 counter-mode KDF with
 * HMAC-SHA256, the pre-authentication integrity hash (SHA-512, 3.1.1), and AES-128-CMAC signing
 * (3.1.4.1) of the one message this server signs: the final SESSION_SETUP response of a 3.1.1
 * session that is not guest. Static, thread-safe.
 */
public final class Smb3Keys {

    /** Dialect 3.0.2 ([MS-SMB2] 2.2.3). */
    public static final int DIALECT_302 = 0x0302;
    /** Dialect 3.1.1. */
    public static final int DIALECT_311 = 0x0311;

    /** SMB2_FLAGS_SIGNED ([MS-SMB2] 2.2.1.2). */
    private static final int FLAGS_SIGNED = 0x00000008;
    private static final int FLAGS_OFFSET = 16;
    private static final int SIGNATURE_OFFSET = 48;
    private static final int SIGNATURE_LENGTH = 16;
    private static final int HEADER_LENGTH = 64;

    private static final byte[] LABEL_302 = ascii("SMB2AESCMAC\0");
    private static final byte[] CONTEXT_302 = ascii("SmbSign\0");
    private static final byte[] LABEL_311 = ascii("SMBSigningKey\0");

    private Smb3Keys() {
    }

    /** SP800-108 KDF in counter mode, HMAC-SHA256, L = 128: a 16-byte key. */
    public static byte[] kdf(byte[] key, byte[] label, byte[] context) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(context, "context");
        // [MS-SMB2] 3.1.4.2: one iteration, i = 1, r = 32; the input is i || Label || 0x00 || Context || L,
        // i and L as 32-bit big-endian integers, L = 128 bits.
        byte[] counter = {0, 0, 0, 1};
        byte[] separator = {0};
        byte[] length = {0, 0, 0, (byte) 128};
        byte[] prf = Crypto.hmacSha256(key, counter, label, separator, context, length);
        byte[] out = new byte[16];
        System.arraycopy(prf, 0, out, 0, 16);
        return out;
    }

    /** The signing key: 3.0.2 (label "SMB2AESCMAC\0", context "SmbSign\0"), 3.1.1 ("SMBSigningKey\0", the session's pre-auth hash). */
    public static byte[] signingKey(int dialect, byte[] sessionKey, byte[] preauthHash) {
        Objects.requireNonNull(sessionKey, "sessionKey");
        return switch (dialect) {
            case DIALECT_302 -> kdf(sessionKey, LABEL_302, CONTEXT_302);
            case DIALECT_311 -> {
                Objects.requireNonNull(preauthHash, "preauthHash (dialect 3.1.1)");
                if (preauthHash.length != 64) {
                    throw new IllegalArgumentException("preauthHash: " + preauthHash.length + " bytes, SHA-512 gives 64");
                }
                yield kdf(sessionKey, LABEL_311, preauthHash);
            }
            default -> throw new IllegalArgumentException(String.format("dialect 0x%04X: this server signs 3.0.2 and 3.1.1 only", dialect));
        };
    }

    /** PreauthIntegrityHashValue = SHA-512(previous || message); the first previous is 64 zero bytes. */
    public static byte[] preauthHash(byte[] previous, ByteBuffer message) {
        Objects.requireNonNull(previous, "previous");
        if (previous.length != 64) {
            throw new IllegalArgumentException("previous: " + previous.length + " bytes, SHA-512 gives 64");
        }
        byte[] bytes = new byte[message.remaining()];
        message.duplicate().get(bytes);
        return Crypto.sha512(previous, bytes);
    }

    /**
     * Signs the SMB2 message between position and limit of {@code message} in place: sets
     * SMB2_FLAGS_SIGNED, zeroes the Signature field, computes AES-128-CMAC over the message and
     * writes its 16 bytes at offset 48 of the header.
     */
    public static void sign(byte[] signingKey, ByteBuffer message) {
        Objects.requireNonNull(signingKey, "signingKey");
        if (signingKey.length != 16) {
            throw new IllegalArgumentException("signingKey: " + signingKey.length + " bytes, AES-128 takes 16");
        }
        int start = message.position();
        int length = message.remaining();
        if (length < HEADER_LENGTH) {
            throw new IllegalArgumentException("message: " + length + " bytes, shorter than the 64-byte SMB2 header");
        }
        ByteBuffer le = message.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        le.putInt(start + FLAGS_OFFSET, le.getInt(start + FLAGS_OFFSET) | FLAGS_SIGNED);
        for (int i = 0; i < SIGNATURE_LENGTH; i++) {
            le.put(start + SIGNATURE_OFFSET + i, (byte) 0);
        }
        byte[] bytes = new byte[length];
        le.get(start, bytes);
        byte[] mac = Crypto.aesCmac(signingKey, bytes, 0, length);
        le.put(start + SIGNATURE_OFFSET, mac, 0, SIGNATURE_LENGTH);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
