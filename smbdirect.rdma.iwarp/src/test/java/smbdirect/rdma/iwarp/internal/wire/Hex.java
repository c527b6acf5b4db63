package smbdirect.rdma.iwarp.internal.wire;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Test helper: bytes from and to spaced hex. */
public final class Hex {

    private Hex() {
    }

    public static byte[] bytes(String spacedHex) {
        return HexFormat.of().parseHex(spacedHex.replaceAll("\\s+", ""));
    }

    /** A direct buffer holding the bytes, position 0, limit = length. */
    public static ByteBuffer buffer(String spacedHex) {
        byte[] b = bytes(spacedHex);
        return ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    public static String of(ByteBuffer b, int off, int length) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            if (i > 0) {
                s.append(' ');
            }
            s.append(String.format("%02x", b.get(off + i) & 0xFF));
        }
        return s.toString();
    }
}
