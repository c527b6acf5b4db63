package smbdirect.bench;

import java.nio.ByteBuffer;

/** Direct buffers filled with a repeating pattern. */
final class Buffers {

    private Buffers() {
    }

    static ByteBuffer pattern(int length) {
        ByteBuffer b = ByteBuffer.allocateDirect(length);
        for (int i = 0; i < length; i++) {
            b.put(i, (byte) (i * 31 + 7));
        }
        return b;
    }
}
