package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import smbdirect.rdma.verbs.internal.VerbsBackend.CompletionQueue;

/**
 * An {@code ibv_cq} with its completion channel, and what polling and waiting reuse: a native
 * {@code ibv_wc} array of the poll batch, two pollfds (the channel's and the wake eventfd's), the
 * event out-pointers and an errno capture segment; the inline verbs' function pointers are read
 * once from {@code ibv_context.ops}.
 */
final class CqHandle extends NativeHandle implements CompletionQueue {

    final MemorySegment cq;
    final MemorySegment channel;
    final MemorySegment pollCq;
    final MemorySegment reqNotifyCq;
    final int capacity;
    final MemorySegment wcs;
    /** Two pollfds: the completion channel's and the wake eventfd's. */
    final MemorySegment pollFd;
    final MemorySegment eventCq;
    final MemorySegment eventContext;
    final MemorySegment capture;
    /** The eventfd that a wake writes to end a wait at once; -1 without one. */
    final int wakeFd;
    /** 8 bytes holding 1: what a wake writes (read-only once built). */
    final MemorySegment wakeValue;
    /** 8 bytes the waiting thread reads the eventfd's counter into. */
    final MemorySegment wakeDrain;
    /** Guards {@link #wakeFd} against its close: a wake never writes to a closed (reused) descriptor. */
    final Object wakeLock = new Object();
    /** Guarded by {@link #wakeLock}. */
    boolean wakeClosed;
    /** Whether a thread waits in {@code poll(2)} on the descriptors above; guarded by this handle's monitor. */
    boolean waiting;

    /** @param cq an ibv_cq whose context's ops are read here; {@code channel} may be NULL (tests) */
    CqHandle(MemorySegment cq, MemorySegment channel, int capacity) {
        this(cq, channel, capacity, -1);
    }

    /** @param wakeFd a non-blocking eventfd polled beside the channel, -1 for none */
    CqHandle(MemorySegment cq, MemorySegment channel, int capacity, int wakeFd) {
        this.cq = cq.reinterpret(Abi.IBV_CQ.byteSize());
        this.channel = channel.reinterpret(Abi.IBV_COMP_CHANNEL.byteSize());
        MemorySegment context = this.cq.get(ADDRESS, Abi.CQ_CONTEXT).reinterpret(Abi.IBV_CONTEXT.byteSize());
        this.pollCq = context.get(ADDRESS, Abi.CONTEXT_POLL_CQ);
        this.reqNotifyCq = context.get(ADDRESS, Abi.CONTEXT_REQ_NOTIFY_CQ);
        this.capacity = capacity;
        Arena arena = Arena.ofAuto();
        this.wcs = arena.allocate(Abi.IBV_WC.byteSize() * capacity, Abi.IBV_WC.byteAlignment());
        this.pollFd = arena.allocate(Abi.POLLFD.byteSize() * 2, Abi.POLLFD.byteAlignment());
        this.eventCq = arena.allocate(ADDRESS);
        this.eventContext = arena.allocate(ADDRESS);
        this.capture = arena.allocate(Natives.CAPTURE);
        this.wakeFd = wakeFd;
        this.wakeValue = arena.allocate(JAVA_LONG);
        this.wakeValue.set(JAVA_LONG, 0, 1L);
        this.wakeDrain = arena.allocate(JAVA_LONG);
        pollFd.set(JAVA_INT, Abi.POLLFD_FD, -1); // poll(2) ignores a negative descriptor
        pollFd.set(JAVA_INT, Abi.POLLFD.byteSize() + Abi.POLLFD_FD, wakeFd);
        pollFd.set(JAVA_SHORT, Abi.POLLFD.byteSize() + Abi.POLLFD_EVENTS, Abi.POLLIN);
        if (!channel.equals(MemorySegment.NULL)) {
            pollFd.set(JAVA_INT, Abi.POLLFD_FD, this.channel.get(JAVA_INT, Abi.COMP_CHANNEL_FD));
            pollFd.set(JAVA_SHORT, Abi.POLLFD_EVENTS, Abi.POLLIN);
        }
    }

    @Override
    String gone() {
        return "the completion queue was destroyed";
    }
}
