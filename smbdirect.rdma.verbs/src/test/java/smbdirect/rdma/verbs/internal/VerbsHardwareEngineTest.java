package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.tck.EngineScenario;

/**
 * The SMB Direct engine end to end over the verbs provider between two processes on real RDMA
 * hardware or soft-RoCE/siw (profile {@code rdma-hardware}, tag {@code rdma-hardware}; excluded
 * from the default build). Same properties as {@link VerbsHardwarePingPongTest}
 * ({@code smbdirect.verbs.role}, {@code smbdirect.verbs.server}, {@code smbdirect.verbs.device},
 * {@code smbdirect.verbs.bind}, {@code smbdirect.verbs.library.path}).
 *
 * <p>Over the public API only ({@code smbdirect.api}, {@link SmbDirectEngine}), the scenario of
 * {@link EngineScenario}: the server echoes 500 B, 64 KiB and 1 MiB messages (the larger ones
 * fragmented by [MS-SMBD] 3.1.5.1), then RDMA-reads 64 KiB of a buffer the client registered,
 * XORs it with 0x5A and RDMA-writes it into the buffer's second half; the client checks every
 * byte, closes, and requires LOCAL_CLOSE; the server requires PEER_DISCONNECT. The default
 * build's {@code loopback.VerbsLoopbackEngineTest} runs exactly this scenario code over two
 * verbs providers on the loopback device, so its logic is exercised in every build.
 *
 * <p>The client retries the connection for up to a minute, so it may start before the server
 * listens (the profile runs this class after {@link VerbsHardwarePingPongTest}).
 */
@Tag("rdma-hardware")
class VerbsHardwareEngineTest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsHardwareEngineTest.class);
    private static final long TIMEOUT_SECONDS = 60;
    private static final EngineScenario SCENARIO =
            new EngineScenario(new int[] {500, 64 * 1024, 1024 * 1024}, 64 * 1024, TIMEOUT_SECONDS);

    @Test
    void engineEchoesFragmentedMessagesAndServesRdmaReadAndWriteBetweenTwoProcesses() throws Exception {
        String role = System.getProperty("smbdirect.verbs.role", "");
        if (role.equals("server")) {
            runServer();
        } else if (role.equals("client")) {
            runClient();
        } else {
            throw new IllegalArgumentException("-Dsmbdirect.verbs.role=server|client is required, got '" + role + "'");
        }
    }

    private static void runServer() throws Exception {
        InetSocketAddress address = VerbsHardwarePingPongTest.server();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(address.getAddress().getHostAddress());
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        EngineScenario.EchoServer server = SCENARIO.server();
        CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
        SmbDirectListener listener = engine.listen(address, connection -> {
            if (!accepted.complete(connection)) {
                return null;
            }
            return server;
        });
        try {
            SmbDirectConnection connection = accepted.get(TIMEOUT_SECONDS * 5, TimeUnit.SECONDS);
            LOG.info("accepted {} with {}", connection.peerAddress(), connection.parameters());
            // the client's steps take up to TIMEOUT_SECONDS each: a longer wait for its close
            server.closed().get(TIMEOUT_SECONDS * 2, TimeUnit.SECONDS);
            SCENARIO.checkServer(server);
            assertFalse(connection.isOpen());
        } finally {
            listener.close().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends"))
                    .toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            provider.shutdown();
            timers.shutdownNow();
        }
    }

    private static void runClient() throws Exception {
        InetSocketAddress address = VerbsHardwarePingPongTest.server();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(System.getProperty("smbdirect.verbs.bind", ""));
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        try {
            Connected connected = connect(engine, address);
            SmbDirectConnection connection = connected.connection();
            LOG.info("connected to {} with {}", connection.peerAddress(), connection.parameters());
            SCENARIO.runClient(connection, connected.handler());
        } finally {
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends"))
                    .toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            provider.shutdown();
            timers.shutdownNow();
        }
    }

    record Connected(SmbDirectConnection connection, EngineScenario.Recorder handler) {
    }

    /**
     * Connects, retrying while the server is not yet listening (it may still run the ping-pong);
     * each attempt has its own handler, so a failed attempt's close reason is not mistaken for the
     * connection's.
     */
    private static Connected connect(SmbDirectEngine engine, InetSocketAddress address) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (true) {
            EngineScenario.Recorder handler = SCENARIO.recorder();
            try {
                return new Connected(engine.connect(address, Duration.ofSeconds(10), handler).toCompletableFuture()
                        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS), handler);
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                LOG.info("connect to {} failed ({}); retrying", address, e.getCause().toString());
                Thread.sleep(500);
            }
        }
    }
}
