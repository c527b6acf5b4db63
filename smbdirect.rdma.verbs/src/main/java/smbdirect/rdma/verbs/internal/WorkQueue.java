package smbdirect.rdma.verbs.internal;

import smbdirect.api.rdma.WorkRequestType;

/**
 * The provider's record of the work requests outstanding on one work queue (send or receive), in
 * post order. Verbs completes the requests of one work queue in post order, so a completion always
 * belongs to the oldest entry; the entry supplies the caller's wrId and the request type (the
 * opcode of a failed verbs completion is undefined). A fixed-size ring: no allocation.
 *
 * <p>Not thread-safe: guarded by the owning endpoint's lock.
 */
final class WorkQueue {

    private final String name;
    private final long[] wrIds;
    private final WorkRequestType[] types;
    private final int[] lengths;
    /** Region a deferred local invalidate applies to (null for requests the device executes). */
    private final VerbsMemoryRegion[] invalidations;
    private int head;
    private int size;

    WorkQueue(String name, int capacity) {
        this.name = name;
        this.wrIds = new long[capacity];
        this.types = new WorkRequestType[capacity];
        this.lengths = new int[capacity];
        this.invalidations = new VerbsMemoryRegion[capacity];
    }

    int capacity() {
        return wrIds.length;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean isFull() {
        return size == wrIds.length;
    }

    String name() {
        return name;
    }

    /** Appends an entry; the caller checked {@link #isFull()}. */
    void add(long wrId, WorkRequestType type, int length, VerbsMemoryRegion invalidation) {
        int tail = (head + size) % wrIds.length;
        wrIds[tail] = wrId;
        types[tail] = type;
        lengths[tail] = length;
        invalidations[tail] = invalidation;
        size++;
    }

    /** Removes the newest entry (its post failed). */
    void removeLast() {
        size--;
        invalidations[(head + size) % wrIds.length] = null;
    }

    long headWrId() {
        return wrIds[head];
    }

    WorkRequestType headType() {
        return types[head];
    }

    /** The length the request asked for (bytes of an RDMA transfer). */
    int headLength() {
        return lengths[head];
    }

    VerbsMemoryRegion headInvalidation() {
        return invalidations[head];
    }

    void removeHead() {
        invalidations[head] = null;
        head = (head + 1) % wrIds.length;
        size--;
    }
}
