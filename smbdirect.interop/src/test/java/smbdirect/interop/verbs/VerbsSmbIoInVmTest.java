package smbdirect.interop.verbs;

import java.time.Duration;

import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;

/**
 * SMB2 READ and WRITE over RDMA channels between the engine over the verbs provider's rdma-core
 * backend and ksmbd, both in the siw VM ({@code SmbIoOverVerbsInGuest} in the guest): ksmbd
 * RDMA-Reads 4 KiB, 1 MiB and 8 MiB WRITEs from our buffers and RDMA-Writes the READs back, with
 * SMB2_CHANNEL_RDMA_V1_INVALIDATE where the provider reports Send with Invalidate, byte-exact, the
 * files hashed in the guest. One VM boot, one guest JVM on siw0 (iWARP, ksmbd on 5445), then one on
 * rxe0 (RoCE v2, ksmbd on 445); ksmbd is started fresh for each.
 */
class VerbsSmbIoInVmTest extends PerDeviceVmTest {

    @Override
    String name() {
        return "verbs-smb-io";
    }

    @Override
    GuestJUnit.Launch configure(GuestJUnit.Launch launch, Device device) {
        return launch.select("smbdirect.interop.siw.SmbIoOverVerbsInGuest")
                .property("org.slf4j.simpleLogger.log.smbdirect.interop", "info").heapMb(384)
                .timeout(Duration.ofMinutes(8));
    }

    @Override
    String phase(Device device, GuestJUnit.Launch launch) {
        return String.join("\n",
                // ksmbd-up adds user a; a second start in this boot needs its user database gone
                "rm -f /etc/ksmbd/ksmbdpwd.db",
                "ksmbd-up || echo 'KSMBD FAILED'",
                launch.command(),
                "ls -ln /tmp/x | sed 's/^/share: /'",
                // ksmbd keeps the SMB Direct port it chose when a device appeared: unload it for the next phase
                "ksmbd.control -s >/dev/null 2>&1; sleep 1; rmmod ksmbd || echo 'RMMOD KSMBD FAILED'",
                "dmesg | grep -iE 'smbd|smb_direct|ksmbd|rdma r/w' | grep -iv 'module\\\\|taint' | tail -20"
                        + " | sed 's/^/dmesg: /'");
    }
}
