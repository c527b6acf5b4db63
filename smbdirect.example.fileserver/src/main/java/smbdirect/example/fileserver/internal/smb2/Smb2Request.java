package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One SMB2 request of a (possibly compound) message: its header and bounds-checked access to its
 * body. Body offsets are counted from the start of the body (byte 64 of the request), and offsets
 * the client gives in fields (NameOffset, DataOffset, ...) from the start of the request's header,
 * as [MS-SMB2] 2.2 defines them. A field the client gave that points outside the request is
 * STATUS_INVALID_PARAMETER.
 */
public final class Smb2Request {

    private final ByteBuffer message;
    private final int start;
    private final int length;
    private final Smb2Header header;

    /**
     * @param message the whole received message, little-endian (a private copy)
     * @param start where this request's header starts
     * @param length this request's length (to the next header, or to the end of the message)
     */
    public Smb2Request(ByteBuffer message, int start, int length, Smb2Header header) {
        this.message = message;
        this.start = start;
        this.length = length;
        this.header = header;
    }

    public Smb2Header header() {
        return header;
    }

    public int command() {
        return header.command();
    }

    /** This request's bytes, header included (for the pre-authentication hash). */
    public ByteBuffer bytes() {
        return message.duplicate().position(start).limit(start + length).slice();
    }

    /** The body's length in bytes. */
    public int bodyLength() {
        return length - Smb2.HEADER_SIZE;
    }

    /** Checks the body's StructureSize ([MS-SMB2] 3.3.5.2.6) and that its fixed part is present. */
    public void checkStructureSize(int expected) throws SmbStatusException {
        if (bodyLength() < 2) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "no body");
        }
        int size = u16(0);
        if (size != expected) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "StructureSize=" + size + ": not " + expected);
        }
        if (bodyLength() < (expected & ~1)) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER,
                    "body of " + bodyLength() + " bytes: shorter than its fixed part of " + (expected & ~1));
        }
    }

    private int at(int bodyOffset, int size) throws SmbStatusException {
        if (bodyOffset < 0 || bodyOffset + size > bodyLength()) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER,
                    "body field at " + bodyOffset + " (" + size + " bytes) beyond the body of " + bodyLength());
        }
        return start + Smb2.HEADER_SIZE + bodyOffset;
    }

    public int u8(int bodyOffset) throws SmbStatusException {
        return message.get(at(bodyOffset, 1)) & 0xFF;
    }

    public int u16(int bodyOffset) throws SmbStatusException {
        return message.getShort(at(bodyOffset, 2)) & 0xFFFF;
    }

    public int u32(int bodyOffset) throws SmbStatusException {
        return message.getInt(at(bodyOffset, 4));
    }

    public long u64(int bodyOffset) throws SmbStatusException {
        return message.getLong(at(bodyOffset, 8));
    }

    /**
     * The bytes a client's (offset, length) pair names, offset counted from the header. A zero
     * length is an empty buffer whatever the offset.
     *
     * @param field the field's name, for the error
     */
    public ByteBuffer region(String field, long offsetFromHeader, long len) throws SmbStatusException {
        if (len == 0) {
            return ByteBuffer.allocate(0).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        }
        if (offsetFromHeader < Smb2.HEADER_SIZE || len < 0 || offsetFromHeader + len > length) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, field + " offset " + offsetFromHeader + " length "
                    + len + ": outside the request of " + length + " bytes");
        }
        return message.duplicate().position(start + (int) offsetFromHeader).limit(start + (int) (offsetFromHeader + len))
                .slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    /** A UTF-16LE string a client's (offset, length) pair names. */
    public String utf16(String field, long offsetFromHeader, long len) throws SmbStatusException {
        if (len % 2 != 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, field + " length " + len + ": odd for UTF-16");
        }
        ByteBuffer b = region(field, offsetFromHeader, len);
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_16LE);
    }

    @Override
    public String toString() {
        return header.toString();
    }
}
