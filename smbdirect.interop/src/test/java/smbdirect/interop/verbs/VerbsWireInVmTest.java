package smbdirect.interop.verbs;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.CaptureReader;
import smbdirect.interop.vm.CapturedPdu;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.interop.vm.GuestReport;
import smbdirect.interop.vm.SiwVm;
import smbdirect.interop.vm.SiwVmAttempts;
import smbdirect.interop.vm.SiwVmResult;
import smbdirect.interop.vm.SiwVmRun;
import smbdirect.interop.vm.SiwVmSpec;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.tck.EngineScenario;
import smbdirect.rdma.tck.LoopbackCapture;

/**
 * Across the wire: the engine over the verbs provider on Linux siw in the VM ({@link
 * EngineAcrossTheWireInGuest}) against the engine over our software iWARP provider on the host,
 * both ways in one VM boot: the guest's engine as client of the host's, then the host's as client
 * of the guest's. A 64 KiB message fragmented and echoed byte for byte, a 1 MiB RDMA Read and a
 * 1 MiB RDMA Write checked byte for byte, a clean close, on each side; MPA CRC on. tshark decodes
 * the capture of both connections on the host's loopback: MPA, DDP/RDMAP and SMB Direct, nothing
 * malformed, every CRC good.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(1800)
class VerbsWireInVmTest {

    private static final EngineScenario SCENARIO = EngineAcrossTheWireInGuest.SCENARIO;
    private static final long WAIT = 600;

    /** What the host saw; failures are kept to be reported by their own tests. */
    record Run(SiwVmResult vm, GuestReport guest, int hostPort, int forwardedPort, Throwable hostServer,
            Throwable hostClient, List<CapturedPdu> pdus, String kver) {
    }

    private Run run;

    @BeforeAll
    void exchange() throws Exception {
        SiwVm vm = SiwVm.require();
        GuestJUnit junit = GuestJUnit.require();
        String kver = java.nio.file.Files.readString(vm.image().resolve("kver")).strip();
        run = SiwVmAttempts.run(vm, "the engine across the wire, verbs on siw against iWARP on the host",
                boots -> boot(boots, junit, kver));
    }

    private Run boot(SiwVmAttempts.Boots boots, GuestJUnit junit, String kver) throws Exception {
        // CRC on: siw answers a C=1 Request with C=1 and takes a C=1 Reply; toward siw as responder the
        // first FPDU waits 500 ms (the accept race, interop README)
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").crc(true)
                .firstFpduDelayMillis(500).build();
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try (IwarpProvider provider = IwarpProvider.open("wire", settings)) {
            SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            EngineScenario.EchoServer server = SCENARIO.server();
            CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
            SmbDirectListener listener = engine.listen(new InetSocketAddress("127.0.0.1", 0),
                    c -> accepted.complete(c) ? server : null);
            try {
                int hostPort = listener.localAddress().getPort();
                GuestJUnit.Launch guest = VerbsInVm.verbs(junit.launch("wire"), Device.SIW)
                        .select(EngineAcrossTheWireInGuest.class.getName())
                        .property(EngineAcrossTheWireInGuest.HOST_PORT, Integer.toString(hostPort))
                        .timeout(Duration.ofMinutes(15));
                SiwVmSpec spec = junit.prepare(SiwVmSpec.command(junit.setup() + "\n" + guest.command())
                        .forward(EngineAcrossTheWireInGuest.GUEST_PORT).rdma(Device.SIW.kind)
                        .timeout(Duration.ofMinutes(20)).name("verbs-wire"));
                try (SiwVmRun vmRun = boots.start(spec)) {
                    int forwarded = vmRun.hostPort(EngineAcrossTheWireInGuest.GUEST_PORT);
                    Path pcap = SiwVm.logs().resolve("verbs-wire.pcap");
                    LoopbackCapture capture = LoopbackCapture.start(CaptureReader.tcpPorts(List.of(hostPort,
                            forwarded)), pcap);
                    Throwable hostServer = null;
                    Throwable hostClient = null;
                    SiwVmResult result;
                    try {
                        try {
                            accepted.get(WAIT, TimeUnit.SECONDS);
                            server.closed().get(WAIT, TimeUnit.SECONDS);
                            SCENARIO.checkServer(server);
                        } catch (Exception | AssertionError e) {
                            hostServer = e;
                        }
                        try {
                            vmRun.awaitLine(EngineAcrossTheWireInGuest.LISTENING, Duration.ofSeconds(WAIT));
                            EngineScenario.Recorder recorder = SCENARIO.recorder();
                            SmbDirectConnection c = engine.connect(new InetSocketAddress("127.0.0.1", forwarded),
                                    Duration.ofSeconds(60), recorder).toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
                            SCENARIO.runClient(c, recorder);
                        } catch (Exception | AssertionError e) {
                            hostClient = e;
                        }
                        result = vmRun.awaitExit();
                    } finally {
                        capture.close();
                    }
                    capture.decode();
                    return new Run(result, guest.reportOf(result), hostPort, forwarded, hostServer, hostClient,
                            CaptureReader.pdus(capture), kver);
                }
            } finally {
                listener.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
                engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end")).toCompletableFuture()
                        .get(60, TimeUnit.SECONDS);
            }
        } finally {
            timers.shutdownNow();
        }
    }

    @TestFactory
    Stream<DynamicNode> theGuestsSide() {
        return run.guest().tests("siw0 (Linux " + run.kver() + "): ");
    }

    @Test
    void theHostsEngineServedTheGuestsClientByteExact() throws Throwable {
        if (run.hostServer() != null) {
            throw run.hostServer();
        }
    }

    @Test
    void theHostsEngineAsClientOfTheGuestsEngineByteExact() throws Throwable {
        if (run.hostClient() != null) {
            throw run.hostClient();
        }
    }

    @Test
    void theGuestKernelStayedHealthy() {
        assertEquals(List.of(), run.vm().kernelFaults(), run.vm().tail(60));
        assertEquals(0, run.vm().exitCode(), run.vm().tail(60));
    }

    @Test
    void wiresharkDecodesBothConnectionsAsMpaDdpRdmapAndSmbDirectWithEveryCrcGood() {
        List<Executable> checks = new ArrayList<>();
        for (int port : List.of(run.hostPort(), run.forwardedPort())) {
            List<CapturedPdu> pdus = run.pdus().stream().filter(p -> p.srcPort() == port || p.dstPort() == port)
                    .toList();
            checks.add(() -> assertTrue(pdus.stream().anyMatch(p -> p.kind() == CapturedPdu.Kind.MPA_REQUEST),
                    "an MPA Request on " + port));
            checks.add(() -> assertTrue(pdus.stream().anyMatch(p -> p.kind() == CapturedPdu.Kind.MPA_REPLY),
                    "an MPA Reply on " + port));
            for (String op : List.of("Send", "Read Request", "Read Response", "Write")) {
                checks.add(() -> assertTrue(pdus.stream().anyMatch(p -> op.equals(p.operation())
                        || (op.equals("Send") && p.operation().startsWith("Send"))), op + " on " + port));
            }
            checks.add(() -> assertTrue(pdus.stream().anyMatch(p -> p.fields().keySet().stream()
                    .anyMatch(k -> k.startsWith("smb_direct."))), "SMB Direct decoded on " + port));
        }
        assertTrue(run.pdus().size() >= 40, "PDUs decoded: " + run.pdus().size());
        for (CapturedPdu p : run.pdus()) {
            checks.add(() -> assertEquals(List.of(), p.problems(), p.toString()));
            if (p.kind() == CapturedPdu.Kind.FPDU) {
                checks.add(() -> assertEquals("good", p.crc(), p.toString()));
            }
        }
        assertAll(checks);
    }
}
