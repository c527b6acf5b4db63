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
 * Faults on the kernel's RDMA stack, on siw0, then rxe0, in one VM boot, each between guest JVMs
 * over the verbs provider's rdma-core backend:
 *
 * <ol>
 * <li><b>A peer killed with SIGKILL</b> ({@code VerbsPeerKilledInGuest}): a survivor JVM listens;
 * a victim JVM makes two connections to it and both sides run RDMA Writes, RDMA Reads and Sends on
 * them without end; once both connections have carried 20 rounds, the guest shell {@code kill -9}s
 * the victim. The survivor requires each connection to end with a cause and a reason that put the
 * end on the peer, nothing of the killed process in {@code rdma resource show qp|cq|mr|pd|cm_id},
 * the device's counts back to those it took alone, and a new connection to its listener carrying a
 * Send each way.</li>
 * <li><b>Connections made and ended one after the other</b> ({@code VerbsConnectChurnInGuest}):
 * {@value #CONNECTIONS} connections between a server JVM and a client JVM, a Send each way on each;
 * after each hundred the device's counts equal the first hundred's and the client's resident set
 * has not grown by more than 8 MiB. Under QEMU's TCG on the build machine a connection takes
 * about 0.15 s of guest time on either device: the {@value #CONNECTIONS} took 165 s on siw0 and
 * 157 s on rxe0 (6.1.0-56-amd64, client JVM start included), the whole class 9.5 minutes; the guest
 * class runs any number of hundreds ({@code -Dsmbdirect.verbs.connections}).</li>
 * </ol>
 *
 * The guest shell makes the order: the victim starts once the survivor has written {@code ready};
 * the client once the server's RDMA CM listener is up. Each guest test is reported here by name,
 * per device and guest kernel; the victim's own report is never read (it is killed).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(3000)
class VerbsFaultsInVmTest {

    static final int CONNECTIONS = 1000;
    private static final int KILL_PORT = 7481;
    private static final int CHURN_PORT = 7482;
    private VerbsInVm.Booted booted;

    private static String launch(String role, Device d) {
        return role + "-" + d.kind;
    }

    private static String dir(Device d) {
        return "/tmp/faults-" + d.kind;
    }

    private static GuestJUnit.Launch killed(String role, Device d) {
        return VerbsInVm.verbs(GuestJUnit.require().launch(launch("killed-" + role, d)), d)
                .select("smbdirect.rdma.verbs.internal.VerbsPeerKilledInGuest")
                .property("smbdirect.verbs.role", role).property("smbdirect.verbs.server", "10.0.2.15:" + KILL_PORT)
                .property("smbdirect.verbs.bind", GuestVerbs.GUEST_ADDRESS).property("smbdirect.verbs.faultDir", dir(d))
                .timeout(Duration.ofMinutes(6));
    }

    private static GuestJUnit.Launch churn(String role, Device d) {
        return VerbsInVm.verbs(GuestJUnit.require().launch(launch("churn-" + role, d)), d)
                .select("smbdirect.rdma.verbs.internal.VerbsConnectChurnInGuest")
                .property("smbdirect.verbs.role", role).property("smbdirect.verbs.server", "10.0.2.15:" + CHURN_PORT)
                .property("smbdirect.verbs.bind", GuestVerbs.GUEST_ADDRESS)
                .property("smbdirect.verbs.connections", Integer.toString(CONNECTIONS))
                // each hundred's counts and resident set on the console, for the record
                .property("org.slf4j.simpleLogger.log.smbdirect.rdma.verbs.internal.VerbsConnectChurnInGuest", "info")
                .timeout(Duration.ofMinutes(15));
    }

    /**
     * Guest shell lines that wait (at most {@code seconds}) until {@code file} exists or the survivor's
     * JVM ({@code $SURVIVOR}) has ended.
     */
    private static String awaitFile(String file, int seconds) {
        return "i=0; until [ -f " + file + " ] || ! kill -0 $SURVIVOR 2>/dev/null; do i=$((i+1)); [ $i -gt " + seconds * 5 + " ] && { echo 'NO " + file
                + "'; break; }; sleep 0.2; done";
    }

    @BeforeAll
    void boot() throws Exception {
        booted = VerbsInVm.boot("verbs-faults", Duration.ofMinutes(40), List.of(Device.SIW, Device.RXE), d -> {
            GuestJUnit.Launch survivor = killed("survivor", d);
            GuestJUnit.Launch server = churn("server", d);
            String dir = dir(d);
            return String.join("\n",
                    "rm -rf " + dir + "; mkdir -p " + dir,
                    "( " + survivor.run() + " ) &",
                    "SURVIVOR=$!",
                    awaitFile(dir + "/ready", 120),
                    "( " + killed("victim", d).run() + " ) &",
                    "VICTIM=$!",
                    awaitFile(dir + "/kill", 240),
                    "[ -f " + dir + "/victim.pid ] && echo \"=== KILL -9 $(cat " + dir + "/victim.pid) ===\" && kill -9 $(cat "
                            + dir + "/victim.pid)",
                    "wait $VICTIM",
                    "touch " + dir + "/gone",
                    "wait $SURVIVOR",
                    survivor.report(),
                    "( " + server.run() + " ) &",
                    "SERVER=$!",
                    VerbsInVm.awaitCmListener(CHURN_PORT, 120),
                    churn("client", d).command(),
                    "wait $SERVER",
                    server.report());
        });
    }

    @TestFactory
    Stream<DynamicNode> peerKilledOverSiw0() {
        return booted.tests(launch("killed-survivor", Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> connectChurnClientOverSiw0() {
        return booted.tests(launch("churn-client", Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> connectChurnServerOverSiw0() {
        return booted.tests(launch("churn-server", Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> peerKilledOverRxe0() {
        return booted.tests(launch("killed-survivor", Device.RXE), Device.RXE);
    }

    @TestFactory
    Stream<DynamicNode> connectChurnClientOverRxe0() {
        return booted.tests(launch("churn-client", Device.RXE), Device.RXE);
    }

    @TestFactory
    Stream<DynamicNode> connectChurnServerOverRxe0() {
        return booted.tests(launch("churn-server", Device.RXE), Device.RXE);
    }
}
