package smbdirect.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/** The perf workload end to end over the engine on a threaded mock fabric. */
class PerfOverEngineTest {

    private MockFabric fabric;
    private ScheduledExecutorService timers;
    private SmbDirectEngine engine;
    private MockProvider device;

    @BeforeEach
    void start() {
        fabric = MockFabric.builder().name("perf").mode(DeliveryMode.THREADED).build();
        device = fabric.provider("dev");
        timers = Executors.newSingleThreadScheduledExecutor();
        engine = new SmbDirectEngine(device, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
    }

    @AfterEach
    void stop() throws Exception {
        engine.shutdown(smbdirect.api.CloseReason.of(smbdirect.api.CloseReason.Kind.SHUTDOWN, "test over"))
                .toCompletableFuture().get();
        timers.shutdownNow();
        fabric.close();
    }

    private PerfOptions options(String... args) {
        List<String> list = new java.util.ArrayList<>(List.of(args));
        list.add("--local");
        list.add(device.address().getHostAddress());
        return PerfOptions.parse(list);
    }

    @Test
    void sendRunIsConfirmedByTheServerWithEveryMessageAndByte() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "500", "--size", "3000", "--depth", "8"));
        assertEquals(500, r.messages());
        assertEquals(1_500_000, r.bytes());
        assertEquals("server confirmed 500 messages, 1500000 bytes", r.confirmation());
        assertTrue(r.p50Nanos() > 0 && r.p99Nanos() >= r.p50Nanos(), r.format());
        assertTrue(r.format().contains("throughput"), r.format());
    }

    @Test
    void reportsWhatItsThreadsUsedWhileMeasuringAndTheBusiestThread() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "3000", "--size", "64k", "--depth", "8"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Java threads (\\d+\\.\\d\\d) cores; busiest (.+) "
                + "(\\d+\\.\\d\\d) of a core \\(user (\\d+\\.\\d\\d), system (\\d+\\.\\d\\d)\\)").matcher(r.cpu());
        assertTrue(m.matches(), r.cpu());
        double total = Double.parseDouble(m.group(1));
        double busiest = Double.parseDouble(m.group(3));
        double user = Double.parseDouble(m.group(4));
        double system = Double.parseDouble(m.group(5));
        assertTrue(busiest > 0 && busiest <= 1.05, "one thread uses at most one core: " + r.cpu());
        assertTrue(total >= busiest - 0.01, "all threads use at least the busiest one's share: " + r.cpu());
        assertEquals(busiest, user + system, 0.015, "the busiest thread's share is its user and system time: " + r.cpu());
        assertTrue(r.format().contains("\n  cpu: " + r.cpu() + "\n"), r.format());
    }

    @Test
    void pingpongMeasuresRoundTripsOfEveryEcho() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "200", "--direction", "pingpong", "--depth", "4"));
        assertEquals("server echoed 200 of 200 messages", r.confirmation());
        assertEquals("round-trip", r.latencyKind());
        assertTrue(r.p50Nanos() > 0, r.format());
    }

    @Test
    void receiveRunCountsWhatTheServerStreamed() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "300", "--direction", "receive"));
        assertEquals(300, r.messages());
        assertEquals("server sent 300 messages, all received", r.confirmation());
        assertEquals(-1, r.p50Nanos(), "no latency for a stream from the server");
    }

    @Test
    void durationRunStopsAfterTheDuration() throws Exception {
        long start = System.nanoTime();
        PerfResult r = Perf.run(engine, options("--duration", "300ms", "--direction", "receive"));
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(r.messages() > 0, r.format());
        assertTrue(elapsedMillis >= 300 && elapsedMillis < 30_000, "took " + elapsedMillis + " ms");
    }

    @Test
    @Timeout(60)
    void aStopBeforeTheFirstMessageEndsTheRunAfterTheFirstWindowWithEveryByteConfirmed() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "1000000", "--size", "1000", "--depth", "8"),
                CompletableFuture.completedFuture(null));
        assertTrue(r.messages() <= 8, "only the first window went out: " + r.format());
        assertEquals("server confirmed " + r.messages() + " messages, " + r.messages() * 1000 + " bytes",
                r.confirmation());
    }

    @Test
    @Timeout(60)
    void aStopDuringACountedRunEndsItEarlyWithEveryByteConfirmed() throws Exception {
        CompletableFuture<Void> stop = new CompletableFuture<>();
        timers.schedule(() -> stop.complete(null), 200, TimeUnit.MILLISECONDS);
        PerfResult r = Perf.run(engine, options("--count", "1000000000", "--size", "1000", "--depth", "8"), stop);
        assertTrue(r.messages() > 0 && r.messages() < 1_000_000_000L, r.format());
        assertEquals(r.messages() * 1000, r.bytes());
        assertEquals("server confirmed " + r.messages() + " messages, " + r.bytes() + " bytes", r.confirmation());
    }

    @Test
    @Timeout(60)
    void aStopDuringAReceiveStreamEndsItWithEverythingTheServerSentReceived() throws Exception {
        CompletableFuture<Void> stop = new CompletableFuture<>();
        timers.schedule(() -> stop.complete(null), 200, TimeUnit.MILLISECONDS);
        PerfResult r = Perf.run(engine, options("--duration", "10m", "--direction", "receive"), stop);
        assertTrue(r.messages() > 0, r.format());
        assertEquals("server sent " + r.messages() + " messages, all received", r.confirmation());
    }

    @Test
    void rdmaWriteRunKeepsDepthWritesInFlightAndTheServerFindsTheClientsBytes() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "300", "--size", "64k", "--depth", "4", "--direction",
                "write"));
        assertEquals(300, r.messages());
        assertEquals(300L * 65536, r.bytes());
        assertTrue(r.confirmation().startsWith("server counted 300 RDMA Writes into its buffer, " + 300L * 65536
                + " bytes; its buffer equals the client's (CRC32C 0x"), r.confirmation());
        assertEquals("RDMA completion", r.latencyKind());
        assertTrue(r.p50Nanos() > 0, r.format());
        assertTrue(r.format().startsWith("perf: write 300 RDMA operations of 65536 B, depth 4 over dev"), r.format());
    }

    @Test
    void rdmaReadRunBringsTheServersBufferByteForByte() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "200", "--size", "100000", "--direction", "read"));
        assertEquals(200, r.messages());
        assertEquals(200L * 100_000, r.bytes());
        assertEquals("server counted 200 RDMA Reads from its buffer, " + 200L * 100_000 + " bytes; the buffer the last "
                + "Read filled equals the server's byte for byte", r.confirmation());
    }

    @Test
    @Timeout(60)
    void aStopDuringAnRdmaWriteRunEndsItWithTheServersBufferChecked() throws Exception {
        CompletableFuture<Void> stop = new CompletableFuture<>();
        timers.schedule(() -> stop.complete(null), 200, TimeUnit.MILLISECONDS);
        PerfResult r = Perf.run(engine, options("--duration", "10m", "--size", "8k", "--direction", "write"), stop);
        assertTrue(r.messages() > 0, r.format());
        assertTrue(r.confirmation().startsWith("server counted " + r.messages() + " RDMA Writes into its buffer, "
                + r.bytes() + " bytes; its buffer equals the client's"), r.confirmation());
    }

    @Test
    void aWarmUpRunsTheWorkloadButOnlyWhatFollowsItIsCounted() throws Exception {
        for (String direction : new String[] {"send", "receive", "write"}) {
            PerfResult r = Perf.run(engine, options("--warmup", "300ms", "--duration", "300ms", "--size", "1000",
                    "--direction", direction));
            long total = Long.parseLong(r.confirmation().replaceAll("^\\D*(\\d+).*$", "$1"));
            assertTrue(r.messages() > 0 && r.messages() < total, direction + ": " + r.messages()
                    + " counted of " + total + " moved: " + r.confirmation());
            assertEquals(r.messages() * 1000, r.bytes(), direction);
            assertTrue(r.workload().contains("after 300 ms of warm-up"), r.workload());
        }
    }

    @Test
    void anRdmaTransferLargerThanMaxReadWriteSizeIsRefusedByName() {
        PerfException e = assertThrows(PerfException.class, () -> Perf.run(engine, options("--size", "16m", "--count",
                "1", "--direction", "read")));
        assertTrue(e.getMessage().startsWith("--size 16777216 exceeds the largest RDMA transfer of the connection "
                + "(MaxReadWriteSize "), e.getMessage());
    }

    @Test
    void messageLargerThanThePeerReassemblesIsRefusedByName() {
        PerfException e = assertThrows(PerfException.class, () -> Perf.run(engine, options("--size", "2m", "--count", "1")));
        assertEquals("--size 2097152 exceeds what the peer reassembles (MaxFragmentedSize 1048576)", e.getMessage());
    }

    @Test
    void withoutAnyKnownLocalAddressTheRunSaysWhatToPass() {
        PerfException e = assertThrows(PerfException.class, () -> Perf.run(engine, PerfOptions.parse(List.of())));
        assertTrue(e.getMessage().startsWith("no local RDMA address known: pass --local IP"), e.getMessage());
    }

    @Test
    void aNamedProviderIsUsedAndAnUnknownOneIsRefusedByName() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "50", "--provider", device.name()));
        assertEquals(device.name(), r.provider());
        assertEquals("server confirmed 50 messages, 409600 bytes", r.confirmation());
        PerfException e = assertThrows(PerfException.class, () -> Perf.run(engine, options("--provider", "iwarp")));
        assertTrue(e.getMessage().startsWith("cannot listen on ") && e.getMessage().contains("'iwarp'"),
                e.getMessage());
        PerfException serve = assertThrows(PerfException.class, () -> Perf.serve(engine,
                PerfOptions.parse(List.of("--provider", "iwarp", "--listen", "127.0.0.1:5445"))));
        assertTrue(serve.getMessage().contains("no RDMA provider named 'iwarp'"), serve.getMessage());
    }

    /**
     * The server's end stopped mid-run: every workload ends with the peer's disconnect told the same
     * way, whether a message or RDMA operation was in flight (it fails with the connection's close)
     * or the disconnect's own report came first.
     */
    @ParameterizedTest
    @ValueSource(strings = {"send", "receive", "pingpong", "write", "read"})
    @Timeout(120)
    void aServerThatGoesAwayMidRunEndsTheRunWithThePeersDisconnectToldOneWay(String direction) throws Exception {
        for (int round = 0; round < 5; round++) {
            MockProvider serverDevice = fabric.provider("srv" + round);
            SmbDirectEngine serverEngine = new SmbDirectEngine(serverDevice, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            Perf.serve(serverEngine, new InetSocketAddress(serverDevice.address(), 5449));
            timers.schedule(() -> serverEngine.shutdown(smbdirect.api.CloseReason.of(
                    smbdirect.api.CloseReason.Kind.SHUTDOWN, "server stopped")), 150 + 40 * round,
                    TimeUnit.MILLISECONDS);
            PerfException e = assertThrows(PerfException.class, () -> Perf.run(engine, PerfOptions.parse(List.of(
                    "--connect", serverDevice.address().getHostAddress() + ":5449", "--duration", "10m", "--size",
                    "16k", "--depth", "8", "--direction", direction))));
            assertTrue(e.getMessage().matches("connection \\d+ closed during the run: PEER_DISCONNECT: .*"),
                    "round " + round + ": " + e.getMessage());
        }
    }

    @Test
    void serverEndServesARemoteClient() throws Exception {
        SmbDirectListener server = Perf.serve(engine, new InetSocketAddress(device.address(), 5445));
        try {
            PerfResult r = Perf.run(engine, PerfOptions.parse(List.of("--connect",
                    device.address().getHostAddress() + ":5445", "--count", "100")));
            assertEquals("server confirmed 100 messages, 819200 bytes", r.confirmation());
        } finally {
            server.close().toCompletableFuture().get();
        }
    }

    @Test
    @Timeout(120)
    void severalConnectionsEachRunTheWorkloadAndTheSumAddsThemInEveryDirection() throws Exception {
        for (String direction : List.of("send", "receive", "pingpong", "write", "read")) {
            PerfResult r = Perf.run(engine, options("--connections", "3", "--count", "40", "--size", "4k", "--depth",
                    "4", "--direction", direction));
            assertEquals(3, r.streams().size(), direction + ": " + r.format());
            long messages = 0;
            long bytes = 0;
            long longest = 0;
            java.util.Set<String> locals = new java.util.HashSet<>();
            for (PerfResult one : r.streams()) {
                assertEquals(40, one.messages(), direction + ": each connection runs the whole workload\n" + r.format());
                assertEquals(40 * 4096, one.bytes(), direction);
                assertTrue(one.streams().isEmpty());
                locals.add(one.local());
                messages += one.messages();
                bytes += one.bytes();
                longest = Math.max(longest, one.elapsedNanos());
            }
            assertEquals(3, locals.size(), direction + ": three connections, three local ends: " + locals);
            assertEquals(messages, r.messages(), direction);
            assertEquals(bytes, r.bytes(), direction);
            assertEquals(longest, r.elapsedNanos(), direction + ": the sum runs as long as the longest connection");
            String text = r.format();
            assertTrue(text.contains("\n  [  1] ") && text.contains("\n  [  3] ") && text.contains("\n  [SUM] "), text);
            assertEquals(1, text.split("throughput", -1).length - 1, "one throughput line, the sum's: " + text);
            assertTrue(text.contains(String.format(java.util.Locale.ROOT, "throughput %.1f MB/s",
                    r.megabytesPerSecond())), text);
            if (!direction.equals("receive")) {
                assertTrue(r.p50Nanos() > 0 && r.p99Nanos() >= r.p50Nanos(), direction + ": " + text);
            }
        }
    }

    @Test
    void oneConnectionPrintsNoPerConnectionTable() throws Exception {
        PerfResult r = Perf.run(engine, options("--count", "50"));
        assertTrue(r.streams().isEmpty());
        assertTrue(!r.format().contains("[SUM]"), r.format());
    }

    @Test
    void theServerReportsEachConnectionsRun() throws Exception {
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        PerfServer server = new PerfServer(lines::add);
        SmbDirectListener listener = Perf.serve(engine, PerfOptions.parse(List.of("--listen",
                device.address().getHostAddress() + ":5446")), server);
        try {
            PerfResult r = Perf.run(engine, PerfOptions.parse(List.of("--connect",
                    device.address().getHostAddress() + ":5446", "--count", "30", "--size", "1000", "--connections",
                    "2")));
            assertEquals(2, r.streams().size(), r.format());
            assertEquals(2, server.runs());
            assertEquals(2, lines.size(), lines.toString());
            java.util.Set<String> connections = new java.util.HashSet<>();
            for (String line : lines) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "perf server: connection (\\d+) from .+: 30 messages, 30000 bytes received in \\d+\\.\\d{3} s "
                                + "\\(\\d+\\.\\d MB/s since its start\\)").matcher(line);
                assertTrue(m.matches(), line);
                connections.add(m.group(1));
            }
            assertEquals(2, connections.size(), "one line per connection: " + lines);
        } finally {
            listener.close().toCompletableFuture().get();
        }
    }

    /** The RDMA bytes the engine moved so far (the client's operations: the only ones on this fabric). */
    private long[] rdmaCounters() {
        smbdirect.api.dto.CountersDTO c = engine.getTransportDTO().providers[0].counters;
        return new long[] {c.rdmaWrites, c.rdmaReads, c.rdmaBytes};
    }

    @Test
    @Timeout(120)
    void theServersSummaryCountsTheBytesEachDirectionMovedAsTheEngineMovedThem() throws Exception {
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        PerfServer server = new PerfServer(lines::add);
        String at = device.address().getHostAddress() + ":5447";
        SmbDirectListener listener = Perf.serve(engine, PerfOptions.parse(List.of("--listen", at)), server);
        try {
            long[] before = rdmaCounters();
            PerfResult write = Perf.run(engine, PerfOptions.parse(List.of("--connect", at, "--count", "37", "--size",
                    "48k", "--depth", "4", "--direction", "write")));
            long[] afterWrite = rdmaCounters();
            PerfResult read = Perf.run(engine, PerfOptions.parse(List.of("--connect", at, "--count", "23", "--size",
                    "100000", "--depth", "3", "--direction", "read")));
            long[] afterRead = rdmaCounters();
            PerfResult send = Perf.run(engine, PerfOptions.parse(List.of("--connect", at, "--count", "50", "--size",
                    "3000")));
            PerfResult receive = Perf.run(engine, PerfOptions.parse(List.of("--connect", at, "--count", "40", "--size",
                    "2000", "--direction", "receive")));
            PerfResult pingpong = Perf.run(engine, PerfOptions.parse(List.of("--connect", at, "--count", "30",
                    "--size", "500", "--direction", "pingpong")));

            // what the engine moved by RDMA, counted by the transport, not by perf
            long written = afterWrite[2] - before[2];
            long readBytes = afterRead[2] - afterWrite[2];
            assertEquals(37, afterWrite[0] - before[0]);
            assertEquals(23, afterRead[1] - afterWrite[1]);
            assertEquals(37L * 48 * 1024, written);
            assertEquals(23L * 100_000, readBytes);
            assertEquals(37, server.rdmaWrites());
            assertEquals(written, server.rdmaWriteBytes());
            assertEquals(23, server.rdmaReads());
            assertEquals(readBytes, server.rdmaReadBytes());
            // the clients' figures agree with the server's
            assertEquals(written, write.bytes());
            assertEquals(readBytes, read.bytes());
            assertTrue(write.format().contains("  server counted 37 RDMA Writes into its buffer, " + written + " bytes; "),
                    write.format());
            assertTrue(read.format().contains("  server counted 23 RDMA Reads from its buffer, " + readBytes + " bytes; "),
                    read.format());
            // messages: received (send runs), sent (streams and echoes)
            assertEquals(50L * 3000, send.bytes());
            assertEquals(50L * 3000, server.runBytes());
            assertEquals(40L * 2000 + 30L * 500, server.sentBytes(), "the stream and the echoes");
            assertEquals(70, server.sentMessages());
            assertEquals(40L * 2000, receive.bytes());
            assertEquals(30L * 500, pingpong.bytes());
            assertEquals(String.format(java.util.Locale.ROOT, "perf server: 3 runs confirmed, 50 messages, 150000 bytes "
                    + "received on 5 connections; 70 messages, 95000 bytes sent; RDMA Writes into its buffers 37, %d "
                    + "bytes; RDMA Reads from them 23, %d bytes", written, readBytes), server.summary());
            assertTrue(lines.stream().anyMatch(l -> l.matches("perf server: connection \\d+ from .+: 37 RDMA Writes into "
                    + "its buffer, " + written + " bytes in \\d+\\.\\d{3} s; CRC32C 0x[0-9a-f]{8} over 49152 bytes of its "
                    + "buffer")), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.contains(": 23 RDMA Reads from its buffer, " + readBytes + " bytes")),
                    lines.toString());
        } finally {
            listener.close().toCompletableFuture().get();
        }
    }
}
