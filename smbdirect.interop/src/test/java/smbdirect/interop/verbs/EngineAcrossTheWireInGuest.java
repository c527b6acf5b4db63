package smbdirect.interop.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.tck.EngineScenario;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * Inside the guest ({@link VerbsWireInVmTest} starts it): the engine over the verbs provider on siw0
 * against the engine over the software iWARP provider on the host, across the VM's network, both
 * ways: first as client of the host's engine (at 10.0.2.2, the host's 127.0.0.1), then as server
 * for it (on {@value #GUEST_PORT}, which the host reaches through a forward). The scenario is
 * {@link #SCENARIO}: a 64 KiB message, fragmented, echoed byte for byte; a 1 MiB RDMA Read and a
 * 1 MiB RDMA Write of the client's registered buffer by the server, checked byte for byte; a close.
 */
@Tag(GuestJUnit.GUEST_TAG)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EngineAcrossTheWireInGuest {

    /** The guest port the host's engine connects to (forwarded from a host port). */
    static final int GUEST_PORT = 7472;
    /** System property: the host engine's port (the guest reaches it at 10.0.2.2). */
    static final String HOST_PORT = "smbdirect.test.host.port";
    /** The line the guest prints once it listens for the host's engine. */
    static final String LISTENING = "ENGINE LISTENING FOR THE HOST";
    /** Each step may take two minutes: a JVM under TCG, 1 MiB through QEMU's user networking. */
    static final EngineScenario SCENARIO = new EngineScenario(new int[] {64 * 1024}, 1024 * 1024, 120);

    private ScheduledExecutorService timers;
    private RdmaProvider verbs;
    private SmbDirectEngine engine;

    @BeforeAll
    void start() {
        timers = Executors.newSingleThreadScheduledExecutor();
        verbs = GuestVerbs.provider();
        engine = new SmbDirectEngine(verbs, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
    }

    @AfterAll
    void stop() throws Exception {
        engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end")).toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
        GuestVerbs.shutdown(verbs);
        timers.shutdownNow();
    }

    @Test
    @Order(1)
    void theGuestsEngineAsClientOfTheHostsEngine() throws Exception {
        InetSocketAddress host = new InetSocketAddress("10.0.2.2", Integer.getInteger(HOST_PORT));
        EngineScenario.Recorder recorder = SCENARIO.recorder();
        SmbDirectConnection c = engine.connect(host, Duration.ofSeconds(60), recorder).toCompletableFuture()
                .get(120, TimeUnit.SECONDS);
        SCENARIO.runClient(c, recorder);
    }

    @Test
    @Order(2)
    void theGuestsEngineAsServerForTheHostsEngine() throws Exception {
        EngineScenario.EchoServer server = SCENARIO.server();
        CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
        SmbDirectListener listener = engine.listen(new InetSocketAddress(GuestVerbs.GUEST_ADDRESS, GUEST_PORT),
                c -> accepted.complete(c) ? server : null);
        try {
            // the engine opens the provider's listener on its own thread: say so only once the RDMA CM
            // listens (QEMU's forward accepts on the host and resets when nothing listens in the guest)
            GuestVerbs.awaitCmListener(GUEST_PORT);
            System.out.println(LISTENING);
            accepted.get(300, TimeUnit.SECONDS);
            server.closed().get(600, TimeUnit.SECONDS);
            SCENARIO.checkServer(server);
        } catch (ExecutionException e) {
            throw new AssertionError("the host's engine did not complete: " + e.getCause(), e.getCause());
        } finally {
            listener.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }
}
