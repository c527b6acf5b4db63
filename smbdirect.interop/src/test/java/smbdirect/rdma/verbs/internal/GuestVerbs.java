package smbdirect.rdma.verbs.internal;

import smbdirect.api.rdma.RdmaProvider;

/**
 * Inside the siw VM's guest: the verbs provider on the guest's RDMA device, made exactly as the
 * provider's {@code rdma-hardware} tests make it ({@code VerbsHardwarePingPongTest.provider}: the
 * probe, the device of {@code -Dsmbdirect.verbs.device}, the backend the probe chooses), so every
 * guest test runs the provider the way those tests and an appliance do. In this package for that
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

    /** Shuts down a provider made by {@link #provider()}. */
    public static void shutdown(RdmaProvider provider) {
        ((VerbsRdmaProvider) provider).shutdown();
    }
}
