package smbdirect.interop.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.interop.fileserver.CifsIo;
import smbdirect.interop.vm.SiwVm;
import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;

/**
 * Linux cifs mounts the reference file server over SMB Direct inside the siw VM: the server in a
 * guest JVM over the verbs provider (rdma-core backend, its default settings) on the guest's RDMA
 * device, cifs in the same kernel ({@code smbdirect.interop.fileserver.FileServerOverVerbsInGuest},
 * which says what is checked). One VM boot per device, one guest JVM in each: on siw0 (iWARP, port
 * 5445), then on rxe0 (RoCE v2, port 445); each guest test is reported here named after the device
 * and the guest's kernel. Besides, for each device, {@link #theGuestJvmsRdmaObjectsAreGoneOnceItExited}:
 * librdmacm keeps the device context it opened until its process exits, so the guest test allows
 * for that one context and this host test checks, after the guest JVM ended, that none of its
 * objects is left.
 * The guest boots the image with Debian 12's 6.12 kernel ({@link SiwVm#KERNEL_6_12}): on 6.1 the
 * guest kernel oopses in the first mounts on both devices (a page fault in the sender's memcpy:
 * siw_tx_hdt on siw0, rxe_mr_copy on rxe0), because 6.1's cifs maps its compound padding with
 * {@code virt_to_page} (tools/siw-vm/PROOF.md g).
 *
 * <p>cifs on 6.12 sometimes (about one boot in four, on siw0 and on rxe0) sends an empty message
 * between the fragments of one message; the server ends that connection as [MS-SMBD] 3.1.5.8 says
 * (R-3.1.5.8-18, as Windows does; our digest's A-27, peer lesson 4) and cifs connects again: a mount
 * in progress fails once and {@code mount.cifs} retries it, a mounted share reconnects. The guest
 * test takes exactly that ({@code smbdirect.interop.fileserver.MountConnections}: every connection
 * of a mount but its last ended for that empty message, at most two) and judges the I/O over all of
 * a mount's connections; any other end fails. Seen so far, on 6.12.117+deb12-amd64: on rxe0 during
 * the 3.0.2 mount ("FragmentReassemblyRemaining is 192", cifs's "get root inode failed", the mount
 * retried and every check passed), on siw0 in a mounted share ("... is 98", cifs's "RDMA transport
 * re-established"). On 6.1 rxe0 logged a {@code __ib_drain_rq} WARNING from cifs's
 * {@code smbd_destroy}, after which cifs left its connection's RDMA objects (the reason for the 6.12
 * image). On 6.12.117 the guest once (2026-11-29, one boot of many) left siw0 holding cifs's
 * {@code pd 1 cq 2 cm_id 1 mr 64} after the unmount, with {@code smbd_post_recv ... rc=-107} in its
 * log, so that {@code rdma link delete siw0} before the rxe0 phase blocked ("task rdma blocked for
 * more than 120 seconds"): a guest fault, which the run retries, and whose second boot passed. The
 * log fits cifs's credit work posting receives while {@code smbd_destroy} tears the connection down,
 * which cifs upstream later stopped by disabling that work first (smfrench/smb3-kernel pull request
 * 81, 2025-09); whether 6.12.117 carries that change was not checked.
 */
class CifsMountsFileServerOverVerbsInVmTest extends PerDeviceVmTest {

    private static final Logger LOG = LoggerFactory.getLogger(CifsMountsFileServerOverVerbsInVmTest.class);

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
    boolean bootPerDevice() {
        return true;
    }

    @Override
    GuestJUnit.Launch configure(GuestJUnit.Launch launch, Device device) {
        return launch.select("smbdirect.interop.fileserver.FileServerOverVerbsInGuest")
                .property("org.slf4j.simpleLogger.log.smbdirect", "info").heapMb(384)
                .timeout(Duration.ofMinutes(18));
    }

    @Override
    String phase(Device device, GuestJUnit.Launch launch) {
        return String.join("\n",
                "uname -r; cat /proc/version",
                "loadmods cifs || echo 'CIFS FAILED'",
                ledger(BEFORE + device.name),
                launch.command(),
                ledger(AFTER + device.name),
                "dmesg | grep -iE 'cifs|smbd|smb_direct' | grep -iv 'module\\|taint' | tail -30 | sed 's/^/dmesg: /'");
    }

    /**
     * Guest shell lines printing, between the marker line {@code marker} and the end marker, the
     * kernel's resource summary and each of its objects by kind ({@code KIND: } and the line of
     * {@code rdma resource show KIND}), each kind ending with {@code KIND: rc STATUS}.
     */
    private static String ledger(String marker) {
        return "echo '" + marker + " ==='; rdma resource show; for k in "
                + String.join(" ", CifsIo.RDMA_OBJECT_KINDS)
                + "; do { rdma resource show $k; echo \"rc $?\"; } | sed \"s/^/$k: /\"; done; echo '" + END + "'";
    }

    /**
     * Per device: after the guest JVM exited, the guest holds no RDMA object a process owns, as
     * before the JVM started (the JVM was the guest's only RDMA process; what it held, librdmacm's
     * device context included, is gone with it). {@code rdma resource show KIND} names a process's
     * objects with {@code pid N comm NAME} and the kernel's own, cifs's among them, with their module
     * as {@code comm [NAME]}: a change in the kernel's objects (cifs sometimes keeps a connection's
     * objects after its unmount on 6.12.117, see the class comment) is reported, not judged.
     */
    @Test
    void theGuestJvmsRdmaObjectsAreGoneOnceItExited() {
        for (Device d : List.of(Device.SIW, Device.RXE)) {
            List<String> out = booted(d).result().output();
            String on = d.name + " " + booted(d).kver();
            List<String> before = section(out, BEFORE + d.name);
            List<String> after = section(out, AFTER + d.name);
            assertFalse(CifsIo.resources(before).isEmpty(), on + ": rdma resource show before the guest JVM");
            for (String kind : CifsIo.RDMA_OBJECT_KINDS) {
                assertTrue(answered(before, kind) && answered(after, kind),
                        on + ": rdma resource show " + kind + " answered before and after the guest JVM");
            }
            assertEquals(processObjects(before), processObjects(after), on + ": the RDMA objects a process "
                    + "owns, after the guest JVM exited against before it started (what a process held is gone with it)");
            Map<String, Map<String, Long>> summaryBefore = CifsIo.resources(before);
            Map<String, Map<String, Long>> summaryAfter = CifsIo.resources(after);
            if (!summaryBefore.equals(summaryAfter)) {
                LOG.warn("{}: the kernel's own RDMA objects changed while the guest JVM ran (cifs's, not the JVM's): "
                        + "before {}, after {}; after: {}", on, summaryBefore, summaryAfter, kernelObjects(after));
            }
        }
    }

    /** The lines of {@link #ledger} naming a process ({@code pid N}), by kind. */
    private static Map<String, List<String>> processObjects(List<String> ledger) {
        return objects(ledger, true);
    }

    /** The lines of {@link #ledger} naming no process (the kernel's own objects), by kind. */
    private static Map<String, List<String>> kernelObjects(List<String> ledger) {
        return objects(ledger, false);
    }

    private static Map<String, List<String>> objects(List<String> ledger, boolean process) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String kind : CifsIo.RDMA_OBJECT_KINDS) {
            Pattern of = of(kind);
            out.put(kind, ledger.stream().filter(l -> of.matcher(l).find() && !l.contains(kind + ": rc "))
                    .filter(l -> CifsIo.ownedByAProcess(l) == process).toList());
        }
        return out;
    }

    /** Whether {@link #ledger}'s {@code rdma resource show KIND} ended with status 0. */
    private static boolean answered(List<String> ledger, String kind) {
        return ledger.stream().anyMatch(l -> l.contains(kind + ": rc 0"));
    }

    /** A ledger line of {@code kind} (found, not anchored: a kernel message may share the console line). */
    private static Pattern of(String kind) {
        return Pattern.compile("(?<![a-z_])" + kind + ": ");
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
