package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.VerbsBackend.CompletionQueue;
import smbdirect.rdma.verbs.internal.VerbsBackend.Device;

/**
 * Completion channels and queues: {@code ibv_create_comp_channel} + {@code ibv_create_cq} with a
 * wake eventfd, polling ({@code ops.poll_cq} into the queue's native {@code ibv_wc} array, copied
 * into the caller's batch), arming ({@code ops.req_notify_cq}), waiting for the next completion
 * event ({@code poll(2)} on the channel and the eventfd, {@code ibv_get_cq_event},
 * {@code ibv_ack_cq_events}), waking a wait, destroying. Polling and waiting allocate nothing. A
 * queue's calls run under its monitor.
 */
final class CompletionQueues {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreBackend.class);

    private final BackendState state;
    /** This backend's completion queues by address, for their asynchronous events. */
    final Map<Long, CqHandle> byAddress = new ConcurrentHashMap<>();

    CompletionQueues(BackendState state) {
        this.state = state;
    }

    CompletionQueue create(Device device, int entries, int pollBatch, int vector) throws IOException {
        Natives.IBV_CREATE_CQ.requireOpen(state);
        DeviceHandle dev = (DeviceHandle) device;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(Natives.CAPTURE);
            MemorySegment channel = Natives.IBV_CREATE_COMP_CHANNEL.pointer(a, capture, "",
                    (h, arena, c) -> (MemorySegment) h.invokeExact(c, dev.context));
            MemorySegment cq;
            int wakeFd = -1;
            try {
                int fd = channel.reinterpret(Abi.IBV_COMP_CHANNEL.byteSize()).get(JAVA_INT, Abi.COMP_CHANNEL_FD);
                Descriptors.nonBlocking(fd, "a completion channel");
                wakeFd = Natives.EVENTFD.call(a, capture, "the completion thread's wake-up",
                        (h, arena, c) -> (int) h.invokeExact(c, 0, Abi.EFD_NONBLOCK | Abi.EFD_CLOEXEC));
                cq = Natives.IBV_CREATE_CQ.pointer(a, capture, entries + " entries, comp_vector " + vector,
                        (h, arena, c) -> (MemorySegment) h.invokeExact(c, dev.context, entries, MemorySegment.NULL,
                                channel, vector));
            } catch (NativeCallException | RuntimeException e) {
                if (wakeFd >= 0) {
                    int closed = Natives.CLOSE_QUIET.invoke(wakeFd);
                }
                Natives.IBV_DESTROY_COMP_CHANNEL.call(a, capture, "", (h, arena, c) -> {
                    int ignored = (int) h.invokeExact(c, channel);
                    return 0;
                });
                throw e;
            }
            CqHandle created = new CqHandle(cq, channel, pollBatch, wakeFd);
            byAddress.put(created.cq.address(), created);
            return created;
        }
    }

    int poll(CompletionQueue completionQueue, CompletionBatch batch) throws IOException {
        NativeFunction fn = Natives.POLL_CQ;
        CqHandle cq = (CqHandle) completionQueue;
        synchronized (cq) {
            fn.requireUsable(cq, state);
            int max = Math.min(cq.capacity, batch.capacity());
            int got = fn.invoke(cq.pollCq, cq.cq, max, cq.wcs);
            if (got < 0) {
                throw fn.failed(-got, "returned " + got);
            }
            MemorySegment wcs = cq.wcs;
            for (int i = 0; i < got; i++) {
                long base = i * Abi.WC_SIZE;
                batch.set(i, wcs.get(JAVA_LONG, base + Abi.WC_WR_ID), wcs.get(JAVA_INT, base + Abi.WC_STATUS),
                        wcs.get(JAVA_INT, base + Abi.WC_OPCODE), wcs.get(JAVA_INT, base + Abi.WC_VENDOR_ERR),
                        wcs.get(JAVA_INT, base + Abi.WC_BYTE_LEN), wcs.get(JAVA_INT, base + Abi.WC_INVALIDATED_RKEY),
                        wcs.get(JAVA_INT, base + Abi.WC_WC_FLAGS), wcs.get(JAVA_INT, base + Abi.WC_QP_NUM));
            }
            return got;
        }
    }

    void requestNotify(CompletionQueue completionQueue) throws IOException {
        NativeFunction fn = Natives.REQ_NOTIFY_CQ;
        CqHandle cq = (CqHandle) completionQueue;
        synchronized (cq) {
            fn.requireUsable(cq, state);
            int rc = fn.invoke(cq.reqNotifyCq, cq.cq, 0);
            if (rc != 0) {
                throw fn.failed(Math.abs(rc), "returned " + rc);
            }
        }
    }

    /**
     * Waits up to {@code timeoutMillis} for the queue's completion event (or a wake); one waiting
     * thread at a time (the completion thread: the pollfds and capture segment are the queue's).
     * The wait in {@code poll(2)} holds none of the queue's locks: a queue pair is created on the
     * queue, and the queue is polled and armed, while the completion thread waits on it (a monitor
     * held across the wait is taken back at once by the next wait, and a thread blocked on it
     * starves). A destroy waits until the wait has ended.
     */
    boolean awaitEvent(CompletionQueue completionQueue, int timeoutMillis) throws IOException {
        NativeFunction fn = Natives.IBV_GET_CQ_EVENT;
        CqHandle cq = (CqHandle) completionQueue;
        synchronized (cq) {
            fn.requireUsable(cq, state);
            cq.waiting = true;
        }
        boolean readable;
        try {
            readable = Descriptors.waitReadable(cq.pollFd, 2L, cq.capture, timeoutMillis, "a completion channel");
        } finally {
            synchronized (cq) {
                cq.waiting = false;
                cq.notifyAll();
            }
        }
        if (!readable) {
            return false;
        }
        synchronized (cq) {
            if (cq.destroyed) {
                return false; // destroyed while this thread waited: what it saw is not read
            }
            if (cq.pollFd.get(JAVA_SHORT, Abi.POLLFD.byteSize() + Abi.POLLFD_REVENTS) != 0) {
                // woken (work was handed to this thread): reset the eventfd's counter
                long ignored = Natives.READ_QUIET.invoke(cq.wakeFd, cq.wakeDrain, 8L);
            }
            if (cq.pollFd.get(JAVA_SHORT, Abi.POLLFD_REVENTS) == 0) {
                return false;
            }
            int rc = Natives.IBV_GET_CQ_EVENT_QUIET.invoke(cq.channel, cq.eventCq, cq.eventContext);
            if (rc != 0) {
                // rare (the channel was readable): again, capturing errno this time
                rc = fn.invokeCapturing(cq.capture, cq.channel, cq.eventCq, cq.eventContext);
                if (rc != 0) {
                    int errno = Natives.errno(cq.capture);
                    if (errno == Abi.EAGAIN || errno == Abi.EINTR) {
                        return false;
                    }
                    throw fn.failed(errno, "");
                }
            }
            // the channel serves this CQ only, so the event is this CQ's (reading the returned
            // pointer back would allocate a segment per event)
            Natives.IBV_ACK_CQ_EVENTS.invokeVoid(cq.cq, 1);
            return true;
        }
    }

    /**
     * Ends a wait of {@link #awaitEvent} at once: one 8-byte write to the queue's eventfd, which
     * the wait polls beside the completion channel (any thread; never blocks: the counter only
     * grows until the waiting thread reads it).
     */
    boolean wake(CompletionQueue completionQueue) {
        CqHandle cq = (CqHandle) completionQueue;
        synchronized (cq.wakeLock) {
            if (cq.wakeFd < 0 || cq.wakeClosed) {
                return false;
            }
            try {
                return Natives.WRITE_QUIET.invoke(cq.wakeFd, cq.wakeValue, 8L) == 8L;
            } catch (NativeCallException e) {
                return false;
            }
        }
    }

    void destroy(CompletionQueue completionQueue) {
        CqHandle cq = (CqHandle) completionQueue;
        synchronized (cq) {
            if (cq.destroyed) {
                return;
            }
            cq.destroyed = true;
            awaitNoWaiter(cq);
            synchronized (cq.wakeLock) {
                if (cq.wakeFd >= 0 && !cq.wakeClosed) {
                    cq.wakeClosed = true;
                    try {
                        int ignored = Natives.CLOSE_QUIET.invoke(cq.wakeFd);
                    } catch (NativeCallException e) {
                        LOG.warn("closing the wake eventfd of a completion queue failed: {}", e.getCause());
                    }
                }
            }
            byAddress.remove(cq.cq.address(), cq);
            try {
                Natives.IBV_DESTROY_CQ.call("", (h, a, capture) -> (int) h.invokeExact(capture, cq.cq));
            } catch (NativeCallException e) {
                LOG.warn("{}", e.getMessage());
            }
            try {
                Natives.IBV_DESTROY_COMP_CHANNEL.call("", (h, a, capture) -> (int) h.invokeExact(capture, cq.channel));
            } catch (NativeCallException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
    }

    /**
     * Under the queue's monitor, before its descriptors are closed: ends a wait on them (through
     * the wake eventfd) and waits, bounded, until the waiting thread has left {@code poll(2)}.
     * Normally there is none: a completion group destroys its queue on its own thread or after
     * that thread has stopped.
     */
    private void awaitNoWaiter(CqHandle cq) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RdmaCoreBackend.CHANNEL_READER_GRACE_MILLIS);
        boolean interrupted = false;
        while (cq.waiting) {
            wake(cq);
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                LOG.warn("a completion queue is destroyed while a thread still waits on its channel");
                break;
            }
            try {
                cq.wait(Math.max(1L, Math.min(100L, TimeUnit.NANOSECONDS.toMillis(left))));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
