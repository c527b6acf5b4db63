package smbdirect.interop.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The harness's bounds: a VM past its time limit is killed, a closed VM leaves no process. */
@Timeout(300)
class SiwVmHarnessTest {

    private static ProcessHandle qemu(SiwVmRun run) {
        List<ProcessHandle> live = run.leftovers().stream()
                .filter(h -> h.info().command().orElse("").endsWith("qemu-system-x86_64")).toList();
        assertEquals(1, live.size(), "one qemu runs the VM: " + live);
        return live.get(0);
    }

    @Test
    void aRunPastItsTimeLimitIsKilledAndReports124() throws Exception {
        SiwVm vm = SiwVm.require();
        try (SiwVmRun run = vm.start(SiwVmSpec.command("echo sleeping; sleep 600").timeout(Duration.ofSeconds(20))
                .name("timeout"))) {
            ProcessHandle qemu = qemu(run);
            SiwVmResult r = run.awaitExit();
            assertEquals(SiwVmResult.TIMED_OUT, r.exitCode(), r.tail(20));
            assertEquals(List.of("sleeping"), r.output());
            assertTrue(r.console().stream().anyMatch(l -> l.contains("[run.sh] timeout after 20s")), r.tail(20));
            assertTrue(qemu.onExit().isDone() || !qemu.isAlive(), "qemu is gone");
            assertEquals(List.of(), run.leftovers());
        }
    }

    @Test
    void closingARunningVmLeavesNoProcess() throws Exception {
        SiwVm vm = SiwVm.require();
        SiwVmRun run = vm.start(SiwVmSpec.command("sleep 600").timeout(Duration.ofSeconds(200)).name("close"));
        ProcessHandle qemu;
        try {
            qemu = qemu(run);
            assertTrue(qemu.isAlive());
        } finally {
            run.close();
        }
        assertEquals(List.of(), run.leftovers(), "processes left after close");
        assertTrue(!qemu.isAlive(), "qemu " + qemu.pid() + " is gone");
        assertEquals(-1, run.guestExitCode(), "the command never finished");
    }
}
