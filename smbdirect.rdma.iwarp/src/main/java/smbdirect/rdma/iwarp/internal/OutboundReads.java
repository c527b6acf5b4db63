package smbdirect.rdma.iwarp.internal;

/**
 * The outbound read queue: our RDMA Read Requests waiting for their Read Responses, in request
 * order, at most the negotiated ORD (RFC 5040 §5.4; when full the send queue stalls until a
 * response completes). I/O thread only.
 */
final class OutboundReads {

    private final SendWr[] ring;
    private int head;
    private int count;

    OutboundReads(int ord) {
        ring = new SendWr[Math.max(ord, 1)];
    }

    int capacity() {
        return ring.length;
    }

    boolean isFull() {
        return count == ring.length;
    }

    int size() {
        return count;
    }

    void add(SendWr wr) {
        ring[(head + count) % ring.length] = wr;
        count++;
    }

    SendWr peek() {
        return count == 0 ? null : ring[head];
    }

    SendWr get(int i) {
        return ring[(head + i) % ring.length];
    }

    void pop() {
        ring[head] = null;
        head = (head + 1) % ring.length;
        count--;
    }
}
