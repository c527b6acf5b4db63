package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.EnumSet;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;

/**
 * A registration beyond the locked-memory limit ({@code RLIMIT_MEMLOCK}): the caller is told the
 * call, the errno, the bytes asked and the limit in force, and nothing is left half-registered.
 */
class LockedMemoryLimitTest {

    private static final String LIMITS = String.join("\n",
            "Limit                     Soft Limit           Hard Limit           Units     ",
            "Max cpu time              unlimited            unlimited            seconds   ",
            "Max locked memory         8388608              8388608              bytes     ",
            "Max address space         unlimited            unlimited            bytes     ");

    @Test
    void theSoftLimitIsReadFromTheKernelsAccountOfTheProcessLimits() {
        assertEquals(8388608, LockedMemoryLimit.softLimit(LIMITS));
        assertEquals(Long.MAX_VALUE, LockedMemoryLimit.softLimit(LIMITS.replace("8388608              8388608",
                "unlimited            unlimited")));
        assertEquals(-1, LockedMemoryLimit.softLimit("Limit  Soft Limit  Hard Limit  Units\n"));
        assertTrue(LockedMemoryLimit.current() != -1 || !System.getProperty("os.name").equals("Linux"),
                "Linux has /proc/self/limits");
    }

    @Test
    void aRegistrationRefusedWithEnomemNamesTheBytesAskedAndTheLimitAndHoldsNothing() throws Exception {
        Harness h = new Harness();
        VerbsEndpoint ep = h.established(new RecordingHandler(), 4, 4);
        h.backend.registerFailure = new NativeCallException("ibv_reg_mr", LockedMemoryLimit.ENOMEM,
                "ENOMEM (Cannot allocate memory)", "");
        RdmaException e = assertThrows(RdmaException.class,
                () -> ep.register(Harness.direct(4 << 20), EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE)));
        long limit = LockedMemoryLimit.current();
        String m = e.getMessage();
        assertTrue(m.startsWith("ibv_reg_mr of 4194304 bytes"), m);
        assertTrue(m.contains("errno 12 ENOMEM"), m);
        assertTrue(limit == Long.MAX_VALUE ? m.contains("RLIMIT_MEMLOCK) is unlimited")
                : m.contains("RLIMIT_MEMLOCK), " + limit + " bytes for this process"), m);
        assertTrue(h.backend.liveRegions.isEmpty(), "nothing registered: " + h.backend.liveRegions);

        h.backend.registerFailure = null;
        MemoryRegion small = ep.register(Harness.direct(65536), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        assertEquals(1, h.backend.liveRegions.size(), "the endpoint goes on registering");
        ep.deregister(small);
        assertTrue(h.backend.liveRegions.isEmpty());
    }

    @Test
    void otherFailuresGetNoLimitExplanation() {
        assertEquals("", LockedMemoryLimit.explain(new NativeCallException("ibv_reg_mr", 14, "EFAULT (Bad address)", ""),
                4096, 8388608));
        assertEquals("", LockedMemoryLimit.explain(new IOException("register: injected failure"), 4096, 8388608));
        assertTrue(LockedMemoryLimit.explain(new NativeCallException("ibv_reg_mr", 12, "", ""), 4096, -1)
                .contains("unknown (/proc/self/limits unreadable)"));
    }
}
