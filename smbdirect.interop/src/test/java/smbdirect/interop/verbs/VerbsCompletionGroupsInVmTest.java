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
 * Several completion groups per device on the kernel's RDMA stack, on siw0, then rxe0, in one VM
 * boot ({@code VerbsCompletionGroupsInGuest}): a server JVM and a client JVM, each provider with
 * {@code completionGroups} {@value #GROUPS}, hold {@value #CONNECTIONS} connections open at once
 * (the client opens them from several threads together). Every connection registers its buffers
 * once and runs rounds, driven by its callbacks on the completion threads, of a Send each way, an
 * RDMA Write and an RDMA Read of 6 KiB whose bytes are checked one by one. Each side asserts on its
 * provider that the endpoints are spread 16 per group over 4 groups, that every callback of an
 * endpoint ran on its group's thread ({@code smbdirect-verbs-cq-KEY-INDEX}, 4 in all), that the
 * kernel lists at least 4 completion queues of its process while connected and that the completion
 * threads allocate nothing in steady state (per-thread allocation counters over measured rounds
 * after warm-up); the client also that its groups are retired and the kernel lists nothing of its
 * threads once every connection is closed, the server that the device's counts are those before
 * either provider started once both shut down. No timing is asserted: QEMU's TCG is slow.
 *
 * <p>Completion queues of {@value #CQ_SIZE} entries ({@code cqSize}, default 4096), queues of 4: siw
 * maps every completion queue, send queue and receive queue of a process's device context into it
 * at offsets handed out page by page, and rdma-core's libsiw takes the offset 0x90000
 * ({@code SIW_INVAL_UOBJ_KEY}, {@code SIW_UOBJ_MAX_KEY + 1} of {@code rdma/siw-abi.h}) for "no
 * mapping": the queue that lands on page 144 of a context cannot be created
 * ({@code rdma_create_qp} fails, errno ENOENT or none), nor any after it. A completion queue of 4096
 * entries takes 33 pages, a queue pair with small queues 2: with 4 groups of 4096 entries only 6
 * connections fit (4 x 33 + 6 x 2 = 144), with one group 55. With {@value #CQ_SIZE} entries (3
 * pages) 4 groups and 64 connections take 140 pages on each side.
 *
 * <p>The guest shell starts the client once the server's RDMA CM listener is up; each guest test is
 * reported here by name, per device and guest kernel.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(2400)
class VerbsCompletionGroupsInVmTest {

    static final int CONNECTIONS = 64;
    static final int GROUPS = 4;
    static final int CQ_SIZE = 256;
    private static final int PORT = 7483;
    private VerbsInVm.Booted booted;

    private static String launch(String role, Device d) {
        return "groups-" + role + "-" + d.kind;
    }

    private static String dir(Device d) {
        return "/tmp/groups-" + d.kind;
    }

    private static GuestJUnit.Launch groups(String role, Device d) {
        return VerbsInVm.verbs(GuestJUnit.require().launch(launch(role, d)), d)
                .select("smbdirect.rdma.verbs.internal.VerbsCompletionGroupsInGuest")
                .property("smbdirect.verbs.role", role).property("smbdirect.verbs.server", "10.0.2.15:" + PORT)
                .property("smbdirect.verbs.bind", GuestVerbs.GUEST_ADDRESS)
                .property("smbdirect.verbs.completionGroups", Integer.toString(GROUPS))
                .property("smbdirect.verbs.cqSize", Integer.toString(CQ_SIZE))
                .property("smbdirect.verbs.groupsDir", dir(d))
                // the spread, the threads, the kernel's ledger and the allocation windows on the console
                .property("org.slf4j.simpleLogger.log.smbdirect.rdma.verbs.internal.VerbsCompletionGroupsInGuest",
                        "info")
                .timeout(Duration.ofMinutes(12));
    }

    @BeforeAll
    void boot() throws Exception {
        booted = VerbsInVm.boot("verbs-completion-groups", Duration.ofMinutes(35), List.of(Device.SIW, Device.RXE),
                d -> {
                    GuestJUnit.Launch server = groups("server", d);
                    return String.join("\n",
                            "rm -rf " + dir(d) + "; mkdir -p " + dir(d),
                            "( " + server.run() + " ) &",
                            "SERVER=$!",
                            VerbsInVm.awaitCmListener(PORT, 120),
                            groups("client", d).command(),
                            "wait $SERVER",
                            server.report());
                });
    }

    @TestFactory
    Stream<DynamicNode> clientOverSiw0() {
        return booted.tests(launch("client", Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> serverOverSiw0() {
        return booted.tests(launch("server", Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> clientOverRxe0() {
        return booted.tests(launch("client", Device.RXE), Device.RXE);
    }

    @TestFactory
    Stream<DynamicNode> serverOverRxe0() {
        return booted.tests(launch("server", Device.RXE), Device.RXE);
    }
}
