package smbdirect.rdma.verbs.internal.loopback;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.tck.EngineScenario;
import smbdirect.rdma.verbs.internal.VerbsRdmaProvider;

/**
 * The SMB Direct engine end to end over two verbs providers on the loopback device, in one JVM:
 * the scenario of {@link EngineScenario} with a 500-byte and a 64 KiB (fragmented) echoed message,
 * a 1 MiB RDMA Read and RDMA Write of a registered buffer served by the peer, checked byte for
 * byte, and a clean close (the closing side sees LOCAL_CLOSE, the other PEER_DISCONNECT), then no
 * leak on the loopback network. This test runs exactly the scenario code the hardware profile's
 * {@code VerbsHardwareEngineTest} runs between two processes on RNICs, so that test's logic is
 * exercised in every build.
 */
class VerbsLoopbackEngineTest {

    private static final EngineScenario SCENARIO = new EngineScenario(new int[] {500, 64 * 1024}, 1024 * 1024, 20);

    @Test
    void engineNegotiatesSendsFragmentedMessagesServesOneMebibyteRdmaAndClosesCleanly() throws Exception {
        LoopbackNetwork network = new LoopbackNetwork();
        LoopbackBackend clientDevice = network.attach("10.9.2.1");
        LoopbackBackend serverDevice = network.attach("10.9.2.2");
        VerbsRdmaProvider clientProvider = VerbsTckFixture.provider(VerbsTckFixture.settings(false, false), clientDevice);
        VerbsRdmaProvider serverProvider = VerbsTckFixture.provider(VerbsTckFixture.settings(false, false), serverDevice);
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        SmbDirectEngine serverEngine = new SmbDirectEngine(serverProvider, TransportSettings.DEFAULTS,
                new ExecutorScheduler(timers));
        SmbDirectEngine clientEngine = new SmbDirectEngine(clientProvider, TransportSettings.DEFAULTS,
                new ExecutorScheduler(timers));
        InetSocketAddress address = new InetSocketAddress(serverDevice.address(), 445);
        EngineScenario.EchoServer server = SCENARIO.server();
        SmbDirectListener listener = serverEngine.listen(address, connection -> server);
        try {
            EngineScenario.Recorder client = SCENARIO.recorder();
            SmbDirectConnection connection = SCENARIO.get(clientEngine.connect(address, Duration.ofSeconds(10), client));
            SCENARIO.runClient(connection, client);
            SCENARIO.checkServer(server);
        } finally {
            SCENARIO.get(listener.close());
            SCENARIO.get(clientEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
            SCENARIO.get(serverEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
            clientProvider.shutdown();
            serverProvider.shutdown();
            timers.shutdownNow();
        }
        network.assertNoLeaks();
    }
}
