package smbdirect.interop.verbs;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * The verbs provider's {@code rdma-hardware} tests ({@code VerbsHardwarePingPongTest}: provider-level
 * Sends, RDMA Write and Read of 64 KiB; {@code VerbsHardwareEngineTest}: the engine with 500 B, 64 KiB
 * and 1 MiB messages, RDMA Read and Write, close) between two JVM processes in the siw VM, a server
 * and a client, over Linux's kernel RDMA stack: one VM boot, siw0 (iWARP) then rxe0 (RoCE v2). Both
 * JVMs run the two classes in that order; the client starts once the server's RDMA CM listener is
 * up. Then a third JVM runs {@code VerbsHardwareLockedMemoryTest} with a locked-memory limit of
 * 1 MiB and without {@code CAP_IPC_LOCK}: a registration beyond it is refused naming the limit and
 * the bytes, and the kernel holds nothing of it. Each JVM's tests are reported here by name, per
 * device.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(1800)
class VerbsHardwareInVmTest {

    private static final int PORT = 7471;
    private static final long LOCKED_MEMORY_KIB = 1024;
    private VerbsInVm.Booted booted;

    private static String launch(String role, Device d) {
        return "hw-" + role + "-" + d.kind;
    }

    private static GuestJUnit.Launch side(String role, Device d) {
        return VerbsInVm.verbs(GuestJUnit.require().launch(launch(role, d)), d)
                .select("smbdirect.rdma.verbs.internal.VerbsHardwarePingPongTest")
                .select("smbdirect.rdma.verbs.internal.VerbsHardwareEngineTest")
                .property("smbdirect.verbs.role", role).property("smbdirect.verbs.server", "10.0.2.15:" + PORT)
                .property("smbdirect.verbs.rounds", "20")
                // the client's bind address: siw and rxe have no device/net in sysfs for the probe to find eth0 by
                .property("smbdirect.verbs.bind", GuestVerbs.GUEST_ADDRESS)
                .timeout(Duration.ofMinutes(8));
    }

    private static GuestJUnit.Launch lockedMemory(Device d) {
        return VerbsInVm.verbs(GuestJUnit.require().launch(launch("memlock", d)), d)
                .select("smbdirect.rdma.verbs.internal.VerbsHardwareLockedMemoryTest")
                .property("smbdirect.verbs.bind", GuestVerbs.GUEST_ADDRESS)
                .property("smbdirect.verbs.lockedMemoryBytes", Long.toString(LOCKED_MEMORY_KIB * 1024))
                .lockedMemoryKiB(LOCKED_MEMORY_KIB)
                .timeout(Duration.ofMinutes(4));
    }

    @BeforeAll
    void boot() throws Exception {
        booted = VerbsInVm.boot("verbs-hardware", Duration.ofMinutes(25), List.of(Device.SIW, Device.RXE), d -> {
            GuestJUnit.Launch server = side("server", d);
            GuestJUnit.Launch client = side("client", d);
            return String.join("\n",
                    "( " + server.run() + " ) &",
                    "SERVER=$!",
                    VerbsInVm.awaitCmListener(PORT, 240),
                    client.command(),
                    "wait $SERVER",
                    server.report(),
                    lockedMemory(d).command());
        });
    }

    @TestFactory
    Stream<DynamicNode> serverOverSiw0() {
        return booted.tests(launch("server", Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> clientOverSiw0() {
        return booted.tests(launch("client", Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> lockedMemoryOverSiw0() {
        return booted.tests(launch("memlock", Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> lockedMemoryOverRxe0() {
        return booted.tests(launch("memlock", Device.RXE), Device.RXE);
    }

    @TestFactory
    Stream<DynamicNode> serverOverRxe0() {
        return booted.tests(launch("server", Device.RXE), Device.RXE);
    }

    @TestFactory
    Stream<DynamicNode> clientOverRxe0() {
        return booted.tests(launch("client", Device.RXE), Device.RXE);
    }
}
