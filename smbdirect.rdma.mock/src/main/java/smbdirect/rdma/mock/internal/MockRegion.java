package smbdirect.rdma.mock.internal;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;

/**
 * A registration of one endpoint. Thread-safe: {@code valid} is volatile, {@code registered} is
 * guarded by the owner's lock. The fabric copies with absolute operations on a private view, so
 * the consumer's use of {@link #buffer()}'s position and limit never matters.
 */
final class MockRegion implements MemoryRegion {
    final MockQueuePair owner;
    final int token;
    final int localKey;
    final long address;
    final int length;
    final ByteBuffer mem;
    private final ByteBuffer view;
    private final Set<MemoryAccess> access;
    final boolean localWrite;
    final boolean remoteRead;
    final boolean remoteWrite;
    volatile boolean valid = true;
    boolean registered = true;

    MockRegion(MockQueuePair owner, ByteBuffer registered, Set<MemoryAccess> access, int token, int localKey,
            long address) {
        this.owner = owner;
        this.mem = registered.slice();
        this.view = mem.duplicate();
        this.length = mem.capacity();
        this.token = token;
        this.localKey = localKey;
        this.address = address;
        EnumSet<MemoryAccess> copy = access.isEmpty() ? EnumSet.noneOf(MemoryAccess.class) : EnumSet.copyOf(access);
        this.access = Collections.unmodifiableSet(copy);
        this.localWrite = copy.contains(MemoryAccess.LOCAL_WRITE);
        this.remoteRead = copy.contains(MemoryAccess.REMOTE_READ);
        this.remoteWrite = copy.contains(MemoryAccess.REMOTE_WRITE);
    }

    @Override
    public int token() {
        return token;
    }

    @Override
    public int localKey() {
        return localKey;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int length() {
        return length;
    }

    /** The same view on every call; the fabric never uses its position or limit. */
    @Override
    public ByteBuffer buffer() {
        return view;
    }

    @Override
    public Set<MemoryAccess> access() {
        return access;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public String toString() {
        return "MemoryRegion[endpoint " + owner.id() + ", token 0x" + Integer.toHexString(token) + ", length "
                + length + ", " + access + (valid ? "" : ", invalid") + "]";
    }
}
