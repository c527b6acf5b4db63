package smbdirect.rdma.iwarp.internal;

/**
 * The receive queue of one endpoint: a ring of pooled {@link RecvWr}s. Posting threads publish under
 * the endpoint's lock ({@link #tail} volatile); the I/O thread hands the oldest untaken receive to the
 * next incoming Send ({@link #taken}) and frees completed ones in post order ({@link #head}).
 */
final class ReceiveQueue {

    private final RecvWr[] slots;
    private final int mask;
    final int depth;
    private volatile long tail;
    private volatile long head;
    /** I/O thread: receives handed to incoming Sends. */
    long taken;

    ReceiveQueue(int depth) {
        this.depth = depth;
        int size = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        slots = new RecvWr[size];
        mask = size - 1;
        for (int i = 0; i < size; i++) {
            slots[i] = new RecvWr();
        }
    }

    boolean isFull() {
        return tail - head >= depth;
    }

    RecvWr next() {
        RecvWr w = slots[(int) (tail & mask)];
        w.reset();
        return w;
    }

    void publish() {
        tail = tail + 1;
    }

    long tail() {
        return tail;
    }

    long head() {
        return head;
    }

    RecvWr at(long seq) {
        return slots[(int) (seq & mask)];
    }

    /** I/O thread: the next posted receive for an incoming Send, or null when none is posted. */
    RecvWr take() {
        if (taken == tail) {
            return null;
        }
        return slots[(int) (taken++ & mask)];
    }

    void freeHead() {
        head = head + 1;
    }
}
