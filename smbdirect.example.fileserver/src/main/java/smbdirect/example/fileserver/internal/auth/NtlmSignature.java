package smbdirect.example.fileserver.internal.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.bouncycastle.crypto.digests.MD5Digest;

/**
 * NTLM's message signature ([MS-NLMP] 3.4.4.2, with extended session security) of the one message
 * each side signs here: the SPNEGO mechListMIC over the client's MechTypeList ([RFC 4178] 5,
 * [MS-SPNG] 3.1.5.1), the first message in each direction, so sequence number 0 and a fresh RC4
 * handle.
 */
final class NtlmSignature {

    private static final byte[] CLIENT_SIGN = magic("session key to client-to-server signing key magic constant\0");
    private static final byte[] SERVER_SIGN = magic("session key to server-to-client signing key magic constant\0");
    private static final byte[] CLIENT_SEAL = magic("session key to client-to-server sealing key magic constant\0");
    private static final byte[] SERVER_SEAL = magic("session key to server-to-client sealing key magic constant\0");

    private NtlmSignature() {
    }

    /**
     * NTLMSSP_MESSAGE_SIGNATURE ([MS-NLMP] 2.2.2.9.1) of {@code message} at SeqNum 0: Version 1,
     * HMAC_MD5(SIGNKEY, SeqNum || message)[0..7], RC4-sealed under KEY_EXCH, SeqNum.
     *
     * @param flags the negotiated flags: must include EXTENDED_SESSIONSECURITY
     * @param serverToClient whose keys: the server's (true) or the client's
     */
    static byte[] first(byte[] exportedSessionKey, int flags, boolean serverToClient, byte[] message) {
        if ((flags & NtlmMessages.NEGOTIATE_EXTENDED_SESSIONSECURITY) == 0) {
            throw new IllegalArgumentException("NTLM signatures without extended session security are not supported");
        }
        byte[] signKey = md5(exportedSessionKey, serverToClient ? SERVER_SIGN : CLIENT_SIGN);
        byte[] seqNum = new byte[4];
        byte[] checksum = Arrays.copyOf(Crypto.hmacMd5(signKey, seqNum, message), 8);
        if ((flags & NtlmMessages.NEGOTIATE_KEY_EXCH) != 0) {
            // [MS-NLMP] 3.4.5.3 SEALKEY: 128, 56 or 40 bits of the exported key
            int bytes = (flags & NtlmMessages.NEGOTIATE_128) != 0 ? 16 : (flags & NtlmMessages.NEGOTIATE_56) != 0 ? 7 : 5;
            byte[] sealKey = md5(Arrays.copyOf(exportedSessionKey, bytes), serverToClient ? SERVER_SEAL : CLIENT_SEAL);
            checksum = Crypto.rc4(sealKey, checksum);
        }
        byte[] out = new byte[16];
        out[0] = 1; // Version
        System.arraycopy(checksum, 0, out, 4, 8);
        // SeqNum (bytes 12..15) is 0
        return out;
    }

    private static byte[] md5(byte[] a, byte[] b) {
        MD5Digest d = new MD5Digest();
        d.update(a, 0, a.length);
        d.update(b, 0, b.length);
        byte[] out = new byte[16];
        d.doFinal(out, 0);
        return out;
    }

    private static byte[] magic(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
