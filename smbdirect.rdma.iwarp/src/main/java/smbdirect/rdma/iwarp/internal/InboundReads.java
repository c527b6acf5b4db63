package smbdirect.rdma.iwarp.internal;

/**
 * The inbound read queue: RDMA Read Requests of the peer waiting for or being answered by a Read
 * Response, answered in arrival order, at most the negotiated IRD (RFC 5040 §5.4: one more is a
 * Terminate RDMAP / Remote Operation / 0x07, as Linux siw sends it). I/O thread only.
 */
final class InboundReads {

    private final InboundRead[] ring;
    private int head;
    private int count;

    InboundReads(int ird) {
        ring = new InboundRead[ird];
        for (int i = 0; i < ird; i++) {
            ring[i] = new InboundRead();
        }
    }

    int capacity() {
        return ring.length;
    }

    boolean isFull() {
        return count == ring.length;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** The slot the next request goes to (check {@link #isFull()} first); {@link #add()} commits it. */
    InboundRead next() {
        InboundRead r = ring[(head + count) % ring.length];
        r.source = null;
        r.sent = 0;
        r.started = false;
        return r;
    }

    void add() {
        count++;
    }

    InboundRead peek() {
        return count == 0 ? null : ring[head];
    }

    void pop() {
        head = (head + 1) % ring.length;
        count--;
    }
}
