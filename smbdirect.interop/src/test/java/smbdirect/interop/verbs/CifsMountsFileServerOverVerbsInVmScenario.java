package smbdirect.interop.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.interop.fileserver.CifsIo;
import smbdirect.interop.vm.SiwVm;
import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;

/**
 * Linux cifs mounts the reference file server over SMB Direct inside the siw VM: the server in a
 * guest JVM over the verbs provider (rdma-core backend, its default settings) on the guest's RDMA
 * device, cifs in the same kernel ({@code smbdirect.interop.fileserver.FileServerOverVerbsInGuest},
 * which says what is checked). One VM boot, one guest JVM on siw0 (iWARP, port 5445), then one on
 * rxe0 (RoCE v2, port 445); each guest test is reported here named after the device and the guest's
 * kernel. Besides, for each device, {@link #theGuestsRdmaResourcesAreAsBeforeOnceTheGuestJvmExited}:
 * librdmacm keeps the device context it opened until its process exits, so the guest test allows
 * for that one context and this host test checks, after the guest JVM ended, that nothing is left.
 * The guest boots the image with Debian 12's 6.12 kernel ({@link SiwVm#KERNEL_6_12}): on 6.1 the
 * guest kernel oopses in the first mounts on both devices (a page fault in the sender's memcpy:
 * siw_tx_hdt on siw0, rxe_mr_copy on rxe0), because 6.1's cifs maps its compound padding with
 * {@code virt_to_page} (tools/siw-vm/PROOF.md g).
 *
 * <p><b>Outside the normal build</b> (its name is no test's). On 6.12.117+deb12-amd64 (one boot,
 * before the provider released its completion group with its last user and before the guest test
 * allowed librdmacm's context) no device oopsed and 13 of 16 checks passed: the device context after
 * the provider's shutdown failed on both devices (librdmacm's, allowed since), and on rxe0 the server
 * ended one of cifs's connections for an empty message in the middle of a fragmented one
 * (R-3.1.5.8-18, as [MS-SMBD] and Windows do; cifs reconnected, so a mount took two connections).
 * On 6.1 rxe0 also logged a {@code __ib_drain_rq} WARNING from cifs's {@code smbd_destroy}, after
 * which cifs left its connection's RDMA objects. Later runs on 6.12.117 (siw0 alone, as a test of the
 * build): 10 of 10 twice, then in a clean-clone build the same interleaved empty message on siw0
 * ("final fragment (RemainingDataLength 0) with DataLength 0 while FragmentReassemblyRemaining is
 * 98", cifs's "RDMA transport re-established"): the defect is cifs's on either device, so the
 * scenario stays out of the build on both; its data checks (round trips, hashes) passed there too. Run it by name:
 * {@code mvn -B verify -pl smbdirect.interop -am -Dtest=CifsMountsFileServerOverVerbsInVmScenario
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class CifsMountsFileServerOverVerbsInVmScenario extends PerDeviceVmTest {

    private static final String BEFORE = "=== RDMA RESOURCES BEFORE THE GUEST JVM ";
    private static final String AFTER = "=== RDMA RESOURCES AFTER THE GUEST JVM ";
    private static final String END = "=== RDMA RESOURCES END ===";

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
                "echo '" + BEFORE + device.name + " ==='; rdma resource show; echo '" + END + "'",
                launch.command(),
                "echo '" + AFTER + device.name + " ==='; rdma resource show; echo '" + END + "'",
                "dmesg | grep -iE 'cifs|smbd|smb_direct' | grep -iv 'module\\|taint' | tail -30 | sed 's/^/dmesg: /'");
    }

    /**
     * Per device: {@code rdma resource show} after the guest JVM exited equals what it showed before
     * the JVM started (librdmacm's device context included).
     */
    @Test
    void theGuestsRdmaResourcesAreAsBeforeOnceTheGuestJvmExited() {
        List<String> out = booted().result().output();
        String kver = booted().kver();
        for (Device d : List.of(Device.SIW, Device.RXE)) {
            Map<String, Map<String, Long>> before = CifsIo.resources(section(out, BEFORE + d.name));
            Map<String, Map<String, Long>> after = CifsIo.resources(section(out, AFTER + d.name));
            assertFalse(before.isEmpty(), d.name + " " + kver + ": rdma resource show before the guest JVM");
            assertEquals(before, after, d.name + " " + kver + ": rdma resource show after the guest JVM exited (what a "
                    + "process held is gone with it: a difference is the kernel's)");
        }
    }

    /** The lines after the marker line starting with {@code marker} up to the end marker. */
    private static List<String> section(List<String> out, String marker) {
        List<String> lines = new ArrayList<>();
        boolean in = false;
        for (String l : out) {
            if (l.contains(marker)) {
                in = true;
            } else if (in && l.contains(END)) {
                break;
            } else if (in) {
                lines.add(l);
            }
        }
        return lines;
    }
}
