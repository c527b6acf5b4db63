package smbdirect.impl.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.function.IntFunction;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

/** Test helpers: hex conversion and buffers of every kind and byte order. */
final class Bytes {

    private Bytes() {
    }

    static byte[] hex(String spaced) {
        return HexFormat.of().parseHex(spaced.replace(" ", ""));
    }

    static String hex(ByteBuffer b, int off, int len) {
        byte[] out = new byte[len];
        b.get(off, out);
        return HexFormat.ofDelimiter(" ").withUpperCase().formatHex(out);
    }

    static String spaced(String hexWithSpaces) {
        return hexWithSpaces.toUpperCase();
    }

    /** A heap little-endian buffer holding exactly {@code bytes}. */
    static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes);
    }

    /** A buffer of {@code size} bytes pre-filled with 0xAA so unwritten bytes show. */
    static ByteBuffer dirty(IntFunction<ByteBuffer> factory, int size) {
        ByteBuffer b = factory.apply(size);
        for (int i = 0; i < b.limit(); i++) {
            b.put(i, (byte) 0xAA);
        }
        return b;
    }

    /** Heap/direct buffers in both byte orders, named for the test report. */
    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("heap big-endian", (IntFunction<ByteBuffer>) n -> ByteBuffer.allocate(n).order(ByteOrder.BIG_ENDIAN)),
                Arguments.of("heap little-endian", (IntFunction<ByteBuffer>) n -> ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN)),
                Arguments.of("direct big-endian", (IntFunction<ByteBuffer>) n -> ByteBuffer.allocateDirect(n).order(ByteOrder.BIG_ENDIAN)),
                Arguments.of("direct little-endian", (IntFunction<ByteBuffer>) n -> ByteBuffer.allocateDirect(n).order(ByteOrder.LITTLE_ENDIAN)),
                Arguments.of("heap slice at odd offset", (IntFunction<ByteBuffer>) n -> ByteBuffer.allocate(n + 7).position(7).slice()));
    }
}
