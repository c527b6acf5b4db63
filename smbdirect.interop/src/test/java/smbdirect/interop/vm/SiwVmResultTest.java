package smbdirect.interop.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * What a VM run's console tells (no VM needed): the command's output, the kernel's log after it,
 * and the kernel faults: crashes, and WARNING splats and hung tasks unless known for the kernel.
 */
class SiwVmResultTest {

    private static final String KERNEL = "6.1.0-56-amd64";
    private static final String SPLAT = "<4>[   41.123456] WARNING: CPU: 0 PID: 57 at drivers/infiniband/sw/siw/siw_cm.c:123"
            + " siw_cm_work_handler+0x1a/0x2b0 [siw]";
    private static final String HUNG = "[  245.000001] INFO: task kworker/0:1:23 blocked for more than 120 seconds.";

    private static SiwVmResult run(String... lines) {
        return new SiwVmResult(0, List.of(lines), Duration.ofSeconds(5), Path.of("console.log"), KERNEL);
    }

    private static final SiwVmResult RUN = run("[    0.000000] Linux version 6.1.0-56-amd64", "[init] loaded",
            SiwVmResult.BEGIN, "rping rc=0", "WARNING: a tool's own line is not the kernel's", HUNG,
            SiwVmResult.KERNEL_LOG, "<6>[    1.0] siw: loaded", SPLAT, "<4>[   41.2] Call Trace:",
            SiwVmResult.END + "0 ===");

    @Test
    void theOutputIsTheCommandsLinesAndTheKernelLogFollowsIt() {
        assertEquals(List.of("rping rc=0", "WARNING: a tool's own line is not the kernel's", HUNG), RUN.output());
        assertEquals(List.of("<6>[    1.0] siw: loaded", SPLAT, "<4>[   41.2] Call Trace:"), RUN.kernelLog());
    }

    @Test
    void warningSplatsAndHungTasksAreFaultsUnlessKnownForTheKernel() {
        assertEquals(List.of(HUNG, SPLAT), SiwVmResult.kernelFaults(RUN.console(), KERNEL, (k, l) -> false));
        assertEquals(List.of(HUNG), SiwVmResult.kernelFaults(RUN.console(), KERNEL,
                (k, l) -> k.equals(KERNEL) && l.contains("siw_cm_work_handler")));
        assertEquals(List.of(HUNG, SPLAT), SiwVmResult.kernelFaults(RUN.console(), "6.1.0-57-amd64",
                (k, l) -> k.equals(KERNEL) && l.contains("siw_cm_work_handler")), "known for another kernel only");
    }

    @Test
    void crashesAreFaultsWhateverIsKnown() {
        SiwVmResult r = run(SiwVmResult.BEGIN, "[   12.5] BUG: kernel NULL pointer dereference, address: 0000000000000008",
                SiwVmResult.END + "0 ===");
        assertEquals(1, SiwVmResult.kernelFaults(r.console(), KERNEL, (k, l) -> true).size());
    }

    @Test
    void theKnownListReadsAndMatchesNothingUnlisted() {
        assertFalse(KnownGuestWarnings.isKnown(KERNEL, SPLAT));
    }

    /** cifs's drain of a full receive queue on rxe (the list says why), known on 6.12 only. */
    @Test
    void cifssDrainOfAFullReceiveQueueIsKnownOn612Only() {
        String drain = "<4>[  125.358116] WARNING: CPU: 0 PID: 1673 at drivers/infiniband/core/verbs.c:2906"
                + " __ib_drain_rq+0x1be/0x1d0 [ib_core]";
        assertTrue(KnownGuestWarnings.isKnown("6.12.117+deb12-amd64", drain));
        assertFalse(KnownGuestWarnings.isKnown(KERNEL, drain), "on 6.1");
        assertFalse(KnownGuestWarnings.isKnown("6.12.117+deb12-amd64", SPLAT), "siw's own warning on 6.12");
    }

    private static final String K612 = "6.12.117+deb12-amd64";

    /** A crash report of cifs's SMB Direct disconnect work as 6.12.117 printed it (2026-11-29), headed by {@code first}. */
    private static List<String> cifsDisconnectWorkCrash(String first) {
        return List.of(first,
                "[  189.756427] #PF: supervisor read access in kernel mode",
                "[  189.757238] Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI",
                "[  189.757696] CPU: 0 UID: 0 PID: 9 Comm: kworker/0:0 Tainted: G           OE      " + K612 + " #1",
                "[  189.758429] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014",
                "[  189.758731] Workqueue: smbd_00000000fea73dc5 smbd_disconnect_rdma_work [cifs]",
                "[  189.759366] RIP: 0010:rdma_disconnect+0x33/0x170 [rdma_cm]",
                "[  189.765974] ---[ end trace 0000000000000000 ]---");
    }

    private static List<String> console(List<String> a, String... more) {
        List<String> all = new java.util.ArrayList<>(List.of(SiwVmResult.BEGIN, "fsio v311 done"));
        all.addAll(a);
        all.addAll(List.of(more));
        all.add(SiwVmResult.END + "0 ===");
        return all;
    }

    @Test
    void crashesInCifssDisconnectWorkAreToldApartByTheirWorkqueueLine() {
        List<String> nullDeref = cifsDisconnectWorkCrash(
                "QueryDirectories: 2 total 0 failed[  189.755951] BUG: kernel NULL pointer dereference, address: 0000000000000528");
        assertTrue(SiwVmResult.onlyCifsDisconnectWorkCrashes(console(nullDeref), K612));
        List<String> iwcmBug = List.of("IOCTLs: 1 total 1 failed[   71.663862] kernel BUG at drivers/infiniband/core/iwcm.c:341!",
                "[   71.664635] Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI",
                "[   71.666082] Workqueue: smbd_00000000cacd9b4c smbd_disconnect_rdma_work [cifs]",
                "[   71.666677] RIP: 0010:iw_cm_disconnect+0x14b/0x160 [iw_cm]");
        assertTrue(SiwVmResult.onlyCifsDisconnectWorkCrashes(console(iwcmBug), K612));

        List<String> siwCrash = List.of("[   12.5] BUG: kernel NULL pointer dereference, address: 0000000000000008",
                "[   12.6] Oops: 0000 [#1] PREEMPT SMP NOPTI", "[   12.7] Workqueue: iw_cm_wq cm_work_handler [iw_cm]",
                "[   12.8] RIP: 0010:siw_cm_work_handler+0x1a/0x2b0 [siw]");
        assertFalse(SiwVmResult.onlyCifsDisconnectWorkCrashes(console(siwCrash), K612), "another work item's crash");
        assertFalse(SiwVmResult.onlyCifsDisconnectWorkCrashes(console(nullDeref, siwCrash.toArray(String[]::new)), K612),
                "cifs's crash and another");
        List<String> siwFirst = new java.util.ArrayList<>(siwCrash);
        siwFirst.add("[   12.9] ---[ end trace 0000000000000000 ]---");
        assertFalse(SiwVmResult.onlyCifsDisconnectWorkCrashes(console(siwFirst, nullDeref.toArray(String[]::new)), K612),
                "another crash, then cifs's");
        assertFalse(SiwVmResult.onlyCifsDisconnectWorkCrashes(console(nullDeref, HUNG), K612), "cifs's crash and a hung task");
        assertFalse(SiwVmResult.onlyCifsDisconnectWorkCrashes(console(List.of()), K612), "no fault at all");
    }
}
