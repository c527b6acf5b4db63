package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;

/**
 * One registration of one endpoint: a 32-bit STag (24-bit random index, 8-bit random key;
 * iwarp.md §6.1), a random page-aligned 64-bit base address that tagged offsets are checked against
 * (iwarp.md §1.3), the access rights, and views of the registered memory.
 *
 * <p>Thread-safety: {@code registered} and {@code valid} are volatile (user threads deregister and
 * the peer's Send with Invalidate invalidates on the I/O thread). The placement and transmit views
 * belong to the endpoint's I/O thread; the consumer's {@link #buffer()} view is never used by the
 * provider, so its position and limit do not matter.
 */
final class IwarpRegion implements MemoryRegion {

    /** Transmit views a region starts with: one per FPDU of a first batch; grown with the batch ({@link Transmitter#MAX_BATCH}). */
    static final int TX_VIEWS = Transmitter.FIRST_BATCH;

    final IwarpEndpoint owner;
    final int stag;
    final int localKey;
    final long base;
    final int length;
    final boolean localWrite;
    final boolean remoteRead;
    final boolean remoteWrite;
    private final ByteBuffer memory;
    private final ByteBuffer userView;
    private final Set<MemoryAccess> access;
    /** I/O thread only: where received payload is placed. */
    private final ByteBuffer rxView;
    /** I/O thread only: each view created on first use; the array grows with the endpoint's batch. */
    private ByteBuffer[] txViews = new ByteBuffer[TX_VIEWS];
    /** I/O thread only: the receiver's views for the posted receives one read fills ahead; created on first use. */
    private ByteBuffer[] aheadViews;
    volatile boolean registered = true;
    volatile boolean valid = true;

    IwarpRegion(IwarpEndpoint owner, ByteBuffer registered, Set<MemoryAccess> access, int stag, int localKey, long base) {
        this.owner = owner;
        this.memory = registered.slice();
        this.userView = memory.duplicate();
        this.rxView = memory.duplicate();
        this.length = memory.capacity();
        this.stag = stag;
        this.localKey = localKey;
        this.base = base;
        EnumSet<MemoryAccess> copy = access.isEmpty() ? EnumSet.noneOf(MemoryAccess.class) : EnumSet.copyOf(access);
        this.access = Collections.unmodifiableSet(copy);
        this.localWrite = copy.contains(MemoryAccess.LOCAL_WRITE);
        this.remoteRead = copy.contains(MemoryAccess.REMOTE_READ);
        this.remoteWrite = copy.contains(MemoryAccess.REMOTE_WRITE);
    }

    /** The STag's 24-bit index (iwarp.md §6.1). */
    static int index(int stag) {
        return stag >>> 8;
    }

    /** I/O thread: the placement view limited to {@code [offset, offset + length)} of the region. */
    ByteBuffer placement(int offset, int length) {
        rxView.limit(offset + length).position(offset);
        return rxView;
    }

    /** I/O thread: transmit view {@code i} limited to {@code [offset, offset + length)}. */
    ByteBuffer transmit(int i, int offset, int length) {
        if (i >= txViews.length) {
            txViews = Arrays.copyOf(txViews, Transmitter.MAX_BATCH);
        }
        ByteBuffer v = txViews[i];
        if (v == null) {
            v = memory.duplicate();
            txViews[i] = v;
        }
        v.limit(offset + length).position(offset);
        return v;
    }

    /**
     * I/O thread: view {@code i} of the receiver's read-ahead into posted receives, limited to
     * {@code [offset, offset + length)} ({@link ReadAhead}).
     */
    ByteBuffer ahead(int i, int offset, int length) {
        if (aheadViews == null) {
            aheadViews = new ByteBuffer[ReadAhead.MAX_FPDUS];
        }
        ByteBuffer v = aheadViews[i];
        if (v == null) {
            v = memory.duplicate();
            aheadViews[i] = v;
        }
        v.limit(offset + length).position(offset);
        return v;
    }

    /** The memory, for absolute copies on the I/O thread. */
    ByteBuffer memory() {
        return memory;
    }

    @Override
    public int token() {
        return stag;
    }

    @Override
    public int localKey() {
        return localKey;
    }

    @Override
    public long address() {
        return base;
    }

    @Override
    public int length() {
        return length;
    }

    /** The same view on every call; the provider never uses its position or limit. */
    @Override
    public ByteBuffer buffer() {
        return userView;
    }

    @Override
    public Set<MemoryAccess> access() {
        return access;
    }

    @Override
    public boolean isValid() {
        return valid && registered;
    }

    @Override
    public String toString() {
        return "MemoryRegion[STag 0x" + Integer.toHexString(stag) + ", base 0x" + Long.toHexString(base) + ", length "
                + length + ", " + access + (registered ? valid ? "" : ", invalidated" : ", deregistered") + "]";
    }
}
