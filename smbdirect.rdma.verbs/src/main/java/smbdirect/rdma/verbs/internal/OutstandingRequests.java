package smbdirect.rdma.verbs.internal;

import smbdirect.api.rdma.WorkRequestType;

/**
 * The provider's record of the work requests outstanding on one work queue (send or receive), in
 * post order. Verbs completes the requests of one work queue in post order, so a completion always
 * belongs to the oldest entry; the entry supplies the caller's wrId and the request type (the
 * opcode of a failed verbs completion is undefined). A fixed-size ring: no allocation.
 *
 * <p>Besides the caller's requests the send queue carries the provider's own memory window binds
 * ({@link #addBind}), which the handler never sees: the ring has room for {@code capacity} of the
 * caller's requests plus {@code bindCapacity} binds, and each kind is counted against its own share.
 *
 * <p>Not thread-safe: guarded by the owning endpoint's lock.
 */
final class OutstandingRequests {

    private final String name;
    private final int capacity;
    private final int bindCapacity;
    private final long[] wrIds;
    /** The request's type; {@code null} for a memory window bind. */
    private final WorkRequestType[] types;
    private final int[] lengths;
    /** The rkey an RDMA Read or Write names, or the one a Send with Invalidate invalidates. */
    private final int[] tokens;
    /** Whether the request is a Send with Invalidate. */
    private final boolean[] invalidating;
    /** Region a deferred local invalidate applies to (null for requests the device executes). */
    private final VerbsMemoryRegion[] invalidations;
    /** Region whose window a bind entry binds. */
    private final VerbsMemoryRegion[] binds;
    private int head;
    private int size;
    private int bindsQueued;

    OutstandingRequests(String name, int capacity) {
        this(name, capacity, 0);
    }

    OutstandingRequests(String name, int capacity, int bindCapacity) {
        this.name = name;
        this.capacity = capacity;
        this.bindCapacity = bindCapacity;
        int slots = capacity + bindCapacity;
        this.wrIds = new long[slots];
        this.types = new WorkRequestType[slots];
        this.lengths = new int[slots];
        this.tokens = new int[slots];
        this.invalidating = new boolean[slots];
        this.invalidations = new VerbsMemoryRegion[slots];
        this.binds = new VerbsMemoryRegion[slots];
    }

    /** How many of the caller's requests may be outstanding. */
    int capacity() {
        return capacity;
    }

    /** Every entry outstanding: the caller's requests and the binds. */
    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Whether the caller's share is used up. */
    boolean isFull() {
        return size - bindsQueued >= capacity;
    }

    /** Whether the binds' share is used up. */
    boolean bindsFull() {
        return bindsQueued >= bindCapacity;
    }

    /** Appends a memory window bind for {@code region}; the caller checked {@link #bindsFull()}. */
    void addBind(VerbsMemoryRegion region) {
        int tail = (head + size) % wrIds.length;
        wrIds[tail] = 0;
        types[tail] = null;
        lengths[tail] = 0;
        invalidations[tail] = null;
        binds[tail] = region;
        size++;
        bindsQueued++;
    }

    /** The region of the bind at the head, {@code null} when the head is a request of the caller. */
    VerbsMemoryRegion headBind() {
        return binds[head];
    }

    String name() {
        return name;
    }

    /** Appends an entry; the caller checked {@link #isFull()}. */
    void add(long wrId, WorkRequestType type, int length, VerbsMemoryRegion invalidation) {
        add(wrId, type, length, invalidation, 0, false);
    }

    /** Appends an entry naming {@code token} (a Send with Invalidate's when {@code invalidates}); the caller checked {@link #isFull()}. */
    void add(long wrId, WorkRequestType type, int length, VerbsMemoryRegion invalidation, int token,
            boolean invalidates) {
        int tail = (head + size) % wrIds.length;
        tokens[tail] = token;
        invalidating[tail] = invalidates;
        wrIds[tail] = wrId;
        types[tail] = type;
        lengths[tail] = length;
        invalidations[tail] = invalidation;
        binds[tail] = null;
        size++;
    }

    /** Removes the newest entry (its post failed). */
    void removeLast() {
        size--;
        int last = (head + size) % wrIds.length;
        if (binds[last] != null) {
            bindsQueued--;
        }
        invalidations[last] = null;
        binds[last] = null;
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

    int headToken() {
        return tokens[head];
    }

    boolean headInvalidates() {
        return invalidating[head];
    }

    VerbsMemoryRegion headInvalidation() {
        return invalidations[head];
    }

    void removeHead() {
        if (binds[head] != null) {
            bindsQueued--;
        }
        invalidations[head] = null;
        binds[head] = null;
        head = (head + 1) % wrIds.length;
        size--;
    }
}
