package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's perf between two processes over the software iWARP provider: {@code perf --provider
 * iwarp --listen 127.0.0.1:PORT} in one runtime process, {@code perf --provider iwarp --connect
 * 127.0.0.1:PORT} in another, both started from the same directory (a free port instead of 5445,
 * so that concurrent builds do not collide).
 */
class PerfBetweenProcessesIT {

    private static final Pattern SENT = Pattern.compile("\n  (\\d+) messages, (\\d+) bytes in ");
    private static final Pattern CONFIRMED = Pattern.compile("server confirmed (\\d+) messages, (\\d+) bytes");

    @TempDir
    Path dir;

    /**
     * The README's server end, started as written (no Web Console port given, so it opens none) with
     * the runtime's log ({@code -v}: the tests read its lines), once it listens.
     */
    private RuntimeProcess perfServer(String address) throws Exception {
        RuntimeProcess server = RuntimeProcess.startAsWritten(dir, "perf", "--provider", "iwarp", "--listen", address,
                "-v");
        try {
            server.awaitOutput("perf server listening on /" + address + " over iwarp", Duration.ofSeconds(90));
            return server;
        } catch (Exception | AssertionError e) {
            server.close();
            throw e;
        }
    }

    /** The README's client end, from the same directory, with {@code options}. */
    private RuntimeProcess perfClient(String address, String... options) throws Exception {
        String[] args = new String[5 + options.length];
        System.arraycopy(new String[] {"perf", "--provider", "iwarp", "--connect", address}, 0, args, 0, 5);
        System.arraycopy(options, 0, args, 5, options.length);
        return RuntimeProcess.startAsWritten(dir, args);
    }

    /**
     * Checks that the client's result says it sent whole messages of {@code size} bytes and that the
     * server confirmed exactly those messages and bytes; returns the number of messages.
     */
    private static long everyByteConfirmed(String out, int size) {
        Matcher sent = SENT.matcher(out);
        Matcher confirmed = CONFIRMED.matcher(out);
        assertTrue(sent.find() && confirmed.find(), out);
        assertEquals(Long.parseLong(sent.group(1)) * size, Long.parseLong(sent.group(2)), out);
        assertEquals(sent.group(1), confirmed.group(1), "messages the server confirmed:\n" + out);
        assertEquals(sent.group(2), confirmed.group(2), "bytes the server confirmed:\n" + out);
        return Long.parseLong(sent.group(1));
    }

    @Test
    void twoPerfProcessesInOneHomeRunOverIwarpAndTheServerConfirmsEveryByte() throws Exception {
        String address = "127.0.0.1:" + RuntimeProcess.freePort();
        try (RuntimeProcess server = perfServer(address);
                RuntimeProcess client = perfClient(address, "--count", "3000", "--size", "16k")) {
            assertTrue(client.process.waitFor(120, TimeUnit.SECONDS), "client did not finish:\n" + client.output());
            String out = client.output();
            assertEquals(0, client.process.exitValue(), out);
            assertTrue(out.contains("perf: send 3000 messages of 16384 B, depth 16 over iwarp"), out);
            assertEquals(3000, everyByteConfirmed(out, 16384), out);
            assertTrue(server.output().contains("Jetty not started (HTTP and HTTPS disabled)"), server.output());
            assertEquals(0, server.terminate(Duration.ofSeconds(30)), server.output());
            assertTrue(server.output().contains("perf server: 1 runs confirmed, 3000 messages, " + 3000L * 16384
                    + " bytes received on 1 connections; 0 messages, 0 bytes sent; RDMA Writes into its buffers 0, 0 "
                    + "bytes; RDMA Reads from them 0, 0 bytes"), server.output());
        }
        // a batch run writes nothing to etc/ and keeps no framework state in data/
        assertFalse(Files.exists(dir.resolve("etc/smbdirect.rdma.iwarp.cfg")), "perf wrote its iWARP configuration");
        assertFalse(Files.exists(dir.resolve("data/cache")), "perf kept framework state in the home");
    }

    /**
     * {@code --direction write} and {@code read} between the two processes: RDMA Writes and Reads of
     * registered buffers through the engine, the FPDU size printed, the end state checked byte for
     * byte (the server's CRC32C of what the Writes left, the client's check of what the Reads
     * brought); the client prints only its own lines, the server's count of the RDMA bytes among
     * them, and the server's summary counts the same bytes in each direction.
     */
    @Test
    void rdmaWriteAndReadRunsBetweenTwoProcessesPrintTheFpduSizeAndCheckEveryByte() throws Exception {
        String address = "127.0.0.1:" + RuntimeProcess.freePort();
        try (RuntimeProcess server = perfServer(address)) {
            for (String direction : new String[] {"write", "read"}) {
                try (RuntimeProcess client = perfClient(address, "--direction", direction, "--size", "1m", "--count",
                        "300")) {
                    assertTrue(client.process.waitFor(120, TimeUnit.SECONDS), "client did not finish:\n" + client.output());
                    String out = client.output();
                    assertEquals(0, client.process.exitValue(), out);
                    assertTrue(out.startsWith("perf: " + direction + " 300 RDMA operations of 1048576 B, depth 16 "
                            + "over iwarp, 127.0.0.1:"), out);
                    assertTrue(out.contains("\n  iwarp: CRC32C on; FPDUs of 65,480 B sent (the path's TCP MSS); IRD "),
                            "the FPDU size of loopback:\n" + out);
                    assertTrue(out.contains("  300 RDMA " + direction + "s, " + 300L * 1048576 + " bytes in "), out);
                    assertTrue(out.contains(direction.equals("write")
                            ? "\n  server counted 300 RDMA Writes into its buffer, " + 300L * 1048576
                                    + " bytes; its buffer equals the client's (CRC32C 0x"
                            : "\n  server counted 300 RDMA Reads from its buffer, " + 300L * 1048576
                                    + " bytes; the buffer the last Read filled equals the server's byte for byte"), out);
                    for (String line : out.split("\n")) {
                        assertTrue(line.startsWith("perf:") || line.startsWith("  "), "a line not of perf's own: "
                                + line + "\n" + out);
                    }
                }
            }
            assertEquals(0, server.terminate(Duration.ofSeconds(30)), server.output());
            assertTrue(server.output().contains("perf server: 2 runs confirmed, 0 messages, 0 bytes received on 2 "
                    + "connections; 0 messages, 0 bytes sent; RDMA Writes into its buffers 300, " + 300L * 1048576
                    + " bytes; RDMA Reads from them 300, " + 300L * 1048576 + " bytes"), server.output());
        }
    }

    @Test
    void sigtermEndsALongClientRunEarlyWithItsFiguresAndEveryByteConfirmed() throws Exception {
        String address = "127.0.0.1:" + RuntimeProcess.freePort();
        try (RuntimeProcess server = perfServer(address);
                RuntimeProcess client = perfClient(address, "--duration", "10m", "--size", "16k")) {
            server.awaitOutput("established: MaxSendSize=", Duration.ofSeconds(90)); // the client is connected
            assertEquals(0, client.terminate(Duration.ofSeconds(60)), "SIGTERM mid-run:\n" + client.output());
            String out = client.output();
            assertTrue(out.contains("perf: stopped early by SIGTERM; the figures cover the run until then"), out);
            assertTrue(everyByteConfirmed(out, 16384) > 0, out);
            assertEquals(0, server.terminate(Duration.ofSeconds(30)), server.output());
            assertTrue(server.output().contains("perf server: 1 runs confirmed"), server.output());
        }
    }

    @Test
    void anIwarpConfigurationInEtcIsUsedAsItIsAndARefusedListenNamesTheAttribute() throws Exception {
        int port = RuntimeProcess.freePort();
        Files.createDirectories(dir.resolve("etc"));
        Files.writeString(dir.resolve("etc/smbdirect.rdma.iwarp.cfg"), "listenAddresses = 127.0.0.1:" + (port + 1)
                + "\nmaxFpduSize = 4096\n");
        try (RuntimeProcess server = RuntimeProcess.start(dir, "perf", "--provider", "iwarp", "--listen",
                "127.0.0.1:" + port, "--verbose")) {
            assertTrue(server.process.waitFor(120, TimeUnit.SECONDS), "perf did not finish:\n" + server.output());
            String out = server.output();
            assertEquals(1, server.process.exitValue(), out);
            assertTrue(out.contains("is not allowed by listenAddresses"), out);
            assertTrue(out.contains("maxFpduSize 4096"), "the settings of etc/ are in force:\n" + out);
        }
    }
}
