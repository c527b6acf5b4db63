package smbdirect.rdma.iwarp.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
import smbdirect.rdma.tck.EngineScenario;

/**
 * The SMB Direct engine end to end over two iWARP providers on loopback TCP in one JVM: the
 * {@link EngineScenario} (a 500-byte and a 64 KiB fragmented message echoed, a 1 MiB RDMA Read and
 * RDMA Write served by the peer, byte for byte, the client closing: LOCAL_CLOSE and
 * PEER_DISCONNECT), then the reverse close from the server, and no endpoint or connection left
 * behind. Run with the defaults (CRC on, FPDUs of the path's MSS: 65480 bytes on Linux loopback), with
 * Ethernet-sized 1460-byte FPDUs, with 64 KiB FPDUs without CRC, with MPA revision 1 on one I/O
 * thread, and with 4 KiB socket buffers (back-pressure all the time).
 */
class IwarpLoopbackEngineTest {

    private static final EngineScenario SCENARIO = new EngineScenario(new int[] {500, 64 * 1024}, 1024 * 1024, 20);

    private static IwarpSettings settings(String variant) {
        IwarpSettings.Builder b = IwarpSettings.builder().listenAddresses("127.0.0.1");
        return switch (variant) {
            case "defaults" -> b.build();
            case "ethernet-fpdu" -> b.maxFpduSize(1460).build();
            case "loopback-fpdu-no-crc" -> b.maxFpduSize(65536).crc(false).build();
            case "rev1-one-thread" -> b.mpaRevision(1).ioThreads(1).build();
            // tiny socket buffers: writes are partial all the time, the OP_WRITE path carries the data
            case "small-socket-buffers" -> b.sendBufferSize(4096).receiveBufferSize(4096).build();
            default -> throw new IllegalArgumentException(variant);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"defaults", "ethernet-fpdu", "loopback-fpdu-no-crc", "rev1-one-thread", "small-socket-buffers"})
    void engineRunsTheScenarioAndClosesFromEitherSide(String variant) throws Exception {
        IwarpSettings settings = settings(variant);
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        IwarpProvider clientProvider = IwarpProvider.open("e2e-client", settings);
        IwarpProvider serverProvider = IwarpProvider.open("e2e-server", settings);
        try {
            SmbDirectEngine serverEngine = new SmbDirectEngine(serverProvider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            SmbDirectEngine clientEngine = new SmbDirectEngine(clientProvider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            EngineScenario.EchoServer server = SCENARIO.server();
            SmbDirectListener listener = serverEngine.listen(new InetSocketAddress("127.0.0.1", 0), c -> server);
            InetSocketAddress address = listener.localAddress();
            try {
                EngineScenario.Recorder client = SCENARIO.recorder();
                SmbDirectConnection connection = SCENARIO.get(
                        clientEngine.connect(address, Duration.ofSeconds(10), client));
                // the DTO says what the connection is on the wire (perf prints it)
                assertEquals(switch (variant) {
                    case "ethernet-fpdu" -> "CRC32C on; FPDUs of 1,460 B sent (maxFpduSize); IRD 8, ORD 8";
                    case "loopback-fpdu-no-crc" -> "CRC32C off; FPDUs of 64 KiB sent (maxFpduSize); IRD 8, ORD 8";
                    default -> "CRC32C on; FPDUs of 65,480 B sent (the path's TCP MSS); IRD 8, ORD 8";
                }, connection.getConnectionDTO().providerDetail);
                SCENARIO.runClient(connection, client);
                SCENARIO.checkServer(server);

                // the other way round: the server closes, the client sees the peer's disconnect
                CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
                CompletableFuture<CloseReason> serverSide = new CompletableFuture<>();
                SmbDirectListener second = serverEngine.listen(new InetSocketAddress("127.0.0.1", 0), c -> {
                    accepted.complete(c);
                    return closing(serverSide);
                });
                CompletableFuture<CloseReason> clientSide = new CompletableFuture<>();
                SmbDirectConnection again = SCENARIO.get(clientEngine.connect(second.localAddress(),
                        Duration.ofSeconds(10), closing(clientSide)));
                SmbDirectConnection serverConnection = accepted.get(20, TimeUnit.SECONDS);
                SCENARIO.get(serverConnection.close());
                assertEquals(CloseReason.Kind.LOCAL_CLOSE, serverSide.get(20, TimeUnit.SECONDS).kind());
                assertEquals(CloseReason.Kind.PEER_DISCONNECT, clientSide.get(20, TimeUnit.SECONDS).kind());
                assertFalse(again.isOpen());
                SCENARIO.get(second.close());
            } finally {
                SCENARIO.get(listener.close());
                SCENARIO.get(clientEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
                SCENARIO.get(serverEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
            }
            for (IwarpProvider p : new IwarpProvider[] {clientProvider, serverProvider}) {
                IwarpStatistics s = p.statistics();
                assertEquals(0, s.endpoints(), p.instanceName() + " endpoints left: " + s);
                assertEquals(0, s.listeners(), p.instanceName() + " listeners left: " + s);
                assertEquals(0, s.terminatesSent(), p.instanceName() + " sent a Terminate: " + s);
            }
        } finally {
            clientProvider.close();
            serverProvider.close();
            timers.shutdownNow();
        }
        assertEquals(0, clientProvider.statistics().connections());
        assertEquals(0, serverProvider.statistics().connections());
    }

    private static ConnectionHandler closing(CompletableFuture<CloseReason> reason) {
        return new ConnectionHandler() {
            @Override
            public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
                ByteBuffer ignored = message.payload();
            }

            @Override
            public void onDisconnected(SmbDirectConnection connection, CloseReason r) {
                reason.complete(r);
            }
        };
    }
}
