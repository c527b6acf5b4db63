package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;

/**
 * A registration beyond the locked-memory limit on a real device (profile {@code rdma-hardware};
 * excluded from the default build). Run it with a small {@code ulimit -l} and without
 * {@code CAP_IPC_LOCK} (the siw VM's launch does both), and
 * {@code -Dsmbdirect.verbs.lockedMemoryBytes} set to that limit in bytes:
 *
 * <pre>
 * ulimit -l 1024; setpriv --bounding-set=-ipc_lock java ... -Dsmbdirect.verbs.lockedMemoryBytes=1048576 \
 *     -Dsmbdirect.verbs.bind=192.0.2.11 ... --select-class smbdirect.rdma.verbs.internal.VerbsHardwareLockedMemoryTest
 * </pre>
 *
 * The kernel refuses the registration ({@code ENOMEM}); the caller is told the call, the errno, the
 * bytes asked and the limit, and the kernel's ledger ({@code rdma resource show}) holds no region
 * of it. The endpoint goes on registering within the limit.
 */
@Tag("rdma-hardware")
class VerbsHardwareLockedMemoryTest {

    private static final int SMALL = 64 * 1024;

    /**
     * The memory regions the kernel holds on the device ({@code rdma resource show}: "mr N" on the
     * device's line; this JVM is the device's only user while the test runs), with what the command
     * printed.
     */
    static Regions kernelRegions() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("rdma", "resource", "show").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "rdma resource show");
        String device = System.getProperty("smbdirect.verbs.device", "");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(" mr (\\d+)").matcher(out.lines()
                .filter(l -> device.isEmpty() || l.contains(" " + device + ":")).findFirst().orElse(""));
        return new Regions(m.find() ? Integer.parseInt(m.group(1)) : -1, out.strip());
    }

    record Regions(int count, String output) {
    }

    @Test
    void aRegistrationBeyondTheLockedMemoryLimitIsRefusedNamingTheLimitAndTheBytesAndHoldsNothing() throws Exception {
        long limit = Long.getLong("smbdirect.verbs.lockedMemoryBytes", -1);
        assertTrue(limit > SMALL, "-Dsmbdirect.verbs.lockedMemoryBytes (the launch's ulimit -l in bytes) is required");
        assertEquals(limit, LockedMemoryLimit.current(), "the process runs with the limit the launch set");
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(System.getProperty("smbdirect.verbs.bind", ""));
        try {
            RdmaEndpoint ep = provider.createEndpoint(new EndpointSettings(4, 4),
                    new VerbsHardwarePingPongTest.Events());
            MemoryRegion small = ep.register(ByteBuffer.allocateDirect(SMALL), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            Regions before = kernelRegions();
            int held = before.count();
            assertTrue(held >= 1, "the kernel lists the region registered: " + before.output());

            long ask = 4 * limit;
            RdmaException refused = assertThrows(RdmaException.class, () -> ep.register(
                    ByteBuffer.allocateDirect((int) ask), EnumSet.of(MemoryAccess.LOCAL_WRITE)));
            String m = refused.getMessage();
            assertTrue(m.startsWith("ibv_reg_mr of " + ask + " bytes"), m);
            assertTrue(m.contains("errno 12"), m);
            assertTrue(m.contains("RLIMIT_MEMLOCK), " + limit + " bytes for this process"), m);
            Regions after = kernelRegions();
            assertEquals(held, after.count(), "nothing half-registered: " + m + "; " + after.output());

            MemoryRegion again = ep.register(ByteBuffer.allocateDirect(SMALL), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            assertEquals(held + 1, kernelRegions().count(), "registering within the limit goes on");
            ep.deregister(again);
            ep.deregister(small);
            assertEquals(held - 1, kernelRegions().count(), "each deregistration releases its region");
            ep.close();
        } finally {
            provider.shutdown();
        }
    }
}
