package smbdirect.rdma.verbs.internal;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;

/**
 * A memory region registered with {@code ibv_reg_mr} on one endpoint's protection domain, the local
 * key its lkey, the address the registered virtual address. The token the peer names is the
 * registration's rkey, or, for a region the peer may access that was registered while the
 * connection was up on a device with type 2 memory windows, the rkey of a window bound over the
 * whole region on the endpoint's queue pair (a peer's Send with Invalidate can invalidate a window,
 * not an {@code ibv_reg_mr} registration). Thread-safe: immutable except for the validity flags and
 * the bind state, which the owning endpoint guards by its lock.
 *
 * <p>Buffer ownership: {@link #buffer()} is a view of the caller's registered bytes; the bytes are
 * lent to the device from a post until its completion.
 */
final class VerbsMemoryRegion implements MemoryRegion {

    private final VerbsEndpoint owner;
    private final VerbsBackend.RegisteredMemory memory;
    private final ByteBuffer buffer;
    private final Set<MemoryAccess> access;
    /** True while the native registration exists (false after deregistration or local invalidate). */
    private final AtomicBoolean registered = new AtomicBoolean(true);
    /** False after a remote invalidation was reported for the token. */
    private volatile boolean tokenValid = true;
    /** The window the peer reaches the region through, {@code null} when it names the registration. */
    private final VerbsBackend.MemoryWindow window;
    /** The window's rkey once bound (the token). */
    private final int windowKey;
    /** Guarded by the owner's lock: the window's bind work request has not completed yet. */
    boolean bindPending;
    /** Guarded by the owner's lock: released while the bind was pending; the bind's completion releases it. */
    boolean releaseWhenBound;

    VerbsMemoryRegion(VerbsEndpoint owner, VerbsBackend.RegisteredMemory memory, ByteBuffer buffer,
            Set<MemoryAccess> access) {
        this(owner, memory, buffer, access, null, 0);
    }

    VerbsMemoryRegion(VerbsEndpoint owner, VerbsBackend.RegisteredMemory memory, ByteBuffer buffer,
            Set<MemoryAccess> access, VerbsBackend.MemoryWindow window, int windowKey) {
        this.owner = owner;
        this.memory = memory;
        this.buffer = buffer;
        this.access = access.isEmpty() ? Collections.emptySet()
                : Collections.unmodifiableSet(EnumSet.copyOf(access));
        this.window = window;
        this.windowKey = windowKey;
        this.bindPending = window != null;
    }

    /** The memory window the token belongs to, {@code null} when it is the registration's rkey. */
    VerbsBackend.MemoryWindow window() {
        return window;
    }

    /**
     * {@code ibv_dealloc_mw} of the window (its rkey dies first), then {@code ibv_dereg_mr}; returns
     * what failed, {@code null} when both succeeded. The caller claimed the deregistration.
     */
    String release(VerbsBackend backend) {
        String failed = releaseWindow(backend);
        String registration = releaseRegistration(backend);
        return failed == null ? registration : registration == null ? failed : failed + "; " + registration;
    }

    /** {@code ibv_dealloc_mw} of the window, if any; returns what failed, {@code null} when nothing did. */
    String releaseWindow(VerbsBackend backend) {
        if (window == null) {
            return null;
        }
        try {
            backend.deallocMw(window);
            return null;
        } catch (java.io.IOException e) {
            return e.getMessage();
        }
    }

    /** {@code ibv_dereg_mr}; returns what failed, {@code null} when it did not. */
    String releaseRegistration(VerbsBackend backend) {
        try {
            backend.deregister(memory);
            return null;
        } catch (java.io.IOException e) {
            return e.getMessage();
        }
    }

    VerbsEndpoint owner() {
        return owner;
    }

    VerbsBackend.RegisteredMemory memory() {
        return memory;
    }

    boolean isRegistered() {
        return registered.get();
    }

    /** Marks the region deregistered; true for the one caller that must release the native registration. */
    boolean claimDeregistration() {
        return registered.compareAndSet(true, false);
    }

    void markRemotelyInvalidated() {
        tokenValid = false;
    }

    @Override
    public int token() {
        return window != null ? windowKey : memory.remoteKey();
    }

    @Override
    public int localKey() {
        return memory.localKey();
    }

    @Override
    public long address() {
        return memory.address();
    }

    @Override
    public int length() {
        return memory.length();
    }

    @Override
    public ByteBuffer buffer() {
        return buffer.duplicate();
    }

    @Override
    public Set<MemoryAccess> access() {
        return access;
    }

    @Override
    public boolean isValid() {
        return registered.get() && tokenValid;
    }

    @Override
    public String toString() {
        return "MemoryRegion[addr=0x" + Long.toHexString(address()) + ", len=" + length() + ", lkey=0x"
                + Integer.toHexString(localKey()) + (window != null ? ", window rkey=0x" : ", rkey=0x")
                + Integer.toHexString(token()) + ", " + access
                + (isValid() ? "" : ", invalid") + "]";
    }
}
