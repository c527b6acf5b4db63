package smbdirect.interop.verbs;

import java.time.Duration;

import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;

/**
 * The SMB Direct engine over the verbs provider on Linux's kernel RDMA stack against Linux's own SMB
 * Direct, in the siw VM ({@code SmbOverVerbsInGuest} in the guest): the engine as client of ksmbd
 * (negotiation, SMB2 NEGOTIATE, a logon), then cifs's {@code mount -o rdma} against the engine.
 * One VM boot, one guest JVM on siw0 (iWARP, ksmbd on 5445), then one on rxe0 (RoCE v2, ksmbd on
 * 445); ksmbd is started fresh for each.
 */
class VerbsSmbInVmTest extends PerDeviceVmTest {

    @Override
    String name() {
        return "verbs-smb";
    }

    @Override
    GuestJUnit.Launch configure(GuestJUnit.Launch launch, Device device) {
        return launch.select("smbdirect.interop.siw.SmbOverVerbsInGuest")
                .property("org.slf4j.simpleLogger.log.smbdirect.interop", "info").timeout(Duration.ofMinutes(8));
    }

    @Override
    String phase(Device device, GuestJUnit.Launch launch) {
        return String.join("\n",
                // ksmbd-up adds user a; a second start in this boot needs its user database gone
                "rm -f /etc/ksmbd/ksmbdpwd.db",
                "ksmbd-up || echo 'KSMBD FAILED'",
                "loadmods cifs || echo 'CIFS FAILED'",
                "rdma res show cm_id",
                launch.command(),
                // ksmbd keeps the SMB Direct port it chose when a device appeared (5445 once an iWARP
                // device was seen): unload it, so the next phase's device chooses afresh
                "ksmbd.control -s >/dev/null 2>&1; sleep 1; rmmod ksmbd || echo 'RMMOD KSMBD FAILED'",
                "dmesg | grep -iE 'cifs|smbd|smb_direct|ksmbd' | grep -iv 'module\\|taint' | tail -20"
                        + " | sed 's/^/dmesg: /'");
    }
}
