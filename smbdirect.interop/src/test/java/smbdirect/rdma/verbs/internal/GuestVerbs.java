package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import smbdirect.api.rdma.RdmaProvider;

/**
 * Inside the siw VM's guest: the verbs provider on the guest's RDMA device, made exactly as the
 * provider's {@code rdma-hardware} tests make it ({@code VerbsHardwarePingPongTest.provider}: the
 * probe, the device of {@code -Dsmbdirect.verbs.device}, the backend the probe chooses, the
 * completion groups per device of {@code -Dsmbdirect.verbs.completionGroups}, 0 unless set, and the
 * {@code cqSize} of {@code -Dsmbdirect.verbs.cqSize}, 4096 unless set), so every guest test runs the
 * provider the way those tests and an appliance do. In this package for that
 * method's sake; test code only.
 */
public final class GuestVerbs {

    /** The guest's address on eth0 (QEMU user networking), where its RDMA device lives. */
    public static final String GUEST_ADDRESS = "10.0.2.15";

    private GuestVerbs() {
    }

    /** A started verbs provider on the guest's device, bound to its address. */
    public static RdmaProvider provider() {
        return VerbsHardwarePingPongTest.provider(GUEST_ADDRESS);
    }

    /**
     * Whether a peer's Send with Invalidate invalidates memory registered on {@code provider} and
     * its receive completion reports it ({@code VerbsRdmaProvider.remoteInvalidation()}): where not, an
     * SMB client over it must not ask for SMB2_CHANNEL_RDMA_V1_INVALIDATE.
     */
    public static boolean remoteInvalidation(RdmaProvider provider) {
        return ((VerbsRdmaProvider) provider).remoteInvalidation();
    }

    /**
     * Waits (at most 60 s) until {@code rdma res show cm_id} lists an RDMA CM listener on
     * {@code port}: the engine opens its provider's listener on its own thread.
     */
    public static void awaitCmListener(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Process p = new ProcessBuilder("rdma", "res", "show", "cm_id").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            if (out.lines().anyMatch(l -> l.contains("state LISTEN") && l.contains(":" + port + " "))) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no RDMA CM listener on port " + port + " within 60 s");
    }

    /** Shuts down a provider made by {@link #provider()}. */
    public static void shutdown(RdmaProvider provider) {
        ((VerbsRdmaProvider) provider).shutdown();
    }
}
