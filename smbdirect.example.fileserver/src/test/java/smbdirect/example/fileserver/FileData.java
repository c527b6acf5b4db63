package smbdirect.example.fileserver;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Data patterns, their digests, and the server's log captured while a test runs. */
final class FileData {

    private FileData() {
    }

    /**
     * {@code size} bytes of a pseudo-random pattern that depends on {@code seed}: no two runs of a
     * test look alike by chance.
     */
    static byte[] pattern(int size, long seed) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * What the logging (slf4j-simple writes to {@code System.err}) printed between the creation
     * and the close, still printed as well.
     */
    static final class LogCapture implements AutoCloseable {
        private final PrintStream original = System.err;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        LogCapture() {
            PrintStream tee = new PrintStream(new java.io.OutputStream() {
                @Override
                public void write(int b) {
                    synchronized (copy) {
                        copy.write(b);
                    }
                    original.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    synchronized (copy) {
                        copy.write(b, off, len);
                    }
                    original.write(b, off, len);
                }
            }, true, StandardCharsets.UTF_8);
            System.setErr(tee);
        }

        String text() {
            synchronized (copy) {
                return copy.toString(StandardCharsets.UTF_8);
            }
        }

        @Override
        public void close() {
            System.setErr(original);
        }
    }
}
