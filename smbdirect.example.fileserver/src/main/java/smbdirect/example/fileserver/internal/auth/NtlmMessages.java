package smbdirect.example.fileserver.internal.auth;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The NTLMSSP messages ([MS-NLMP] 2.2.1.1-2.2.1.3) and AV pairs (2.2.2.1): parsing with every
 * offset and length checked against the message, and building the CHALLENGE_MESSAGE.
 * Little-endian throughout.
 */
final class NtlmMessages {

    static final byte[] SIGNATURE = "NTLMSSP\0".getBytes(StandardCharsets.US_ASCII);
    static final int NEGOTIATE = 1;
    static final int CHALLENGE = 2;
    static final int AUTHENTICATE = 3;

    // NegotiateFlags ([MS-NLMP] 2.2.2.5)
    static final int NEGOTIATE_UNICODE = 0x00000001;
    static final int NEGOTIATE_OEM = 0x00000002;
    static final int REQUEST_TARGET = 0x00000004;
    static final int NEGOTIATE_SIGN = 0x00000010;
    static final int NEGOTIATE_SEAL = 0x00000020;
    static final int NEGOTIATE_NTLM = 0x00000200;
    static final int NEGOTIATE_ALWAYS_SIGN = 0x00008000;
    static final int TARGET_TYPE_SERVER = 0x00020000;
    static final int NEGOTIATE_EXTENDED_SESSIONSECURITY = 0x00080000;
    static final int NEGOTIATE_TARGET_INFO = 0x00800000;
    static final int NEGOTIATE_VERSION = 0x02000000;
    static final int NEGOTIATE_128 = 0x20000000;
    static final int NEGOTIATE_KEY_EXCH = 0x40000000;
    static final int NEGOTIATE_56 = 0x80000000;

    // AvId ([MS-NLMP] 2.2.2.1)
    static final int AV_EOL = 0;
    static final int AV_NB_COMPUTER_NAME = 1;
    static final int AV_NB_DOMAIN_NAME = 2;
    static final int AV_DNS_COMPUTER_NAME = 3;
    static final int AV_DNS_DOMAIN_NAME = 4;
    static final int AV_FLAGS = 6;
    static final int AV_TIMESTAMP = 7;

    /** MsvAvFlags bit: the AUTHENTICATE_MESSAGE carries a MIC. */
    static final int AV_FLAG_MIC_PRESENT = 0x00000002;

    /** Offset of the MIC in an AUTHENTICATE_MESSAGE (after the 8-byte Version), and its length. */
    static final int MIC_OFFSET = 72;
    static final int MIC_LENGTH = 16;

    /** Size of the CHALLENGE_MESSAGE's fixed part, with its Version field. */
    private static final int CHALLENGE_HEADER = 56;

    /**
     * Version ([MS-NLMP] 2.2.2.10) this server reports: product 10.0 build 0, NTLMSSP_REVISION_W2K3 (0x0F).
     * The version is informational only.
     */
    private static final byte[] VERSION = {10, 0, 0, 0, 0, 0, 0, 0x0F};

    private NtlmMessages() {
    }

    static boolean hasSignature(byte[] blob) {
        if (blob.length < SIGNATURE.length) {
            return false;
        }
        for (int i = 0; i < SIGNATURE.length; i++) {
            if (blob[i] != SIGNATURE[i]) {
                return false;
            }
        }
        return true;
    }

    /** The MessageType of an NTLMSSP message. */
    static int messageType(byte[] m) throws BadTokenException {
        if (!hasSignature(m)) {
            throw new BadTokenException("NTLMSSP message: no \"NTLMSSP\\0\" signature");
        }
        if (m.length < 12) {
            throw new BadTokenException("NTLMSSP message: " + m.length + " bytes, no MessageType");
        }
        return u32(m, 8);
    }

    /** The NegotiateFlags of a NEGOTIATE_MESSAGE ([MS-NLMP] 2.2.1.1); its other fields are not used. */
    static int negotiateFlags(byte[] m) throws BadTokenException {
        int type = messageType(m);
        if (type != NEGOTIATE) {
            throw new BadTokenException("expected NEGOTIATE_MESSAGE (1), got MessageType " + Integer.toUnsignedString(type));
        }
        if (m.length < 16) {
            throw new BadTokenException("NEGOTIATE_MESSAGE: " + m.length + " bytes, shorter than its 16 bytes up to NegotiateFlags");
        }
        return u32(m, 12);
    }

    /** CHALLENGE_MESSAGE ([MS-NLMP] 2.2.1.2): TargetName and TargetInfo in the payload, Version filled when negotiated. */
    static byte[] challenge(int flags, byte[] serverChallenge, String targetName, byte[] targetInfo) {
        byte[] name = Crypto.unicode(targetName);
        byte[] m = new byte[CHALLENGE_HEADER + name.length + targetInfo.length];
        System.arraycopy(SIGNATURE, 0, m, 0, 8);
        putU32(m, 8, CHALLENGE);
        putField(m, 12, name.length, CHALLENGE_HEADER);
        putU32(m, 20, flags);
        System.arraycopy(serverChallenge, 0, m, 24, 8);
        // Reserved (8 bytes at 32) stays zero
        putField(m, 40, targetInfo.length, CHALLENGE_HEADER + name.length);
        if ((flags & NEGOTIATE_VERSION) != 0) {
            System.arraycopy(VERSION, 0, m, 48, 8);
        }
        System.arraycopy(name, 0, m, CHALLENGE_HEADER, name.length);
        System.arraycopy(targetInfo, 0, m, CHALLENGE_HEADER + name.length, targetInfo.length);
        return m;
    }

    /** The fields of an AUTHENTICATE_MESSAGE ([MS-NLMP] 2.2.1.3) the server uses; strings decoded from UTF-16LE. */
    record Authenticate(byte[] lmResponse, byte[] ntResponse, String domain, String user, String workstation,
            byte[] encryptedRandomSessionKey, int flags) {
    }

    static Authenticate parseAuthenticate(byte[] m) throws BadTokenException {
        int type = messageType(m);
        if (type != AUTHENTICATE) {
            throw new BadTokenException("expected AUTHENTICATE_MESSAGE (3), got MessageType " + Integer.toUnsignedString(type));
        }
        if (m.length < 64) {
            throw new BadTokenException("AUTHENTICATE_MESSAGE: " + m.length + " bytes, shorter than its 64 bytes up to NegotiateFlags");
        }
        return new Authenticate(
                field(m, 12, "LmChallengeResponse"),
                field(m, 20, "NtChallengeResponse"),
                string(m, 28, "DomainName"),
                string(m, 36, "UserName"),
                string(m, 44, "Workstation"),
                field(m, 52, "EncryptedRandomSessionKey"),
                u32(m, 60));
    }

    /** Builds an AV_PAIR list ([MS-NLMP] 2.2.2.1) ending in MsvAvEOL. */
    static final class AvPairs {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        AvPairs add(int id, byte[] value) {
            out.write(id);
            out.write(id >>> 8);
            out.write(value.length);
            out.write(value.length >>> 8);
            out.writeBytes(value);
            return this;
        }

        AvPairs add(int id, String value) {
            return add(id, Crypto.unicode(value));
        }

        byte[] end() {
            add(AV_EOL, new byte[0]);
            return out.toByteArray();
        }
    }

    /**
     * The value of MsvAvFlags in an AV_PAIR list starting at {@code off} of {@code b} (0 when absent);
     * the list must end in MsvAvEOL within {@code b}.
     */
    static int avFlags(byte[] b, int off) throws BadTokenException {
        int flags = 0;
        int p = off;
        while (true) {
            if (b.length - p < 4) {
                throw new BadTokenException("NTLMv2 response: AV pairs at offset " + p + " run past the response without MsvAvEOL");
            }
            int id = u16(b, p);
            int len = u16(b, p + 2);
            p += 4;
            if (b.length - p < len) {
                throw new BadTokenException("NTLMv2 response: AV pair " + id + " of " + len + " bytes runs past the response");
            }
            if (id == AV_EOL) {
                return flags;
            }
            if (id == AV_FLAGS) {
                if (len != 4) {
                    throw new BadTokenException("NTLMv2 response: MsvAvFlags of " + len + " bytes, expected 4");
                }
                flags = u32(b, p);
            }
            p += len;
        }
    }

    /** A payload field: Len (2), MaxLen (2), BufferOffset (4) at {@code at}; the bytes it names. */
    private static byte[] field(byte[] m, int at, String name) throws BadTokenException {
        int len = u16(m, at);
        long offset = Integer.toUnsignedLong(u32(m, at + 4));
        if (len == 0) {
            return new byte[0];
        }
        if (offset + len > m.length) {
            throw new BadTokenException("AUTHENTICATE_MESSAGE: " + name + " (" + len + " bytes at offset " + offset
                    + ") runs past the message of " + m.length + " bytes");
        }
        byte[] out = new byte[len];
        System.arraycopy(m, (int) offset, out, 0, len);
        return out;
    }

    private static String string(byte[] m, int at, String name) throws BadTokenException {
        byte[] b = field(m, at, name);
        if ((b.length & 1) != 0) {
            throw new BadTokenException("AUTHENTICATE_MESSAGE: " + name + " of " + b.length + " bytes, odd for UTF-16");
        }
        return new String(b, StandardCharsets.UTF_16LE);
    }

    private static void putField(byte[] m, int at, int len, int offset) {
        putU16(m, at, len);
        putU16(m, at + 2, len);
        putU32(m, at + 4, offset);
    }

    static int u16(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8;
    }

    static int u32(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }

    static void putU16(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
    }

    static void putU32(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }

    static void putU64(byte[] b, int off, long v) {
        putU32(b, off, (int) v);
        putU32(b, off + 4, (int) (v >>> 32));
    }
}
