package smbdirect.rdma.iwarp.internal.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * MPA framing of one FPDU without markers (RFC 5044 §4.1): a 16-bit ULPDU_Length, the ULPDU (one
 * DDP segment), 0 to 3 zero PAD bytes so that the FPDU ends 4-aligned, and a 4-byte CRC field that
 * carries the CRC32C of everything before it (RFC 5044 §6.1) or zero when CRC was not negotiated.
 * The CRC value goes on the wire least-significant byte first, as Linux siw and Wireshark expect.
 *
 * <p>Offsets in this package are relative to the first byte of the FPDU (the ULPDU_Length).
 * Static, never allocates. Thread-safe (stateless).
 */
public final class Fpdu {

    /** Offset of ULPDU_Length. */
    public static final int ULPDU_LENGTH = 0;
    /** Bytes of ULPDU_Length. */
    public static final int LENGTH_SIZE = 2;
    /** Bytes of the CRC field. */
    public static final int CRC_SIZE = 4;
    /** The largest ULPDU_Length (16 bits). */
    public static final int MAX_ULPDU = 0xFFFF;
    /** The smallest FPDU: a zero-length tagged segment (16 header bytes) and the CRC. */
    public static final int MIN_SIZE = Ddp.TAGGED_HEADER + CRC_SIZE;

    private Fpdu() {
    }

    /** PAD bytes after a ULPDU of {@code ulpduLength} bytes: {@code (-(ULPDU_Length + 2)) & 3} (RFC 5044 §4.1). */
    public static int pad(int ulpduLength) {
        return -(ulpduLength + LENGTH_SIZE) & 3;
    }

    /** Bytes of the whole FPDU: length field, ULPDU, PAD and CRC. */
    public static int size(int ulpduLength) {
        return LENGTH_SIZE + ulpduLength + pad(ulpduLength) + CRC_SIZE;
    }

    public static int ulpduLength(ByteBuffer b, int off) {
        return Be.u16(b, off + ULPDU_LENGTH);
    }

    public static void putUlpduLength(ByteBuffer b, int off, int ulpduLength) {
        if (ulpduLength < 0 || ulpduLength > MAX_ULPDU) {
            throw new IllegalArgumentException("ULPDU_Length " + ulpduLength + " does not fit 16 bits");
        }
        Be.putU16(b, off + ULPDU_LENGTH, ulpduLength);
    }

    /**
     * Completes a contiguous FPDU whose length field and ULPDU are at {@code off}: writes the PAD
     * zeros and the CRC field ({@code crc} null: zero, as siw sends it without CRC).
     *
     * @return the FPDU size
     */
    public static int seal(ByteBuffer b, int off, CRC32C crc) {
        int ulpdu = ulpduLength(b, off);
        int padStart = off + LENGTH_SIZE + ulpdu;
        int pad = pad(ulpdu);
        for (int i = 0; i < pad; i++) {
            b.put(padStart + i, (byte) 0);
        }
        int crcAt = padStart + pad;
        Be.putLe32(b, crcAt, crc == null ? 0 : crc32c(crc, b, off, crcAt - off));
        return crcAt + CRC_SIZE - off;
    }

    /** CRC32C over {@code length} bytes at {@code off}, computed in place (RFC 5044 §6.1). */
    public static int crc32c(CRC32C crc, ByteBuffer b, int off, int length) {
        crc.reset();
        update(crc, b, off, length);
        return (int) crc.getValue();
    }

    /** Adds {@code length} bytes at {@code off} to {@code crc} without touching the buffer's position or limit. */
    public static void update(CRC32C crc, ByteBuffer b, int off, int length) {
        if (length == 0) {
            return;
        }
        int position = b.position();
        int limit = b.limit();
        b.limit(off + length).position(off);
        crc.update(b);
        b.limit(limit).position(position);
    }

    /** The received CRC field (least-significant byte first on the wire). */
    public static int crcField(ByteBuffer b, int off) {
        return Be.le32(b, off);
    }
}
