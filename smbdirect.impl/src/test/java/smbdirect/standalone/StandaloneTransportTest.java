package smbdirect.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.config.TransportConfigurations;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/** The plain-Java entry point: settings as Config Admin has them, lifecycle, shutdown with a reason. */
class StandaloneTransportTest {

    @Test
    void noPropertiesMeansTheConfigurationDefaults() {
        assertEquals(TransportSettings.DEFAULTS, TransportConfigurations.fromProperties(Map.of()));
    }

    @Test
    void valuesAreReadUnderTheConfigurationNamesAsNumbersOrText() {
        TransportSettings s = TransportConfigurations.fromProperties(Map.of("receiveCreditMax", 64,
                "keepaliveIntervalSeconds", "30", "creditGrantTimeoutMillis", 0L, "creditRefillFraction", "0.5",
                "receiveBufferBudgetMB", 16));
        assertEquals(64, s.receiveCreditMax());
        assertEquals(Duration.ofSeconds(30), s.keepaliveInterval());
        assertEquals(Duration.ZERO, s.creditGrantTimeout());
        assertEquals(0.5, s.creditRefillFraction());
        assertEquals(16L << 20, s.receiveBufferBudget());
    }

    @Test
    void aBadValueIsRefusedNamingTheAttributeAndNothingIsBuilt() {
        MockFabric fabric = MockFabric.builder().build();
        MockProvider p = fabric.provider("p");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StandaloneTransport.builder(p).setting("keepaliveIntervalSeconds", "12x").build());
        assertEquals("keepaliveIntervalSeconds=12x refused: not a whole number", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> StandaloneTransport.builder(p).setting("passiveNegotiationTimeoutSeconds", 0).build());
        assertTrue(e.getMessage().startsWith("passiveNegotiationTimeoutSeconds=0 refused"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> StandaloneTransport.builder(p).setting("receiveCreditsMax", 1).build());
        assertTrue(e.getMessage().startsWith("receiveCreditsMax=1 refused: not an attribute of smbdirect.transport"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> StandaloneTransport.builder(p).setting("provider.target", "(smbdirect.provider=mock)").build());
        assertTrue(e.getMessage().startsWith("provider.target="), e.getMessage());
        fabric.close();
    }

    @Test
    void onItsOwnProviderTheTransportIsItselfAndOnAnyOtherItRefusesNamingTheProvider() throws Exception {
        try (MockFabric fabric = MockFabric.builder().build();
                StandaloneTransport t = StandaloneTransport.builder(fabric.provider("p")).build()) {
            assertTrue(t.onProvider(t.provider().name()) == t);
            SmbDirectException e = assertThrows(SmbDirectException.class,
                    () -> t.onProvider("iwarp").listen(new InetSocketAddress("127.0.0.1", 5445), c -> null));
            assertEquals(SmbDirectException.Kind.NO_PROVIDER, e.kind());
            assertTrue(e.getMessage().contains("'iwarp'"), e.getMessage());
            CompletableFuture<SmbDirectConnection> f = t.onProvider("iwarp")
                    .connect(new InetSocketAddress("127.0.0.1", 5445), Duration.ofSeconds(1), null)
                    .toCompletableFuture();
            assertTrue(f.isCompletedExceptionally());
        }
    }

    @Test
    void aRefusedUpdateKeepsTheSettingsInForce() {
        try (MockFabric fabric = MockFabric.builder().build();
                StandaloneTransport t = StandaloneTransport.builder(fabric.provider("p"))
                        .setting("receiveCreditMax", 40).build()) {
            assertThrows(IllegalArgumentException.class, () -> t.updateSettings(Map.of("maxReceiveSize", 100)));
            assertEquals(40, t.getTransportDTO().settings.receiveCreditMax);
            assertEquals(8192, t.getTransportDTO().settings.maxReceiveSize);
            t.updateSettings(Map.of("maxReceiveSize", 4096));
            assertEquals(40, t.getTransportDTO().settings.receiveCreditMax);
            assertEquals(4096, t.getTransportDTO().settings.maxReceiveSize);
        }
    }

    /** An application object with the init and destroy methods a bean container calls; no container needed. */
    static final class SmbServerBean {
        private final MockProvider device;
        StandaloneTransport transport;
        SmbDirectListener listener;
        final CompletableFuture<CloseReason> disconnected = new CompletableFuture<>();

        SmbServerBean(MockProvider device) {
            this.device = device;
        }

        void init() throws SmbDirectException {
            transport = StandaloneTransport.builder(device).setting("receiveCreditMax", 16).build();
            listener = transport.listen(new InetSocketAddress(device.address(), 0), c -> new ConnectionHandler() {
                @Override
                public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
                }

                @Override
                public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
                    disconnected.complete(reason);
                }
            });
        }

        void destroy() {
            transport.close();
        }
    }

    @Test
    void aBeanWithInitAndDestroyClosesItsConnectionsWithReasonShutdownAndStopsItsTimerThread() throws Exception {
        long timersBefore = timerThreads();
        try (MockFabric fabric = MockFabric.builder().mode(DeliveryMode.THREADED).build()) {
            SmbServerBean bean = new SmbServerBean(fabric.provider("server"));
            bean.init();
            StandaloneTransport client = StandaloneTransport.builder(fabric.provider("client")).build();
            SmbDirectConnection c = client.connect(bean.listener.localAddress(), Duration.ofSeconds(10),
                    new ConnectionHandler() {
                        @Override
                        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
                        }

                        @Override
                        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
                        }
                    }).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertTrue(c.isOpen());

            bean.destroy();

            CloseReason r = bean.disconnected.get(10, TimeUnit.SECONDS);
            assertEquals(CloseReason.Kind.SHUTDOWN, r.kind());
            assertFalse(bean.listener.isOpen());
            assertEquals(0, bean.transport.getTransportDTO().connections.length);
            SmbDirectException refused = assertThrows(SmbDirectException.class,
                    () -> bean.transport.listen(new InetSocketAddress(0), x -> null));
            assertTrue(refused.getMessage().contains("shut down"), refused.getMessage());
            client.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (timerThreads() > timersBefore) {
                assertTrue(System.nanoTime() < deadline, "timer threads stop on close");
                Thread.onSpinWait();
            }
        }
    }

    private static long timerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("smbdirect-timer") && t.isAlive()).count();
    }

    @Test
    void drainLetsTheRequestBeingHandledFinishThenClosesWithTheReason() throws Exception {
        try (MockFabric fabric = MockFabric.builder().mode(DeliveryMode.THREADED).build()) {
            MockProvider serverProvider = fabric.provider("server");
            java.util.concurrent.CountDownLatch handling = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
            CompletableFuture<CloseReason> serverClosed = new CompletableFuture<>();
            java.util.concurrent.BlockingQueue<String> atClient = new java.util.concurrent.LinkedBlockingQueue<>();
            try (StandaloneTransport server = StandaloneTransport.builder(serverProvider)
                    .setting("drainTimeoutSeconds", 30).build();
                    StandaloneTransport client = StandaloneTransport.builder(fabric.provider("client")).build()) {
                server.listen(new InetSocketAddress(serverProvider.address(), 445), c -> new ConnectionHandler() {
                    @Override
                    public void onMessage(SmbDirectConnection conn, ReceivedMessage m) {
                        handling.countDown();
                        try {
                            assertTrue(finish.await(30, TimeUnit.SECONDS));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        conn.send(java.nio.ByteBuffer.wrap(new byte[] {'o', 'k'}), (b, x) -> { });
                    }

                    @Override
                    public void onDisconnected(SmbDirectConnection conn, CloseReason reason) {
                        serverClosed.complete(reason);
                    }
                });
                SmbDirectConnection c = client.connect(new InetSocketAddress(serverProvider.address(), 445),
                        Duration.ofSeconds(10), new ConnectionHandler() {
                            @Override
                            public void onMessage(SmbDirectConnection conn, ReceivedMessage m) {
                                atClient.add("message of " + m.length() + " bytes");
                            }

                            @Override
                            public void onDisconnected(SmbDirectConnection conn, CloseReason reason) {
                                atClient.add("closed " + reason.kind());
                            }
                        }).toCompletableFuture().get(10, TimeUnit.SECONDS);
                c.send(java.nio.ByteBuffer.wrap(new byte[] {'r', 'q'}), (b, x) -> { });
                assertTrue(handling.await(10, TimeUnit.SECONDS));

                CloseReason stopping = CloseReason.of(CloseReason.Kind.SHUTDOWN, "server stopping");
                CompletableFuture<Void> drained = server.drain(stopping).toCompletableFuture();
                assertFalse(drained.isDone(), "the request being handled is in flight");
                assertTrue(c.isOpen());
                finish.countDown();
                drained.get(10, TimeUnit.SECONDS);
                assertEquals(stopping, serverClosed.get(10, TimeUnit.SECONDS));
                assertEquals("message of 2 bytes", atClient.poll(10, TimeUnit.SECONDS), "the reply came first");
                assertEquals("closed PEER_DISCONNECT", atClient.poll(10, TimeUnit.SECONDS));
                assertTrue(server.shutdown(CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "x")) == server.drain(stopping),
                        "the first call decides");
            }
        }
    }
}
