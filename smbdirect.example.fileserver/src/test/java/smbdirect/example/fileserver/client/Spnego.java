package smbdirect.example.fileserver.client;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The few SPNEGO ([RFC 4178]) tokens an SMB client reads and writes, in DER: the server's
 * NegTokenInit in the NEGOTIATE response (whose mechTypes Linux cifs reads to choose NTLMSSP),
 * and NTLMSSP wrapped in NegTokenInit and NegTokenResp as Windows sends it. Test code. Static,
 * thread-safe.
 */
public final class Spnego {

    /** 1.3.6.1.5.5.2, the SPNEGO mechanism. */
    public static final byte[] SPNEGO_OID = HexFormat.of().parseHex("2b0601050502");
    /** 1.3.6.1.4.1.311.2.2.10, NTLMSSP. */
    public static final byte[] NTLMSSP_OID = HexFormat.of().parseHex("2b0601040182370202" + "0a");

    private Spnego() {
    }

    /** One DER element: its tag, and where its contents lie in the array. */
    public record Tlv(int tag, byte[] source, int start, int length) {
        public byte[] contents() {
            return Arrays.copyOfRange(source, start, start + length);
        }

        /** The elements inside this one (a constructed element's contents). */
        public List<Tlv> children() {
            return read(source, start, start + length);
        }

        /** The first child with {@code tag}, or null. */
        public Tlv child(int wanted) {
            return children().stream().filter(c -> c.tag() == wanted).findFirst().orElse(null);
        }
    }

    /** The DER elements between {@code from} and {@code to}; an AssertionError naming what is malformed. */
    public static List<Tlv> read(byte[] b, int from, int to) {
        List<Tlv> out = new ArrayList<>();
        int at = from;
        while (at < to) {
            if (to - at < 2) {
                throw new AssertionError("DER: a truncated element at " + at);
            }
            int tag = b[at++] & 0xFF;
            int len = b[at++] & 0xFF;
            if (len >= 0x80) {
                int n = len & 0x7F;
                if (n == 0 || n > 3 || at + n > to) {
                    throw new AssertionError("DER: length of " + n + " bytes at " + at);
                }
                len = 0;
                for (int i = 0; i < n; i++) {
                    len = (len << 8) | (b[at++] & 0xFF);
                }
            }
            if (at + len > to) {
                throw new AssertionError("DER: element of " + len + " bytes at " + at + " beyond " + to);
            }
            out.add(new Tlv(tag, b, at, len));
            at += len;
        }
        return out;
    }

    /**
     * The mechTypes of a GSS-API InitialContextToken carrying a NegTokenInit ([RFC 4178] 4.2.1),
     * as the DER contents of each OID.
     */
    public static List<byte[]> mechTypes(byte[] token) {
        List<Tlv> top = read(token, 0, token.length);
        if (top.size() != 1 || top.get(0).tag() != 0x60) {
            throw new AssertionError("not a GSS-API InitialContextToken ([APPLICATION 0])");
        }
        List<Tlv> inner = top.get(0).children();
        if (inner.size() != 2 || inner.get(0).tag() != 0x06 || !Arrays.equals(SPNEGO_OID, inner.get(0).contents())) {
            throw new AssertionError("the InitialContextToken is not for SPNEGO");
        }
        Tlv init = inner.get(1);
        if (init.tag() != 0xA0 || init.children().size() != 1 || init.children().get(0).tag() != 0x30) {
            throw new AssertionError("no NegTokenInit ([0] SEQUENCE)");
        }
        Tlv types = init.children().get(0).child(0xA0);
        if (types == null || types.children().size() != 1 || types.children().get(0).tag() != 0x30) {
            throw new AssertionError("NegTokenInit without mechTypes");
        }
        List<byte[]> oids = new ArrayList<>();
        for (Tlv oid : types.children().get(0).children()) {
            if (oid.tag() != 0x06) {
                throw new AssertionError("mechTypes holds a non-OID element (tag " + oid.tag() + ")");
            }
            oids.add(oid.contents());
        }
        return oids;
    }

    /** The NTLMSSP NEGOTIATE_MESSAGE in a NegTokenInit offering NTLMSSP alone, as Windows sends it first. */
    public static byte[] initWithNtlm(byte[] ntlmNegotiate) {
        byte[] mechTypes = tlv(0xA0, tlv(0x30, tlv(0x06, NTLMSSP_OID)));
        byte[] mechToken = tlv(0xA2, tlv(0x04, ntlmNegotiate));
        byte[] negTokenInit = tlv(0xA0, tlv(0x30, concat(mechTypes, mechToken)));
        return tlv(0x60, concat(tlv(0x06, SPNEGO_OID), negTokenInit));
    }

    /** A NegTokenResp ([RFC 4178] 4.2.2) carrying {@code responseToken} (the NTLMSSP AUTHENTICATE_MESSAGE). */
    public static byte[] response(byte[] responseToken) {
        return tlv(0xA1, tlv(0x30, tlv(0xA2, tlv(0x04, responseToken))));
    }

    /** The negState ([0] ENUMERATED) of a NegTokenResp, or -1 when absent. */
    public static int negState(byte[] negTokenResp) {
        Tlv seq = negTokenResp(negTokenResp);
        Tlv state = seq.child(0xA0);
        if (state == null) {
            return -1;
        }
        byte[] e = state.children().get(0).contents();
        return e[e.length - 1] & 0xFF;
    }

    /** The responseToken ([2] OCTET STRING) of a NegTokenResp, or null when absent. */
    public static byte[] responseToken(byte[] negTokenResp) {
        Tlv token = negTokenResp(negTokenResp).child(0xA2);
        return token == null ? null : token.children().get(0).contents();
    }

    private static Tlv negTokenResp(byte[] b) {
        List<Tlv> top = read(b, 0, b.length);
        if (top.size() != 1 || top.get(0).tag() != 0xA1 || top.get(0).children().size() != 1
                || top.get(0).children().get(0).tag() != 0x30) {
            throw new AssertionError("not a NegTokenResp ([1] SEQUENCE)");
        }
        return top.get(0).children().get(0);
    }

    static byte[] tlv(int tag, byte[] contents) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int n = contents.length;
        if (n < 0x80) {
            out.write(n);
        } else if (n < 0x100) {
            out.write(0x81);
            out.write(n);
        } else {
            out.write(0x82);
            out.write(n >> 8);
            out.write(n & 0xFF);
        }
        out.writeBytes(contents);
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
