package smbdirect.testsupport;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The test JVM's own standard error: what is written here reaches the build's console at once,
 * also where the build sends test output to files (surefire and failsafe show a forked JVM's
 * native stderr). For the few lines a person must see: skips and their reasons, what an outside
 * judge checked. Thread-safe.
 */
final class Console {

    private static final PrintStream ERR = new PrintStream(new FileOutputStream(FileDescriptor.err), true,
            StandardCharsets.UTF_8);

    private Console() {
    }

    static void println(String line) {
        ERR.println(line);
    }
}
