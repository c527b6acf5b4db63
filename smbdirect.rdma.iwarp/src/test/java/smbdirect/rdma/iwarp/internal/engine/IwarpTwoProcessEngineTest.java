package smbdirect.rdma.iwarp.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.tck.EngineScenario;

/**
 * The SMB Direct engine between two JVM processes over iWARP on loopback TCP: this JVM is the
 * client, {@link EngineServerProcess} the server, started with this test's class path. The
 * {@link EngineScenario} runs in full (echoes of 500 B and a fragmented 64 KiB, a 1 MiB RDMA Read and
 * Write byte for byte, the client's close) and the server process reports its side. Bounded; the
 * process is killed in any case.
 */
class IwarpTwoProcessEngineTest {

    static final EngineScenario SCENARIO = new EngineScenario(new int[] {500, 64 * 1024}, 1024 * 1024, 30);
    private static final long LIMIT_SECONDS = 60;

    @Test
    void theEngineRunsTheScenarioBetweenTwoProcesses() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process server = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", EngineServerProcess.class.getName(),
                Long.toString(LIMIT_SECONDS)).redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (java.io.IOException e) {
                lines.add("READ FAILED " + e);
            }
        }, "engine-server-output");
        reader.setDaemon(true);
        reader.start();
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try (IwarpProvider provider = IwarpProvider.open("process-client",
                IwarpSettings.builder().listenAddresses("127.0.0.1").build())) {
            String listening = awaitLine(lines, "LISTENING ");
            int port = Integer.parseInt(listening.substring("LISTENING ".length()).trim());
            SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            EngineScenario.Recorder client = SCENARIO.recorder();
            SmbDirectConnection connection = SCENARIO.get(engine.connect(new InetSocketAddress("127.0.0.1", port),
                    Duration.ofSeconds(10), client));
            SCENARIO.runClient(connection, client);
            String verdict = awaitLine(lines, "SERVER ");
            assertEquals("SERVER OK", verdict);
            assertTrue(server.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS), "the server process exits");
            assertEquals(0, server.exitValue());
            SCENARIO.get(engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
            assertEquals(0, provider.statistics().endpoints());
        } finally {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
            timers.shutdownNow();
        }
    }

    /** The next line starting with {@code prefix} (other output is skipped), within the limit. */
    private static String awaitLine(BlockingQueue<String> lines, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        StringBuilder seen = new StringBuilder();
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertNotNull(line, "no line starting with '" + prefix + "' from the server process; it wrote:\n" + seen);
            if (line.startsWith(prefix)) {
                return line;
            }
            seen.append(line).append('\n');
        }
    }
}
