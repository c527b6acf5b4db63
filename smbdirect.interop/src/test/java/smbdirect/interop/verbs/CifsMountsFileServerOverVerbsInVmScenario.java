package smbdirect.interop.verbs;

import java.time.Duration;

import smbdirect.interop.vm.GuestJUnit;
import smbdirect.interop.vm.SiwVm;
import smbdirect.interop.verbs.VerbsInVm.Device;

/**
 * Linux cifs mounts the reference file server over SMB Direct inside the siw VM: the server in a
 * guest JVM over the verbs provider (rdma-core backend) on the guest's RDMA device, cifs in the
 * same kernel ({@code smbdirect.interop.fileserver.FileServerOverVerbsInGuest}, which says what is
 * checked). One VM boot, one guest JVM on siw0 (iWARP, port 5445), then one on rxe0 (RoCE v2, port
 * 445); each guest test is reported here named after the device and the guest's kernel. The guest
 * boots the image with Debian 12's 6.12 kernel ({@link SiwVm#KERNEL_6_12}): on 6.1 the guest kernel
 * oopses in the first mounts on both devices (a page fault in the sender's memcpy: siw_tx_hdt on
 * siw0, rxe_mr_copy on rxe0), because 6.1's cifs maps its compound padding with {@code virt_to_page}
 * (tools/siw-vm/PROOF.md g).
 *
 * <p>On 6.12.117+deb12-amd64 (one boot) no device oopses and 13 of its 16 checks pass: a device
 * context stays after the provider's shutdown on both devices, and on rxe0 the server ends one of
 * cifs's connections for an empty message in the middle of a fragmented one (R-3.1.5.8-18), so a
 * mount takes two connections.
 *
 * <p><b>Outside the normal build</b> (its name is no test's): on 6.1.0-50-amd64, besides that oops, 2 of its 8 checks
 * fail on both devices: after the unmounts the guest's {@code rdma resource show} keeps one protection
 * domain and one completion queue more than before the first mount (the verbs provider holds them
 * after its first connection) and a device context after the provider's shutdown; on rxe0 the guest
 * logs a {@code __ib_drain_rq} WARNING. Run it by name:
 * {@code mvn -B verify -pl smbdirect.interop -am -Dtest=CifsMountsFileServerOverVerbsInVmScenario
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class CifsMountsFileServerOverVerbsInVmScenario extends PerDeviceVmTest {

    @Override
    String name() {
        return "fs-verbs";
    }

    @Override
    String kernel() {
        return SiwVm.KERNEL_6_12;
    }

    @Override
    GuestJUnit.Launch configure(GuestJUnit.Launch launch, Device device) {
        return launch.select("smbdirect.interop.fileserver.FileServerOverVerbsInGuest")
                .property("org.slf4j.simpleLogger.log.smbdirect", "info").heapMb(384)
                .timeout(Duration.ofMinutes(12));
    }

    @Override
    String phase(Device device, GuestJUnit.Launch launch) {
        return String.join("\n",
                "uname -r; cat /proc/version",
                "loadmods cifs || echo 'CIFS FAILED'",
                "rdma resource show",
                launch.command(),
                "rdma resource show",
                "dmesg | grep -iE 'cifs|smbd|smb_direct' | grep -iv 'module\\|taint' | tail -30 | sed 's/^/dmesg: /'");
    }
}
