package smbdirect.rdma.verbs.internal;

/**
 * A device's protection domain, shared by its completion groups ({@link DeviceGroups}): every
 * queue pair, registration and memory window of the device's endpoints is made on it, whichever
 * group completes their work. Each group holds it from its creation until it destroyed its
 * completion queue; the last one deallocates it. Thread-safe.
 */
final class DeviceDomain {

    private final VerbsBackend backend;
    private final VerbsBackend.Device device;
    private final VerbsBackend.ProtectionDomain pd;
    /** The groups that hold the domain; guarded by this. */
    private int holders = 1;
    /** The device failed (IBV_EVENT_DEVICE_FATAL): its groups take no new endpoint and none is made. */
    private volatile boolean failed;

    /** A domain held by its first group. */
    DeviceDomain(VerbsBackend backend, VerbsBackend.Device device, VerbsBackend.ProtectionDomain pd) {
        this.backend = backend;
        this.device = device;
        this.pd = pd;
    }

    VerbsBackend.Device device() {
        return device;
    }

    VerbsBackend.ProtectionDomain pd() {
        return pd;
    }

    /** One more group holds the domain; only while another group still holds it. */
    synchronized void retain() {
        if (holders == 0) {
            throw new IllegalStateException("the protection domain of device " + device.key() + " was deallocated");
        }
        holders++;
    }

    /** A group destroyed its completion queue (or was never made); the last one deallocates the domain. */
    void release() {
        synchronized (this) {
            if (holders == 0 || --holders > 0) {
                return;
            }
        }
        backend.deallocPd(pd);
    }

    /** Whether the domain was deallocated. */
    synchronized boolean isReleased() {
        return holders == 0;
    }

    void failed() {
        failed = true;
    }

    boolean isFailed() {
        return failed;
    }
}
