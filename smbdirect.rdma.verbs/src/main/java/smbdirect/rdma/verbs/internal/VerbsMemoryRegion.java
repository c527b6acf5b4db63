package smbdirect.rdma.verbs.internal;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;

/**
 * A memory region registered with {@code ibv_reg_mr} on one endpoint's protection domain. The token
 * is the rkey, the local key the lkey, the address the registered virtual address. Thread-safe:
 * immutable except for the validity flag.
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

    VerbsMemoryRegion(VerbsEndpoint owner, VerbsBackend.RegisteredMemory memory, ByteBuffer buffer,
            Set<MemoryAccess> access) {
        this.owner = owner;
        this.memory = memory;
        this.buffer = buffer;
        this.access = access.isEmpty() ? Collections.emptySet()
                : Collections.unmodifiableSet(EnumSet.copyOf(access));
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
        return memory.remoteKey();
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
                + Integer.toHexString(localKey()) + ", rkey=0x" + Integer.toHexString(token()) + ", " + access
                + (isValid() ? "" : ", invalid") + "]";
    }
}
