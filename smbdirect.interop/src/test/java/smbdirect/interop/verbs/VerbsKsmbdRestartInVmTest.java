package smbdirect.interop.verbs;

import java.time.Duration;

import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.interop.vm.SiwVm;

/**
 * ksmbd restarted in the middle of a session, the engine over the verbs provider as its client, in
 * the siw VM ({@code KsmbdRestartInGuest} in the guest): the session's connection ends with a
 * reason when ksmbd stops, and the restarted ksmbd serves a new connection. One VM boot, siw0 (ksmbd
 * on 5445), then rxe0 (ksmbd on 445); ksmbd is started fresh for each. On the image with Debian 12's
 * 6.12 kernel ({@link SiwVm#KERNEL_6_12}): on 6.1 (6.1.0-56-amd64) stopping ksmbd with an SMB Direct
 * session open oopses the guest, two boots of two (a general protection fault on a poisoned list
 * entry in {@code ksmbd_conn_transport_destroy}, from {@code ksmbd.control -s}: the interop README).
 */
class VerbsKsmbdRestartInVmTest extends PerDeviceVmTest {

    @Override
    String name() {
        return "ksmbd-restart";
    }

    @Override
    String kernel() {
        return SiwVm.KERNEL_6_12;
    }

    @Override
    GuestJUnit.Launch configure(GuestJUnit.Launch launch, Device device) {
        return launch.select("smbdirect.interop.siw.KsmbdRestartInGuest")
                .property("org.slf4j.simpleLogger.log.smbdirect.interop", "info").timeout(Duration.ofMinutes(6));
    }

    @Override
    String phase(Device device, GuestJUnit.Launch launch) {
        return String.join("\n",
                // ksmbd-up adds user a; a second start in this boot needs its user database gone
                "rm -f /etc/ksmbd/ksmbdpwd.db",
                "ksmbd-up || echo 'KSMBD FAILED'",
                "rdma res show cm_id",
                launch.command(),
                // ksmbd keeps the SMB Direct port it chose when a device appeared: unload it, so the next
                // phase's device chooses afresh
                "ksmbd.control -s >/dev/null 2>&1; sleep 1; rmmod ksmbd || echo 'RMMOD KSMBD FAILED'",
                "dmesg | grep -iE 'smbd|smb_direct|ksmbd' | grep -iv 'module\\|taint' | tail -20 | sed 's/^/dmesg: /'");
    }
}
