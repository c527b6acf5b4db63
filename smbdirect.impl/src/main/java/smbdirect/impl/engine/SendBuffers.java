package smbdirect.impl.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;

/**
 * The registered send buffers of a connection, sized by need: a few slots at first, grown by
 * registering further chunks (each as large as everything before it, so the capacity doubles) when
 * a send waits and every slot is in use, up to a maximum (the send credits the connection can use at
 * once). A slot number names one buffer across all chunks: slots {@code [0, first)} are chunk 0 and
 * chunk {@code k ≥ 1} holds slots {@code [first·2^(k-1), first·2^k)} (the last chunk may be shorter).
 *
 * <p>Growth registers memory and allocates; it happens at most log2(maximum / first) times per
 * connection. Taking, giving back and addressing slots allocate nothing. Chunks stay registered
 * until the endpoint is closed, which releases every region registered on it.
 *
 * <p>Not thread-safe: owned by the connection's serial context.
 */
final class SendBuffers extends FreeSlots {

    private static final Logger LOG = LoggerFactory.getLogger(SendBuffers.class);

    /** Slots of the first chunk: one control message (credit grant, keepalive) and one data message. */
    static final int FIRST_CHUNK = 2;

    /** Bytes per slot. */
    final int slotSize;
    private final int first;
    /** log2(first): the first chunk is a power of two, so a slot's chunk is found by shifts. */
    private final int firstShift;
    private final int maxSlots;
    private final ByteBuffer[] chunkBuffer;
    private final MemoryRegion[] chunkRegion;
    private int chunks;
    private int capacity;
    /** Send completions to wait for after a refused growth before registering again. */
    private int growthBackoff;
    /** Growths refused by the provider. */
    private long growthFailures;

    private SendBuffers(int first, int maxSlots, int slotSize) {
        super(first);
        this.first = first;
        this.firstShift = Integer.numberOfTrailingZeros(first);
        this.maxSlots = maxSlots;
        this.slotSize = slotSize;
        int maxChunks = 1;
        for (long c = first; c < maxSlots; c *= 2) {
            maxChunks++;
        }
        this.chunkBuffer = new ByteBuffer[maxChunks];
        this.chunkRegion = new MemoryRegion[maxChunks];
    }

    /**
     * Registers the first chunk ({@code min(FIRST_CHUNK, maxSlots)} slots of {@code slotSize} bytes) on
     * {@code endpoint}.
     *
     * @throws RdmaException when the registration fails (nothing is registered then)
     */
    static SendBuffers register(RdmaEndpoint endpoint, int maxSlots, int slotSize) throws RdmaException {
        return register(endpoint, FIRST_CHUNK, maxSlots, slotSize);
    }

    static SendBuffers register(RdmaEndpoint endpoint, int firstChunk, int maxSlots, int slotSize)
            throws RdmaException {
        if (maxSlots < 1 || firstChunk < 1 || Integer.bitCount(firstChunk) != 1 || slotSize < 1) {
            throw new IllegalArgumentException("send buffers of " + firstChunk + " (a power of two) of at most " + maxSlots
                    + " slots of " + slotSize + " bytes");
        }
        SendBuffers b = new SendBuffers(Math.min(firstChunk, maxSlots), maxSlots, slotSize);
        b.addChunk(endpoint, b.first);
        return b;
    }

    /**
     * Registers the next chunk: as many slots as there are now (the capacity doubles), bounded by the
     * maximum. On failure nothing changes and the slots there are stay usable.
     *
     * @return whether the capacity grew (false when at the maximum already)
     * @throws RdmaException when registering the chunk failed
     */
    boolean grow(RdmaEndpoint endpoint) throws RdmaException {
        if (capacity >= maxSlots) {
            return false;
        }
        addChunk(endpoint, Math.min(capacity, maxSlots - capacity));
        return true;
    }

    /**
     * A send waits and every slot is in use: registers the next chunk (the capacity doubles, up to the
     * maximum). A refused registration loses nothing: the send waits for a slot to complete (every
     * slot is in flight), and growth is tried again after as many completions as there are slots.
     *
     * @param connectionId for the log line of a refusal
     * @return whether slots were added
     */
    boolean growForWaitingSend(RdmaEndpoint endpoint, long connectionId) {
        if (growthBackoff > 0 || capacity >= maxSlots) {
            return false;
        }
        try {
            grow(endpoint);
        } catch (RdmaException | RuntimeException e) {
            growthFailures++;
            growthBackoff = capacity;
            LOG.warn("connection {}: registering more send buffers failed ({} of at most {} slots registered); "
                    + "sends wait for a slot to complete: {}", connectionId, capacity, maxSlots, e.getMessage());
            return false;
        }
        return true;
    }

    /** The Send of {@code slot} completed: the slot is free again. */
    void completed(int slot) {
        give(slot);
        if (growthBackoff > 0) {
            growthBackoff--;
        }
    }

    /** Growths refused by the provider. */
    long growthFailures() {
        return growthFailures;
    }

    private void addChunk(RdmaEndpoint endpoint, int slots) throws RdmaException {
        ByteBuffer b = ByteBuffer.allocateDirect(slots * slotSize).order(ByteOrder.LITTLE_ENDIAN);
        MemoryRegion r = endpoint.register(b, EnumSet.noneOf(MemoryAccess.class));
        chunkBuffer[chunks] = b;
        chunkRegion[chunks] = r;
        chunks++;
        int start = capacity;
        capacity += slots;
        addFree(start, capacity);
    }

    /** Slots registered now. */
    int capacity() {
        return capacity;
    }

    /** The most slots the buffers grow to. */
    int maxSlots() {
        return maxSlots;
    }

    /** Chunks registered now. */
    int chunks() {
        return chunks;
    }

    /** The chunk holding {@code slot}. */
    int chunk(int slot) {
        return 32 - Integer.numberOfLeadingZeros(slot >>> firstShift);
    }

    /** The (little-endian) buffer of chunk {@code k}. */
    ByteBuffer chunkBuffer(int k) {
        return chunkBuffer[k];
    }

    /** The registration of chunk {@code k}. */
    MemoryRegion chunkRegion(int k) {
        return chunkRegion[k];
    }

    /** Byte offset of {@code slot} in its chunk {@code k}. */
    int offset(int k, int slot) {
        return (k == 0 ? slot : slot - (first << (k - 1))) * slotSize;
    }

    /** The (little-endian) buffer holding {@code slot}. */
    ByteBuffer buffer(int slot) {
        return chunkBuffer[chunk(slot)];
    }

    /** The registration holding {@code slot}. */
    MemoryRegion region(int slot) {
        return chunkRegion[chunk(slot)];
    }

    /** Byte offset of {@code slot} in its {@link #buffer(int)} and {@link #region(int)}. */
    int offset(int slot) {
        return offset(chunk(slot), slot);
    }

    /** Registered bytes. */
    long registeredBytes() {
        return (long) capacity * slotSize;
    }
}
