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
}
