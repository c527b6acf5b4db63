package smbdirect.bench;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import smbdirect.api.ConnectionHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * One negotiated SMB Direct connection between two engines, each on its own device of one mock
 * fabric, with the production scheduler (one timer thread). Created and closed by one benchmark
 * thread; the connections themselves are thread-safe.
 */
final class EnginePair implements AutoCloseable {

    final MockFabric fabric;
    final SmbDirectEngine serverEngine;
    final SmbDirectEngine clientEngine;
    final SmbDirectConnection client;
    final SmbDirectConnection server;
    private final SmbDirectListener listener;
    private final ScheduledExecutorService timers;

    EnginePair(DeliveryMode mode, TransportSettings settings, ConnectionHandler serverHandler,
            ConnectionHandler clientHandler) throws Exception {
        fabric = MockFabric.builder().name("engine-" + mode.name().toLowerCase()).mode(mode).build();
        timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "smbdirect-bench-timer");
            t.setDaemon(true);
            return t;
        });
        MockProvider serverDevice = fabric.provider("server");
        MockProvider clientDevice = fabric.provider("client");
        serverEngine = new SmbDirectEngine(serverDevice, settings, new ExecutorScheduler(timers));
        clientEngine = new SmbDirectEngine(clientDevice, settings, new ExecutorScheduler(timers));
        CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
        listener = serverEngine.listen(new InetSocketAddress(serverDevice.address(), RawPair.PORT), c -> {
            accepted.complete(c);
            return serverHandler;
        });
        client = clientEngine.connect(listener.localAddress(), Duration.ofSeconds(10), clientHandler)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        server = accepted.get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        client.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        server.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        fabric.close();
        timers.shutdownNow();
    }
}
