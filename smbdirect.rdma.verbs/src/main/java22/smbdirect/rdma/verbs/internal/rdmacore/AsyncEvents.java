package smbdirect.rdma.verbs.internal.rdmacore;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.VerbsBackend.AsyncEvent;
import smbdirect.rdma.verbs.internal.VerbsBackend.AsyncEventHandler;
import smbdirect.rdma.verbs.internal.VerbsBackend.Device;
import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * The devices' asynchronous events as one backend sees them: which devices it watches (each with a
 * handler), the owner of an event among its queue pairs and completion queues, and the delivery
 * (COMM_EST to librdmacm first). The events are read by the shared {@link AsyncEventReader}.
 */
final class AsyncEvents {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreBackend.class);

    private final BackendState state;
    private final Map<Long, DeviceHandle> devices;
    private final QueuePairs queuePairs;
    private final CompletionQueues completionQueues;
    /** The devices whose asynchronous events this backend watches. */
    private final Map<DeviceHandle, AsyncEventHandler> watched = new ConcurrentHashMap<>();

    AsyncEvents(BackendState state, Map<Long, DeviceHandle> devices, QueuePairs queuePairs,
            CompletionQueues completionQueues) {
        this.state = state;
        this.devices = devices;
        this.queuePairs = queuePairs;
        this.completionQueues = completionQueues;
    }

    boolean watch(Device device, AsyncEventHandler handler) {
        DeviceHandle dev = (DeviceHandle) device;
        if (state.closed || watched.putIfAbsent(dev, handler) != null) {
            return !state.closed;
        }
        try {
            AsyncEventReader.subscribe(dev.context, this);
            return true;
        } catch (IOException e) {
            watched.remove(dev);
            LOG.warn("the asynchronous events of device {} cannot be read: {}", dev.key, e.getMessage());
            return false;
        }
    }

    void unwatch(Device device) {
        DeviceHandle dev = (DeviceHandle) device;
        if (watched.remove(dev) != null) {
            AsyncEventReader.unsubscribe(dev.context, this);
        }
    }

    /** Stops watching every device (the backend closes). */
    void unwatchAll() {
        for (DeviceHandle dev : new ArrayList<>(watched.keySet())) {
            unwatch(dev);
        }
    }

    /**
     * The reader's thread, before it acknowledges the event: the event as this backend's handler of
     * {@code context} should see it, {@code null} when it is not about this backend (another
     * backend's queue pair or completion queue, or a device this backend does not watch). Looks at
     * maps only: a destroy of the queue pair waits for the acknowledgement, so the handle found is
     * the one the event is about.
     */
    AsyncEvent resolve(MemorySegment context, int type, long element, int port) {
        DeviceHandle dev = devices.get(context.address());
        if (dev == null || !watched.containsKey(dev)) {
            return null;
        }
        switch (type) {
            case VerbsConstants.EVENT_QP_FATAL, VerbsConstants.EVENT_QP_REQ_ERR, VerbsConstants.EVENT_QP_ACCESS_ERR,
                    VerbsConstants.EVENT_COMM_EST, VerbsConstants.EVENT_SQ_DRAINED, VerbsConstants.EVENT_PATH_MIG,
                    VerbsConstants.EVENT_PATH_MIG_ERR, VerbsConstants.EVENT_QP_LAST_WQE_REACHED -> {
                QpHandle qp = queuePairs.byAddress.get(element);
                return qp == null ? null : new AsyncEvent(type, qp, null, 0);
            }
            case VerbsConstants.EVENT_CQ_ERR -> {
                CqHandle cq = completionQueues.byAddress.get(element);
                return cq == null ? null : new AsyncEvent(type, null, cq, 0);
            }
            case VerbsConstants.EVENT_SRQ_ERR, VerbsConstants.EVENT_SRQ_LIMIT_REACHED, VerbsConstants.EVENT_WQ_FATAL -> {
                return null; // no shared receive queues or work queues here
            }
            default -> {
                return new AsyncEvent(type, null, null, port);
            }
        }
    }

    /**
     * The reader's thread, after it acknowledged {@code event}: COMM_EST (data arrived on a passive
     * queue pair before the CM's ESTABLISHED) goes to librdmacm ({@code rdma_notify}), which then
     * reports ESTABLISHED even if the RTU got lost; then the event goes to the handler.
     */
    void deliver(MemorySegment context, AsyncEvent event) {
        DeviceHandle dev = devices.get(context.address());
        AsyncEventHandler handler = dev == null ? null : watched.get(dev);
        if (handler == null) {
            return;
        }
        if (event.type() == VerbsConstants.EVENT_COMM_EST && event.qp() instanceof QpHandle qp && qp.id != null) {
            CmIdHandle id = qp.id;
            synchronized (id) {
                if (!id.destroyed && !state.closed) {
                    try {
                        Natives.RDMA_NOTIFY.call("IBV_EVENT_COMM_EST", (h, a, capture) -> (int) h.invokeExact(capture,
                                id.ptr, VerbsConstants.EVENT_COMM_EST));
                    } catch (NativeCallException e) {
                        LOG.debug("{}", e.getMessage());
                    }
                }
            }
        }
        try {
            handler.onAsyncEvent(event);
        } catch (RuntimeException e) {
            LOG.error("the handler of asynchronous event {} failed", event, e);
        }
    }
}
