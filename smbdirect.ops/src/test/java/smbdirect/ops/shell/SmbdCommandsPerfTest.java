package smbdirect.ops.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/** {@code smbd:perf --connections N} prints a line per connection and their sum, as the batch mode does. */
class SmbdCommandsPerfTest {

    private MockFabric fabric;
    private ScheduledExecutorService timers;
    private SmbDirectEngine engine;
    private MockProvider device;

    @BeforeEach
    void start() {
        fabric = MockFabric.builder().name("shellperf").mode(DeliveryMode.THREADED).build();
        device = fabric.provider("dev");
        timers = Executors.newSingleThreadScheduledExecutor();
        engine = new SmbDirectEngine(device, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
    }

    @AfterEach
    void stop() throws Exception {
        engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test over")).toCompletableFuture().get();
        timers.shutdownNow();
        fabric.close();
    }

    @Test
    void severalConnectionsPrintALinePerConnectionAndTheirSum() throws Exception {
        SmbdCommands commands = new SmbdCommands(engine, null, null);
        String out = commands.perf("--connections", "3", "--count", "100", "--size", "2k", "--direction", "pingpong",
                "--local", device.address().getHostAddress());
        assertTrue(out.startsWith("perf: pingpong 100 messages of 2048 B, depth 16, on each of 3 connections over dev"),
                out);
        Pattern line = Pattern.compile("^  \\[ *(\\d+|SUM)\\] .* MB/s .* messages/s  stalls \\d+  p50 .+ p99 .+$",
                Pattern.MULTILINE);
        Matcher m = line.matcher(out);
        StringBuilder tags = new StringBuilder();
        while (m.find()) {
            tags.append(m.group(1)).append(' ');
        }
        assertEquals("1 2 3 SUM ", tags.toString(), out);
        assertTrue(out.contains("\n  300 messages, 614400 bytes in "), "the sum of the three: " + out);
    }

    @Test
    void aStoppedServerEndSummarisesTheRdmaBytesTheClientPrinted() throws Exception {
        SmbdCommands commands = new SmbdCommands(engine, null, null);
        String at = device.address().getHostAddress() + ":5450";
        String listening = commands.perf("--listen", at);
        assertTrue(listening.startsWith("perf server listening on /" + at), listening);
        String write = commands.perf("--connect", at, "--count", "12", "--size", "32k", "--direction", "write");
        String read = commands.perf("--connect", at, "--count", "5", "--size", "64k", "--direction", "read");
        assertTrue(write.contains("\n  12 RDMA writes, 393216 bytes in "), write);
        assertTrue(write.contains("\n  server counted 12 RDMA Writes into its buffer, 393216 bytes; "), write);
        assertTrue(read.contains("\n  5 RDMA reads, 327680 bytes in "), read);
        assertTrue(read.contains("\n  server counted 5 RDMA Reads from its buffer, 327680 bytes; "), read);
        String stopped = commands.perf("stop");
        assertEquals("1 perf server(s) stopped\n/" + at + ": perf server: 2 runs confirmed, 0 messages, 0 bytes received "
                + "on 2 connections; 0 messages, 0 bytes sent; RDMA Writes into its buffers 12, 393216 bytes; RDMA Reads "
                + "from them 5, 327680 bytes\n", stopped);
    }
}
