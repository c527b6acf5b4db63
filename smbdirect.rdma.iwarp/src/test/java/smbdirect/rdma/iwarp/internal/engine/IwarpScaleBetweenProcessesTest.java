package smbdirect.rdma.iwarp.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.IwarpStatistics;

/**
 * 1,000 SMB Direct connections over software iWARP between two processes (this JVM is the server,
 * {@link ScaleClientProcess} the client): a flood of half-open TCP connections first (the
 * pending-connection cap holds: never more than {@code maxPendingConnections} awaiting their MPA
 * Request), then 1,000 connections plus 20 more than the provider's {@code maxConnections} allows
 * (exactly 1,000 negotiate, the rest are refused, the cap holds throughout), each carrying its own
 * message echoed byte for byte; then the client is killed with SIGKILL with all of them open, and
 * the server is left with nothing: no connection of the engine or the provider, no endpoint, no
 * registration, no more file descriptors or threads than before. Prints connections per second and
 * memory and file descriptors per connection (line {@code SCALE} in the test's output).
 * {@code -Dsmbdirect.iwarp.scale=N} sets the number of connections.
 */
class IwarpScaleBetweenProcessesTest {

    private static final int CONNECTIONS = Integer.getInteger("smbdirect.iwarp.scale", 1000);
    private static final int BEYOND_CAP = 20;
    private static final int PENDING_CAP = 64;
    private static final int FLOOD = 200;
    private static final int MESSAGE = 3000;
    /** Connects in progress at once: below the pending cap, so that none is refused for it. */
    private static final int WINDOW = 32;
    private static final long LIMIT_SECONDS = 240;

    /** Engine settings that keep each connection small (as the engine's scale test): 16 credits of 1,364 bytes. */
    static TransportSettings settings(int connections) {
        return TransportSettings.builder().receiveCreditMax(16).sendCreditTarget(16).maxSendSize(1364)
                .maxReceiveSize(1364).maxConnectionsPerListener(connections + BEYOND_CAP)
                .maxNegotiatingPerListener(connections + BEYOND_CAP).receiveBufferBudget(1L << 32).build();
    }

    /** Echoes every message, a copy of its bytes. */
    private static final class EchoServer implements ConnectionHandler {
        final AtomicInteger echoed = new AtomicInteger();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer copy = ByteBuffer.allocateDirect(message.length());
            copy.put(message.payload().slice(message.payload().position(), message.length())).flip();
            connection.send(copy, (m, failure) -> {
                if (failure == null) {
                    echoed.incrementAndGet();
                }
            });
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
        }
    }

    /** What the server holds at one moment. */
    private record Held(int engineConnections, IwarpStatistics provider, long fileDescriptors, long threads, long heap,
            long direct) {

        static Held now(SmbDirectEngine engine, IwarpProvider provider, boolean settleMemory)
                throws IOException, InterruptedException {
            long[] memory = settleMemory ? settledMemory() : new long[] {0, 0};
            return new Held(engine.getTransportDTO().connections.length, provider.statistics(), descriptors(),
                    Thread.activeCount(), memory[0], memory[1]);
        }

        boolean nothingMoreThan(Held baseline) {
            IwarpStatistics s = provider;
            return engineConnections == 0 && s.connections() == 0 && s.endpoints() == 0 && s.pendingRequests() == 0
                    && s.registrations() == baseline.provider.registrations() && s.internalErrors() == 0
                    && fileDescriptors <= baseline.fileDescriptors && threads <= baseline.threads;
        }
    }

    private static long descriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    private static long[] settledMemory() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        long lastHeap = Long.MAX_VALUE;
        long lastDirect = -1;
        for (int i = 0; i < 20; i++) {
            java.lang.ref.ReferenceQueue<Object> queue = new java.lang.ref.ReferenceQueue<>();
            java.lang.ref.PhantomReference<Object> sentinel = new java.lang.ref.PhantomReference<>(new Object(), queue);
            System.gc();
            queue.remove(1_000); // the collection ran: the cleaner frees the direct buffers it found unreachable
            java.lang.ref.Reference.reachabilityFence(sentinel);
            long heap = memory.getHeapMemoryUsage().getUsed();
            long d = direct.getMemoryUsed();
            if (Math.abs(lastHeap - heap) < 64 * 1024 && d == lastDirect) {
                return new long[] {heap, d};
            }
            lastHeap = heap;
            lastDirect = d;
        }
        return new long[] {lastHeap, lastDirect};
    }

    @Test
    void aThousandConnectionsBetweenTwoProcessesNegotiateCarryTrafficHoldTheCapsAndLeaveNothingAfterSigkill()
            throws Exception {
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        IwarpProvider provider = IwarpProvider.open("scale-server", IwarpSettings.builder().listenAddresses("127.0.0.1")
                .maxConnections(CONNECTIONS).maxPendingConnections(PENDING_CAP).build());
        SmbDirectEngine engine = new SmbDirectEngine(provider, settings(CONNECTIONS), new ExecutorScheduler(timers));
        Process client = null;
        try {
            EchoServer echo = new EchoServer();
            SmbDirectListener listener = engine.listen(new InetSocketAddress("127.0.0.1", 0), c -> echo);

            String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
            client = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", ScaleClientProcess.class.getName(),
                    Integer.toString(listener.localAddress().getPort()), Integer.toString(CONNECTIONS + BEYOND_CAP),
                    Integer.toString(FLOOD), Integer.toString(MESSAGE), Integer.toString(WINDOW))
                    .redirectErrorStream(true).start();
            BlockingQueue<String> lines = lines(client);
            Writer commands = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8);
            // with the client process's pipes and the thread reading its output, before any connection
            Held baseline = Held.now(engine, provider, true);

            // the flood: half-open connections beyond the pending cap are closed at once
            assertEquals("FLOOD " + FLOOD, awaitLine(lines, "FLOOD "));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
            int peakPending = 0;
            for (int samples = 0; samples < 50 || peakPending < PENDING_CAP; samples++) {
                IwarpStatistics s = provider.statistics();
                peakPending = Math.max(peakPending, s.pendingRequests());
                assertTrue(s.connections() <= PENDING_CAP, "flood connections beyond the pending cap are closed: " + s);
                assertTrue(System.nanoTime() < deadline, "the flood never reached the pending cap: " + s);
                TimeUnit.MILLISECONDS.sleep(10); // polls counters the I/O threads change; bounded above
            }
            assertEquals(PENDING_CAP, peakPending, "maxPendingConnections holds");
            command(commands, "GO");
            assertEquals("FLOOD CLOSED", awaitLine(lines, "FLOOD CLOSED"));
            while (provider.statistics().connections() > 0) { // the server sees the flood's FINs
                assertTrue(System.nanoTime() < deadline, "the flood's connections stay: " + provider.statistics());
                TimeUnit.MILLISECONDS.sleep(10); // polls counters the I/O threads change; bounded above
            }
            command(commands, "GO");

            // the connections: exactly maxConnections negotiate, the rest are refused
            String connected = awaitLine(lines, "CONNECTED ");
            String[] c = connected.split(" ", 5);
            assertEquals(CONNECTIONS, Integer.parseInt(c[1]), connected);
            assertEquals(BEYOND_CAP, Integer.parseInt(c[2]), connected);
            long connectMillis = Long.parseLong(c[3]);
            IwarpStatistics atPeak = provider.statistics();
            assertEquals(CONNECTIONS, atPeak.connections(), "maxConnections holds: " + atPeak);
            assertEquals(CONNECTIONS, engine.getTransportDTO().connections.length, "negotiated connections");

            command(commands, "GO");
            assertEquals("ECHOED " + CONNECTIONS + " 0", awaitLine(lines, "ECHOED "), "every echo byte for byte");
            assertEquals("HOLDING", awaitLine(lines, "HOLDING"));
            assertEquals(CONNECTIONS, echo.echoed.get());
            Held open = Held.now(engine, provider, true);
            assertEquals(CONNECTIONS, open.engineConnections, "all still open");
            assertTrue(open.threads - baseline.threads <= 2, "threads do not grow with connections: " + baseline
                    + " -> " + open);

            // SIGKILL with all of them open: the server gives everything back
            client.destroyForcibly();
            assertTrue(client.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, client.exitValue(), "killed by SIGKILL");
            long killed = System.nanoTime();
            Held after = Held.now(engine, provider, false);
            while (!after.nothingMoreThan(baseline)) {
                if (System.nanoTime() - killed > TimeUnit.SECONDS.toNanos(60)) {
                    fail("the server did not give back what the killed client's connections held within 60 s: before "
                            + baseline + ", now " + after);
                }
                TimeUnit.MILLISECONDS.sleep(20); // polls counters the I/O threads change; bounded above
                after = Held.now(engine, provider, false);
            }
            long cleanMillis = (System.nanoTime() - killed) / 1_000_000;
            String figures = String.format(Locale.ROOT, "SCALE %,d SMB Direct connections over iWARP between two "
                    + "processes: %,d connections/s (%,d ms for %,d connects, %d in progress at once, %d refused at "
                    + "maxConnections); server per connection: heap %,d B, direct %,d B (16 posted receives of 1,364 B "
                    + "= 21,824 B of it), file descriptors %.2f, threads +%d in all; after SIGKILL of the client "
                    + "everything given back in %,d ms", CONNECTIONS, CONNECTIONS * 1000L / Math.max(1, connectMillis),
                    connectMillis, CONNECTIONS + BEYOND_CAP, WINDOW, BEYOND_CAP,
                    (open.heap - baseline.heap) / CONNECTIONS, (open.direct - baseline.direct) / CONNECTIONS,
                    (double) (open.fileDescriptors - baseline.fileDescriptors) / CONNECTIONS,
                    open.threads - baseline.threads, cleanMillis);
            System.out.println(figures);
            assertTrue(open.fileDescriptors - baseline.fileDescriptors <= CONNECTIONS + 16,
                    "one descriptor per connection (its socket): " + figures);
            listener.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } finally {
            if (client != null) {
                client.destroyForcibly();
                client.waitFor(10, TimeUnit.SECONDS);
            }
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")).toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            provider.close();
            timers.shutdownNow();
        }
    }

    private static void command(Writer commands, String line) throws IOException {
        commands.write(line + "\n");
        commands.flush();
    }

    private static BlockingQueue<String> lines(Process p) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("READ FAILED " + e);
            }
        }, "scale-client-output");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** The next line starting with {@code prefix} (other output is skipped), within the limit. */
    private static String awaitLine(BlockingQueue<String> lines, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        StringBuilder seen = new StringBuilder();
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertNotNull(line, "no line starting with '" + prefix + "' from the client process; it wrote:\n" + seen);
            if (line.startsWith(prefix)) {
                return line;
            }
            seen.append(line).append('\n');
        }
    }
}
