package smbdirect.rdma.iwarp.internal;

import java.util.function.Supplier;

/**
 * A work queue of one endpoint (its send queue or its receive queue): a ring of pooled work
 * requests holding at most the configured depth. Posting threads fill the slot {@link #next()}
 * returns and {@link #publish()} it under the endpoint's lock ({@code tail} is volatile); the I/O
 * thread works through them in order and frees them strictly in post order ({@code head}, volatile,
 * read by posters for the capacity check), so completions leave in post order even when a later
 * request is done first. A slot is freed before its completion is delivered, so a callback may post
 * again at once.
 *
 * @param <W> the pooled work request
 */
final class WorkRequestRing<W extends WorkRequestRing.Slot> {

    /** A pooled work request. */
    interface Slot {
        /** Clears the outcome of the slot's previous use. */
        void reset();
    }

    private final Object[] slots;
    private final int mask;
    final int depth;
    /** Posted requests (written under the endpoint lock). */
    private volatile long tail;
    /** Completed and freed requests (written by the I/O thread). */
    private volatile long head;

    WorkRequestRing(int depth, Supplier<W> factory) {
        this.depth = depth;
        int size = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        slots = new Object[size];
        mask = size - 1;
        for (int i = 0; i < size; i++) {
            slots[i] = factory.get();
        }
    }

    /** Endpoint lock held: whether another request fits. */
    boolean isFull() {
        return tail - head >= depth;
    }

    /** Endpoint lock held: the slot the next post fills, reset. */
    W next() {
        W w = at(tail);
        w.reset();
        return w;
    }

    /** Endpoint lock held: makes the slot filled by {@link #next()} visible to the I/O thread. */
    void publish() {
        tail = tail + 1;
    }

    long tail() {
        return tail;
    }

    long head() {
        return head;
    }

    @SuppressWarnings("unchecked")
    W at(long seq) {
        return (W) slots[(int) (seq & mask)];
    }

    /** I/O thread: frees the head slot. */
    void freeHead() {
        head = head + 1;
    }
}
