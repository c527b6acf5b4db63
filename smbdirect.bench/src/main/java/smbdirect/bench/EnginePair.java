package smbdirect.bench;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.standalone.StandaloneTransport;

/**
 * One negotiated SMB Direct connection between two transports built the public way
 * ({@link StandaloneTransport}), each over its own RDMA provider, sharing one timer thread as the
 * transports of one runtime do. {@code settings} are the attributes of the {@code smbdirect.transport}
 * configuration (empty: the [MS-SMBD] defaults). Created and closed by one benchmark thread; the
 * connections themselves are thread-safe.
 */
final class EnginePair implements AutoCloseable {

    final SmbDirectConnection client;
    final SmbDirectConnection server;
    private final StandaloneTransport serverTransport;
    private final StandaloneTransport clientTransport;
    private final SmbDirectListener listener;
    private final ScheduledExecutorService timers;
    private final AutoCloseable providers;

    /**
     * Two transports on two devices of one mock fabric delivering in {@code mode}; closing the pair
     * closes the fabric.
     */
    static EnginePair overMock(DeliveryMode mode, Map<String, ?> settings, ConnectionHandler serverHandler,
            ConnectionHandler clientHandler) throws Exception {
        MockFabric fabric = MockFabric.builder().name("engine-" + mode.name().toLowerCase()).mode(mode).build();
        MockProvider serverDevice = fabric.provider("server");
        return new EnginePair(serverDevice, new InetSocketAddress(serverDevice.address(), RawPair.PORT),
                fabric.provider("client"), settings, serverHandler, clientHandler, fabric::close);
    }

    /**
     * A transport over {@code serverProvider} listening at {@code bindAddress} and one over
     * {@code clientProvider} connected to it; {@code providers} is closed with the pair.
     */
    EnginePair(RdmaProvider serverProvider, InetSocketAddress bindAddress, RdmaProvider clientProvider,
            Map<String, ?> settings, ConnectionHandler serverHandler, ConnectionHandler clientHandler,
            AutoCloseable providers) throws Exception {
        this.providers = providers;
        timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "smbdirect-bench-timer");
            t.setDaemon(true);
            return t;
        });
        serverTransport = StandaloneTransport.builder(serverProvider).settings(settings).timerExecutor(timers).build();
        clientTransport = StandaloneTransport.builder(clientProvider).settings(settings).timerExecutor(timers).build();
        CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
        listener = serverTransport.listen(bindAddress, c -> {
            accepted.complete(c);
            return serverHandler;
        });
        client = clientTransport.connect(listener.localAddress(), Duration.ofSeconds(10), clientHandler)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        server = accepted.get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        client.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        CloseReason done = CloseReason.of(CloseReason.Kind.SHUTDOWN, "bench done");
        clientTransport.shutdown(done).toCompletableFuture().get(10, TimeUnit.SECONDS);
        serverTransport.shutdown(done).toCompletableFuture().get(10, TimeUnit.SECONDS);
        providers.close();
        timers.shutdownNow();
    }
}
