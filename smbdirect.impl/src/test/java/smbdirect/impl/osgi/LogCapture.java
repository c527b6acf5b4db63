package smbdirect.impl.osgi;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** What a component logs (slf4j-simple writes to System.err), for tests of its log lines. */
final class LogCapture {

    private LogCapture() {
    }

    /** Runs {@code action} and returns the lines it logged. */
    static List<String> logged(Runnable action) {
        PrintStream saved = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(saved);
        }
        return Arrays.stream(out.toString(StandardCharsets.UTF_8).split("\\R")).filter(s -> !s.isBlank()).toList();
    }
}
