package smbdirect.impl.engine;

/**
 * The free slots of a connection's registered buffers, on a stack: the slot given back last is
 * taken first (its bytes are the most likely to be in the cache). Slots are numbered from 0; whoever
 * takes a slot gives it back exactly once, when its work request completed. The receive buffers
 * ({@link BufferPool}) and the send buffers ({@link SendBuffers}) are both such a set of slots; they
 * extend this class so that taking and giving back a slot on the data path costs no further
 * indirection.
 *
 * <p>Not thread-safe: owned by the connection's serial context. Allocation-free except when slots
 * are added beyond the stack's size.
 */
class FreeSlots {

    private int[] free;
    private int count;

    FreeSlots(int capacity) {
        this.free = new int[capacity];
    }

    /** Takes a free slot; call only when {@link #available()} is positive. */
    final int take() {
        return free[--count];
    }

    /** Gives a slot back. */
    final void give(int slot) {
        free[count++] = slot;
    }

    /** Free slots. */
    final int available() {
        return count;
    }

    /**
     * Adds the new slots {@code [from, to)} as free, {@code from} on top (taken first); the slots are
     * {@code [0, to)} from now on.
     */
    final void addFree(int from, int to) {
        if (free.length < to) {
            int[] f = new int[to];
            System.arraycopy(free, 0, f, 0, count);
            free = f;
        }
        for (int s = to - 1; s >= from; s--) {
            free[count++] = s;
        }
    }
}
