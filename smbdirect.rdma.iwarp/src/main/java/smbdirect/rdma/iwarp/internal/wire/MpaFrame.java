package smbdirect.rdma.iwarp.internal.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The MPA Request and Reply frames of connection setup (RFC 5044 §7.1, RFC 6581 §4): a 16-byte
 * key, one flags byte (M, C, R and, per RFC 6581 as Linux siw names it, the "enhanced" bit), the
 * revision and the private data length, followed by the private data. They are raw TCP payload
 * before RDMA mode: no ULPDU_Length, pad, marker or CRC.
 *
 * <p>Static codec at an absolute offset, big-endian, never changes position or limit, never
 * allocates. Decoders never throw for any content; offsets outside the buffer's limit throw
 * {@link IndexOutOfBoundsException}. Thread-safe (stateless).
 */
public final class MpaFrame {

    /** Key, flags, revision and PD_Length. */
    public static final int HEADER_SIZE = 20;
    /** Offset of the 16-byte key. */
    public static final int KEY = 0;
    /** Offset of the flags byte (M C R E G Res). */
    public static final int FLAGS = 16;
    /** Offset of the revision byte. */
    public static final int REVISION = 17;
    /** Offset of the 16-bit private data length. */
    public static final int PD_LENGTH = 18;

    /** M: the sender wants markers in the FPDUs sent to it (RFC 5044 §7.1). */
    public static final int FLAG_MARKERS = 0x80;
    /** C: CRC32C is used on the connection when either side sets it (RFC 5044 §7.1). */
    public static final int FLAG_CRC = 0x40;
    /** R: the Reply rejects the connection (RFC 5044 §7.1). */
    public static final int FLAG_REJECT = 0x20;
    /** The private data starts with the RFC 6581 IRD/ORD word (siw {@code MPA_RR_FLAG_ENHANCED}). */
    public static final int FLAG_ENHANCED = 0x10;
    /** siw's private "GSO experimental" flag (not in any RFC): ignored on receive, never sent. */
    public static final int FLAG_SIW_GSO = 0x08;

    /** RFC 5044 MPA. */
    public static final int REVISION_1 = 1;
    /** RFC 6581 MPA with enhanced connection establishment. */
    public static final int REVISION_2 = 2;

    /** Largest private data the RFC allows (RFC 5044 §7.1). */
    public static final int MAX_PRIVATE_DATA = 512;
    /** Largest private data Linux siw accepts, the RFC 6581 word included ({@code MPA_MAX_PRIVDATA}). */
    public static final int SIW_MAX_PRIVATE_DATA = 256;

    private static final byte[] KEY_REQUEST = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY_REPLY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    /** What the 16 key bytes say. */
    public enum Key {
        REQUEST, REPLY, UNKNOWN
    }

    private MpaFrame() {
    }

    /** Writes key, flags, revision and PD_Length at {@code off} (the private data follows at {@code off + 20}). */
    public static void encode(ByteBuffer b, int off, boolean request, int flags, int revision, int pdLength) {
        if (pdLength < 0 || pdLength > 0xFFFF) {
            throw new IllegalArgumentException("PD_Length " + pdLength + " does not fit 16 bits");
        }
        byte[] key = request ? KEY_REQUEST : KEY_REPLY;
        for (int i = 0; i < key.length; i++) {
            b.put(off + KEY + i, key[i]);
        }
        Be.putU8(b, off + FLAGS, flags);
        Be.putU8(b, off + REVISION, revision);
        Be.putU16(b, off + PD_LENGTH, pdLength);
    }

    /** Compares the key with "MPA ID Req Frame" and "MPA ID Rep Frame" (RFC 5044 §7.1). */
    public static Key key(ByteBuffer b, int off) {
        if (matches(b, off, KEY_REQUEST)) {
            return Key.REQUEST;
        }
        return matches(b, off, KEY_REPLY) ? Key.REPLY : Key.UNKNOWN;
    }

    private static boolean matches(ByteBuffer b, int off, byte[] key) {
        for (int i = 0; i < key.length; i++) {
            if (b.get(off + KEY + i) != key[i]) {
                return false;
            }
        }
        return true;
    }

    public static int flags(ByteBuffer b, int off) {
        return Be.u8(b, off + FLAGS);
    }

    public static int revision(ByteBuffer b, int off) {
        return Be.u8(b, off + REVISION);
    }

    public static int pdLength(ByteBuffer b, int off) {
        return Be.u16(b, off + PD_LENGTH);
    }

    /** The flags as text for logs: {@code M C R E} letters that are set, others as {@code -}. */
    public static String describeFlags(int flags) {
        return ((flags & FLAG_MARKERS) != 0 ? "M" : "-") + ((flags & FLAG_CRC) != 0 ? "C" : "-")
                + ((flags & FLAG_REJECT) != 0 ? "R" : "-") + ((flags & FLAG_ENHANCED) != 0 ? "E" : "-")
                + String.format("(0x%02x)", flags);
    }
}
