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

/**
 * The SMB Direct engine over the verbs provider on Linux's kernel RDMA stack against Linux's own SMB
 * Direct, in the siw VM ({@code SmbOverVerbsInGuest} in the guest): the engine as client of ksmbd
 * (negotiation, SMB2 NEGOTIATE, a logon), then cifs's {@code mount -o rdma} against the engine.
 * One VM boot, one guest JVM on siw0 (iWARP, ksmbd on 5445), then one on rxe0 (RoCE v2, ksmbd on
 * 445); ksmbd is started fresh for each.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(1800)
class VerbsSmbInVmTest {

    private VerbsInVm.Booted booted;

    private static String launch(Device d) {
        return "smb-" + d.kind;
    }

    @BeforeAll
    void boot() throws Exception {
        booted = VerbsInVm.boot("verbs-smb", Duration.ofMinutes(20), List.of(Device.SIW, Device.RXE), d -> {
            GuestJUnit.Launch l = VerbsInVm.verbs(GuestJUnit.require().launch(launch(d)), d)
                    .select("smbdirect.interop.siw.SmbOverVerbsInGuest")
                    .property("org.slf4j.simpleLogger.log.smbdirect.interop", "info").timeout(Duration.ofMinutes(8));
            return String.join("\n",
                    // ksmbd-up adds user a; a second start in this boot needs its user database gone
                    "rm -f /etc/ksmbd/ksmbdpwd.db",
                    "ksmbd-up || echo 'KSMBD FAILED'",
                    "loadmods cifs || echo 'CIFS FAILED'",
                    "rdma res show cm_id",
                    l.command(),
                    // ksmbd keeps the SMB Direct port it chose when a device appeared (5445 once an iWARP
                    // device was seen): unload it, so the next phase's device chooses afresh
                    "ksmbd.control -s >/dev/null 2>&1; sleep 1; rmmod ksmbd || echo 'RMMOD KSMBD FAILED'",
                    "dmesg | grep -iE 'cifs|smbd|smb_direct|ksmbd' | grep -iv 'module\\|taint' | tail -20 | sed 's/^/dmesg: /'");
        });
    }

    @TestFactory
    Stream<DynamicNode> overSiw0() {
        return booted.tests(launch(Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> overRxe0() {
        return booted.tests(launch(Device.RXE), Device.RXE);
    }
}
