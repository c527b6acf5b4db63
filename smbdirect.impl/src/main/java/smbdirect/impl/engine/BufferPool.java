package smbdirect.impl.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;

/**
 * One direct buffer registered once for a connection and sliced into equal slots (the receive
 * buffers of the connection; the send buffers grow by need, see {@link SendBuffers}). Slots are
 * taken and given back ({@link FreeSlots}); whoever takes a slot gives it back exactly once, when its
 * work request completed.
 *
 * <p>Not thread-safe: owned by the connection's serial context. Allocation-free after creation.
 */
final class BufferPool extends FreeSlots {

    /** The whole registered buffer (little-endian). */
    final ByteBuffer buffer;
    /** Its registration. */
    final MemoryRegion region;
    /** Bytes per slot. */
    final int slotSize;
    private final int slots;

    private BufferPool(ByteBuffer buffer, MemoryRegion region, int slots, int slotSize) {
        super(slots);
        this.buffer = buffer;
        this.region = region;
        this.slotSize = slotSize;
        this.slots = slots;
        addFree(0, slots);
    }

    /** Allocates and registers {@code slots} x {@code slotSize} bytes on {@code endpoint}. */
    static BufferPool register(RdmaEndpoint endpoint, int slots, int slotSize, Set<MemoryAccess> access)
            throws RdmaException {
        ByteBuffer b = ByteBuffer.allocateDirect(slots * slotSize).order(ByteOrder.LITTLE_ENDIAN);
        return new BufferPool(b, endpoint.register(b, access), slots, slotSize);
    }

    /** All slots. */
    int slots() {
        return slots;
    }

    /** Byte offset of {@code slot} in the buffer and the region. */
    int offset(int slot) {
        return slot * slotSize;
    }
}
