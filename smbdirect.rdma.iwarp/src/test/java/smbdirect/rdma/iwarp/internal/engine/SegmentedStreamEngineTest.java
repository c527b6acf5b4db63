package smbdirect.rdma.iwarp.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.tck.EngineScenario;

/**
 * The engine scenario through a relay that cuts both byte streams into random pieces (iwarp.md §7:
 * FPDUs spanning reads, many FPDUs per read, never aligned with TCP segments): every byte arrives
 * in place and every CRC checks, with small pieces (1 to 7 bytes), medium (up to 300) and large
 * ones, and with loopback-sized FPDUs.
 */
class SegmentedStreamEngineTest {

    private static final EngineScenario SCENARIO = new EngineScenario(new int[] {500, 64 * 1024}, 256 * 1024, 60);

    @ParameterizedTest(name = "pieces up to {0} bytes, FPDUs up to {1}, seed {2}")
    @CsvSource({"7, 1460, 1", "300, 1460, 2", "5000, 1460, 3", "3000, 65536, 4"})
    void everyByteArrivesWhateverTheTcpSegmentation(int maxChunk, int maxFpdu, long seed) throws Exception {
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").maxFpduSize(maxFpdu).build();
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try (IwarpProvider clientProvider = IwarpProvider.open("seg-client", settings);
                IwarpProvider serverProvider = IwarpProvider.open("seg-server", settings)) {
            SmbDirectEngine serverEngine = new SmbDirectEngine(serverProvider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            SmbDirectEngine clientEngine = new SmbDirectEngine(clientProvider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            EngineScenario.EchoServer server = SCENARIO.server();
            SmbDirectListener listener = serverEngine.listen(new InetSocketAddress("127.0.0.1", 0), c -> server);
            try (ChunkingRelay relay = new ChunkingRelay(listener.localAddress(), maxChunk, seed)) {
                EngineScenario.Recorder client = SCENARIO.recorder();
                SmbDirectConnection connection = SCENARIO.get(
                        clientEngine.connect(relay.address(), Duration.ofSeconds(20), client));
                SCENARIO.runClient(connection, client);
                SCENARIO.checkServer(server);
            } finally {
                SCENARIO.get(listener.close());
                SCENARIO.get(clientEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
                SCENARIO.get(serverEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
            }
            assertEquals(0, clientProvider.statistics().terminatesSent());
            assertEquals(0, serverProvider.statistics().terminatesSent());
        } finally {
            timers.shutdownNow();
        }
    }
}
