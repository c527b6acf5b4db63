package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The appliance stopped with SIGTERM while a perf run streams 16 KiB messages into it over software
 * iWARP (two processes, as the README's perf between processes): the runtime drains the connection
 * instead of dropping it. It says so, closes the connection with SHUTDOWN once no message is half
 * received (each message is a dozen fragments, so a close at any other moment would drop one, and the
 * reason would say so), and exits 0; the peer sees an orderly disconnect.
 */
class DrainAtShutdownIT {

    private static final Pattern CLOSED = Pattern.compile(
            "connection \\d+ PASSIVE peer \\S+ closed from ESTABLISHED: ([^\\n]*)");

    @TempDir
    Path dir;

    @Test
    void sigtermDuringAPerfRunDrainsTheConnectionAndClosesItWithShutdownBetweenMessages() throws Exception {
        String address = "127.0.0.1:" + RuntimeProcess.freePort();
        try (RuntimeProcess server = RuntimeProcess.startAsWritten(dir, "perf", "--provider", "iwarp", "--listen",
                address, "-v")) {
            server.awaitOutput("perf server listening on /" + address + " over iwarp", Duration.ofSeconds(90));
            try (RuntimeProcess client = RuntimeProcess.startAsWritten(dir, "perf", "--provider", "iwarp", "--connect",
                    address, "--duration", "10m", "--size", "16k")) {
                server.awaitOutput("established: MaxSendSize=", Duration.ofSeconds(90)); // the run is under way

                assertEquals(0, server.terminate(Duration.ofSeconds(60)), "SIGTERM mid-run:\n" + server.output());
                String log = server.output();
                assertTrue(log.contains("draining 1 connection(s) for up to 10 s"), log);
                Matcher closed = CLOSED.matcher(log);
                assertTrue(closed.find(), "the perf connection's close:\n" + log);
                String reason = closed.group(1);
                assertTrue(reason.startsWith("SHUTDOWN: "), reason);
                assertFalse(reason.contains("partly sent"), "no message was cut: " + reason);
                assertFalse(log.contains("PROVIDER_GONE"), log);

                assertTrue(client.process.waitFor(60, TimeUnit.SECONDS), "the client ended:\n" + client.output());
                String out = client.output();
                assertTrue(out.contains("perf failed: connection 1 closed during the run: PEER_DISCONNECT: "),
                        "an orderly disconnect:\n" + out);
            }
        }
    }
}
