package smbdirect.example.fileserver.internal.auth;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.bouncycastle.crypto.digests.MD4Digest;
import org.bouncycastle.crypto.engines.RC4Engine;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The client's side of NTLMv2 ([MS-NLMP] 3.1.5, 3.3.2), written for the tests apart from the
 * server's code (JDK HMAC-MD5, its own message layout), with switches to misbehave.
 */
final class ScriptedNtlmClient {

    static final int CLIENT_FLAGS = 0xE2088297; // what a Windows client sends ([MS-SMB2] key derivation example)
    static final int CIFS_FLAGS = 0xE2088235; // Linux cifs: 56, KEY_EXCH, 128, VERSION, EXT_SEC, ALWAYS_SIGN, NTLM, SEAL, SIGN, REQUEST_TARGET, UNICODE

    String user = "alice";
    String domain = "WORKGROUP";
    String password = "secret";
    int negotiateFlags = CIFS_FLAGS;
    /** The exported session key under KEY_EXCH (else the session base key is the key). */
    byte[] randomSessionKey = filled(16, (byte) 0x5A);
    byte[] clientChallenge = filled(8, (byte) 0xAA);
    long time = 0x01D0_0000_0000_0000L;
    /** Put MsvAvFlags (MIC present) in the response and the MIC at offset 72. */
    boolean mic;
    /** Flip one bit of the MIC after computing it. */
    boolean corruptMic;
    /** Send a 24-byte NTLMv1-shaped NT response instead. */
    boolean ntlmV1;
    /** Send an LM response only. */
    boolean lmOnly;
    /** Anonymous: empty user, no NT response, LM response of one zero byte. */
    boolean anonymous;
    /**
     * Shape the AUTHENTICATE as Linux cifs does (fs/smb/client sess.c, cifsencrypt.c): no LM response, the
     * server's AV pairs with MsvAvTargetName "cifs/host" added before MsvAvEOL and nothing after it, flags
     * = the CHALLENGE's | REQUEST_TARGET | TARGET_INFO | VERSION | WORKSTATION_SUPPLIED.
     */
    boolean cifs;

    byte[] negotiateMessage;
    byte[] challengeMessage;
    byte[] serverChallenge;
    int challengeFlags;
    byte[] targetInfo;
    byte[] sessionBaseKey;

    byte[] negotiate() {
        ByteBuffer b = le(40);
        b.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(negotiateFlags);
        b.putShort((short) 0).putShort((short) 0).putInt(40); // DomainNameFields
        b.putShort((short) 0).putShort((short) 0).putInt(40); // WorkstationFields
        b.put(new byte[] {6, 1, (byte) 0xB1, 0x1D, 0, 0, 0, 0x0F}); // Version
        negotiateMessage = b.array();
        return negotiateMessage.clone();
    }

    /** Reads the CHALLENGE_MESSAGE ([MS-NLMP] 2.2.1.2) the server sent. */
    void challenge(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        if (!Arrays.equals(Arrays.copyOf(m, 8), "NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)) || b.getInt(8) != 2) {
            throw new AssertionError("not a CHALLENGE_MESSAGE");
        }
        challengeMessage = m.clone();
        challengeFlags = b.getInt(20);
        serverChallenge = Arrays.copyOfRange(m, 24, 32);
        int len = b.getShort(40) & 0xFFFF;
        int off = b.getInt(44);
        targetInfo = Arrays.copyOfRange(m, off, off + len);
    }

    byte[] authenticate() {
        byte[] lm;
        byte[] nt;
        byte[] encryptedKey = new byte[0];
        byte[] avs = targetInfo;
        if (mic) {
            avs = withMicFlag(targetInfo);
        }
        if (cifs) {
            byte[] spn = unicode("cifs/server.example");
            ByteBuffer targetName = le(4 + spn.length).putShort((short) 9).putShort((short) spn.length).put(spn);
            avs = concat(Arrays.copyOf(targetInfo, targetInfo.length - 4), targetName.array(), new byte[4]);
        }
        if (anonymous) {
            lm = new byte[1];
            nt = new byte[0];
        } else if (ntlmV1 || lmOnly) {
            lm = filled(24, (byte) 0x11);
            nt = lmOnly ? new byte[0] : filled(24, (byte) 0x22);
        } else {
            byte[] key = ntowfv2(password, user, domain);
            int trailer = cifs ? 0 : 4;
            ByteBuffer temp = le(28 + avs.length + trailer);
            temp.put((byte) 1).put((byte) 1).putShort((short) 0).putInt(0).putLong(time).put(clientChallenge).putInt(0);
            temp.put(avs);
            byte[] proof = hmacMd5(key, serverChallenge, temp.array());
            nt = concat(proof, temp.array());
            lm = cifs ? new byte[0] : new byte[24]; // zeros: the client sent a timestamp ([MS-NLMP] 3.1.5.1.2)
            sessionBaseKey = hmacMd5(key, proof);
            if ((challengeFlags & 0x40000000) != 0) {
                encryptedKey = rc4(sessionBaseKey, randomSessionKey);
            }
        }
        byte[] dom = unicode(anonymous ? "" : domain);
        byte[] usr = unicode(anonymous ? "" : user);
        byte[] ws = unicode("TESTHOST");
        int header = 88;
        int total = header + lm.length + nt.length + dom.length + usr.length + ws.length + encryptedKey.length;
        ByteBuffer b = le(total);
        b.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(3);
        int off = header;
        off = field(b, lm.length, off);
        off = field(b, nt.length, off);
        off = field(b, dom.length, off);
        off = field(b, usr.length, off);
        off = field(b, ws.length, off);
        field(b, encryptedKey.length, off);
        b.putInt(cifs ? challengeFlags | 0x00800000 | 0x02000000 | 0x00000004 | 0x00002000 : challengeFlags);
        b.put(new byte[] {6, 1, (byte) 0xB1, 0x1D, 0, 0, 0, 0x0F});
        b.put(new byte[16]); // MIC, filled below
        b.put(lm).put(nt).put(dom).put(usr).put(ws).put(encryptedKey);
        byte[] m = b.array();
        if (mic) {
            byte[] exported = (challengeFlags & 0x40000000) != 0 ? randomSessionKey : sessionBaseKey;
            byte[] value = hmacMd5(exported, negotiateMessage, challengeMessage, m);
            if (corruptMic) {
                value[3] ^= 0x01;
            }
            System.arraycopy(value, 0, m, 72, 16);
        }
        return m;
    }

    /** The key both ends should hold after the logon. */
    byte[] expectedSessionKey() {
        return (challengeFlags & 0x40000000) != 0 ? randomSessionKey : sessionBaseKey;
    }

    /** The SPNEGO mechListMIC ([MS-NLMP] 3.4.4.2 at SeqNum 0) over {@code mechTypes}, with the client's or the server's keys. */
    byte[] mechListMic(boolean serverToClient, byte[] mechTypes) {
        byte[] key = expectedSessionKey();
        String side = serverToClient ? "server-to-client" : "client-to-server";
        byte[] signKey = md5(key, ("session key to " + side + " signing key magic constant\0").getBytes(StandardCharsets.US_ASCII));
        byte[] sealKey = md5(key, ("session key to " + side + " sealing key magic constant\0").getBytes(StandardCharsets.US_ASCII));
        byte[] checksum = Arrays.copyOf(hmacMd5(signKey, new byte[4], mechTypes), 8);
        return concat(new byte[] {1, 0, 0, 0}, rc4(sealKey, checksum), new byte[4]);
    }

    private static byte[] md5(byte[] a, byte[] b) {
        try {
            java.security.MessageDigest md5 = java.security.MessageDigest.getInstance("MD5");
            md5.update(a);
            return md5.digest(b);
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    private static int field(ByteBuffer b, int len, int off) {
        b.putShort((short) len).putShort((short) len).putInt(off);
        return off + len;
    }

    /** The target info with MsvAvFlags = MIC present inserted before MsvAvEOL. */
    private static byte[] withMicFlag(byte[] avs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.wrap(avs).order(ByteOrder.LITTLE_ENDIAN);
        int p = 0;
        while (true) {
            int id = b.getShort(p) & 0xFFFF;
            int len = b.getShort(p + 2) & 0xFFFF;
            if (id == 0) {
                break;
            }
            out.write(avs, p, 4 + len);
            p += 4 + len;
        }
        out.writeBytes(new byte[] {6, 0, 4, 0, 2, 0, 0, 0, 0, 0, 0, 0});
        return out.toByteArray();
    }

    static byte[] ntowfv2(String password, String user, String domain) {
        MD4Digest md4 = new MD4Digest();
        byte[] p = unicode(password);
        md4.update(p, 0, p.length);
        byte[] hash = new byte[16];
        md4.doFinal(hash, 0);
        return hmacMd5(hash, unicode(user.toUpperCase(Locale.ROOT) + domain));
    }

    static byte[] hmacMd5(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacMD5");
            mac.init(new SecretKeySpec(key, "HmacMD5"));
            for (byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    static byte[] rc4(byte[] key, byte[] data) {
        RC4Engine rc4 = new RC4Engine();
        rc4.init(true, new KeyParameter(key));
        byte[] out = new byte[data.length];
        rc4.processBytes(data, 0, data.length, out, 0);
        return out;
    }

    static byte[] unicode(String s) {
        return s.getBytes(StandardCharsets.UTF_16LE);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static byte[] filled(int n, byte v) {
        byte[] b = new byte[n];
        Arrays.fill(b, v);
        return b;
    }

    static byte[] hex(String s) {
        String h = s.replaceAll("\\s", "");
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    private static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }
}
