package smbdirect.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;


/**
 * A handler that throws under a {@link StandaloneTransport} built without
 * {@code Builder.callbackFailures} leaves a trace a person sees: the log line, or, when SLF4J has no
 * binding, the failure and its stack trace on standard error, once.
 */
class UnloggedCallbackFailuresTest {

    @Test
    void withoutABindingTheApplicationsStandardErrorShowsTheFailureOnceWithItsStackTrace(@TempDir Path dir)
            throws Exception {
        List<String> entries = DeclaredClassPath.entries();
        assertFalse(entries.stream().anyMatch(e -> e.contains("slf4j-simple") || e.contains("logback")),
                "the runtime class path has no SLF4J binding: " + entries);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = DeclaredClassPath.application(entries, UnboundLoggingApplication.class)
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the application ends");
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), stdout + stderr);
        assertTrue(stdout.contains("client connection ended: "), stdout);
        assertEquals(1, count(stderr, "smbdirect: ConnectionHandler.onMessage of connection "), stderr);
        assertEquals(1, stderr.lines().filter(l -> l.equals("java.lang.AssertionError: the server's assertion about"
                + " message 1")).count(), "the stack trace, once: " + stderr);
        assertTrue(stderr.contains("at smbdirect.standalone.UnboundLoggingApplication$"), "the stack trace: " + stderr);
        assertTrue(stderr.contains("the connection closed (HANDLER_FAILED)"), stderr);
    }

    @Test
    void withABindingNothingIsPrintedTheLogReportsIt() {
        assertFalse(UnloggedCallbackFailures.noLoggingBinding(LoggerFactory.getILoggerFactory()),
                "the tests run with slf4j-simple");
        assertTrue(UnloggedCallbackFailures.noLoggingBinding(new NOPLoggerFactory()));
        assertEquals(null, UnloggedCallbackFailures.forThisClassPath());
    }

    @Test
    void thePrinterWritesTheCallbackTheConnectionAndTheStackTrace() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new UnloggedCallbackFailures(new PrintStream(bytes, true, StandardCharsets.UTF_8))
                .accept(new CallbackFailure("SendCompletion.sendComplete", 42, new IllegalStateException("bug")));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("smbdirect: SendCompletion.sendComplete of connection 42 threw"
                + " java.lang.IllegalStateException: bug; the connection closed (HANDLER_FAILED)"), text);
        assertTrue(text.contains("at smbdirect.standalone.UnloggedCallbackFailuresTest."), text);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
