package smbdirect.rdma.iwarp.internal;

/**
 * The send queue of one endpoint: a ring of pooled {@link SendWr}s holding at most the configured
 * depth. Posting threads fill and publish slots under the endpoint's lock ({@link #tail} is
 * volatile); the I/O thread transmits them in order ({@link #txNext}), marks them done, and frees
 * them strictly in post order ({@link #head}, volatile, read by posters for the capacity check), so
 * completions come in post order even when an RDMA Read finishes after later Sends.
 */
final class SendQueue {

    private final SendWr[] slots;
    private final int mask;
    final int depth;
    /** Posted work requests (written under the endpoint lock). */
    private volatile long tail;
    /** Completed and freed work requests (written by the I/O thread). */
    private volatile long head;
    /** I/O thread: the next work request to transmit. */
    long txNext;

    SendQueue(int depth) {
        this.depth = depth;
        int size = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        slots = new SendWr[size];
        mask = size - 1;
        for (int i = 0; i < size; i++) {
            slots[i] = new SendWr();
        }
    }

    /** Endpoint lock held: whether another request fits. */
    boolean isFull() {
        return tail - head >= depth;
    }

    /** Endpoint lock held: the slot the next post fills. */
    SendWr next() {
        SendWr w = slots[(int) (tail & mask)];
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

    SendWr at(long seq) {
        return slots[(int) (seq & mask)];
    }

    /** I/O thread: frees the head slot (before its completion is delivered, so a callback may post again). */
    void freeHead() {
        head = head + 1;
    }

    int outstanding() {
        return (int) (tail - head);
    }
}
