package smbdirect.example.fileserver.internal.auth;

import java.io.ByteArrayOutputStream;

/**
 * The little of ASN.1 DER (X.690) that SPNEGO tokens use: one-byte tags, definite lengths of up
 * to four bytes, every element bounds-checked against its parent. Encoding writes minimal
 * lengths.
 */
final class Der {

    static final int SEQUENCE = 0x30;
    static final int OCTET_STRING = 0x04;
    static final int OID = 0x06;
    static final int ENUMERATED = 0x0A;
    static final int APPLICATION_0 = 0x60;

    private Der() {
    }

    /** Context-specific constructed tag [n] (explicit tagging). */
    static int context(int n) {
        return 0xA0 | n;
    }

    /** One element: its tag and where its contents lie in {@code data}. */
    record Element(int tag, byte[] data, int start, int end) {

        int length() {
            return end - start;
        }

        byte[] contents() {
            byte[] out = new byte[end - start];
            System.arraycopy(data, start, out, 0, out.length);
            return out;
        }

        /** A reader over the contents, for a constructed element. */
        Reader open() {
            return new Reader(data, start, end);
        }

        /** The one element inside this one (explicit tag): exactly one, filling the contents. */
        Element only(String what) throws BadTokenException {
            Reader r = open();
            Element e = r.next(what);
            r.expectEnd(what);
            return e;
        }

        Element expect(int expectedTag, String what) throws BadTokenException {
            if (tag != expectedTag) {
                throw new BadTokenException(String.format("%s: tag 0x%02X, expected 0x%02X", what, tag, expectedTag));
            }
            return this;
        }
    }

    /** Reads the elements between two offsets one after another. */
    static final class Reader {
        private final byte[] data;
        private int pos;
        private final int end;

        Reader(byte[] data, int start, int end) {
            this.data = data;
            this.pos = start;
            this.end = end;
        }

        static Reader of(byte[] data) {
            return new Reader(data, 0, data.length);
        }

        boolean hasNext() {
            return pos < end;
        }

        Element next(String what) throws BadTokenException {
            if (pos >= end) {
                throw new BadTokenException(what + ": missing (token ends at offset " + pos + ")");
            }
            int at = pos;
            int tag = data[pos++] & 0xFF;
            if ((tag & 0x1F) == 0x1F) {
                throw new BadTokenException(String.format("%s: multi-byte tag 0x%02X at offset %d", what, tag, at));
            }
            if (pos >= end) {
                throw new BadTokenException(what + ": no length byte at offset " + pos);
            }
            int first = data[pos++] & 0xFF;
            long length;
            if (first < 0x80) {
                length = first;
            } else {
                int n = first & 0x7F;
                if (n == 0) {
                    throw new BadTokenException(what + ": indefinite length at offset " + (pos - 1) + " (DER needs a definite one)");
                }
                if (n > 4) {
                    throw new BadTokenException(what + ": length of " + n + " bytes at offset " + (pos - 1));
                }
                if (end - pos < n) {
                    throw new BadTokenException(what + ": length cut at offset " + pos);
                }
                length = 0;
                for (int i = 0; i < n; i++) {
                    length = (length << 8) | (data[pos++] & 0xFF);
                }
            }
            if (length > end - pos) {
                throw new BadTokenException(what + ": length " + length + " at offset " + at + " runs past its container (" + (end - pos) + " bytes left)");
            }
            Element e = new Element(tag, data, pos, pos + (int) length);
            pos += (int) length;
            return e;
        }

        void expectEnd(String what) throws BadTokenException {
            if (pos != end) {
                throw new BadTokenException(what + ": " + (end - pos) + " unexpected bytes after it at offset " + pos);
            }
        }
    }

    /** Tag, minimal DER length, then the parts in order. */
    static byte[] tlv(int tag, byte[]... parts) {
        int length = 0;
        for (byte[] p : parts) {
            length += p.length;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(length + 6);
        out.write(tag);
        if (length < 0x80) {
            out.write(length);
        } else if (length <= 0xFF) {
            out.write(0x81);
            out.write(length);
        } else if (length <= 0xFFFF) {
            out.write(0x82);
            out.write(length >>> 8);
            out.write(length);
        } else {
            out.write(0x84);
            out.write(length >>> 24);
            out.write(length >>> 16);
            out.write(length >>> 8);
            out.write(length);
        }
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
