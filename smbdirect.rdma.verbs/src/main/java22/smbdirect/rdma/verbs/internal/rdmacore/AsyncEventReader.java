package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.StatusMapper;
import smbdirect.rdma.verbs.internal.VerbsBackend.AsyncEvent;

/**
 * The reader of one device context's asynchronous events ({@code ibv_get_async_event} on the
 * context's {@code async_fd}, made non-blocking and waited for with {@code poll(2)}), one thread per
 * context for the whole JVM: librdmacm opens each device once per process, so every backend (one
 * per provider) shares the context and its event file, and an event read for one backend is lost
 * to the others. The reader hands each event to the backends that watch the context: a queue pair
 * or completion queue event to the one that owns the object, a port or device event to all.
 *
 * <p>Each event is acknowledged ({@code ibv_ack_async_event}) right after the owners were looked
 * up and before anything else is done with it: {@code ibv_destroy_qp} and {@code ibv_destroy_cq}
 * wait for the acknowledgement of every event of theirs that was read, so a destroy cannot free
 * the object between the read and the look-up, and nothing a handler does can hold a destroy up.
 *
 * <p>The thread waits at most {@value #WAIT_MILLIS} ms at a time, so it stops within that bound when
 * the last backend unsubscribes; it allocates nothing while no event arrives. Thread-safe.
 */
final class AsyncEventReader {

    private static final Logger LOG = LoggerFactory.getLogger(AsyncEventReader.class);
    /** How long one wait lasts: the bound on stopping. */
    static final int WAIT_MILLIS = 100;
    /** The readers by context address; guarded by itself. */
    private static final Map<Long, AsyncEventReader> READERS = new HashMap<>();

    private final MemorySegment context;
    private final String deviceName;
    private final List<AsyncEvents> subscribers = new CopyOnWriteArrayList<>();
    /** Reader thread only. */
    private final MemorySegment pollFd;
    private final MemorySegment event;
    private final MemorySegment capture;
    private volatile boolean running = true;
    private final Thread thread;

    private AsyncEventReader(MemorySegment context, String deviceName) throws IOException {
        this.context = context;
        this.deviceName = deviceName;
        Arena arena = Arena.ofAuto();
        this.pollFd = arena.allocate(Abi.POLLFD);
        this.event = arena.allocate(Abi.IBV_ASYNC_EVENT);
        this.capture = arena.allocate(Natives.CAPTURE);
        int fd = context.get(JAVA_INT, Abi.CONTEXT_ASYNC_FD);
        Descriptors.nonBlocking(fd, "the async event file of " + deviceName);
        pollFd.set(JAVA_INT, Abi.POLLFD_FD, fd);
        pollFd.set(JAVA_SHORT, Abi.POLLFD_EVENTS, Abi.POLLIN);
        this.thread = new Thread(this::loop, "smbdirect-verbs-async-" + deviceName);
        thread.setDaemon(true);
    }

    /** {@code backend} gets the events of {@code context} from now on (starting its reader if none runs). */
    static void subscribe(MemorySegment context, AsyncEvents backend) throws IOException {
        synchronized (READERS) {
            AsyncEventReader reader = READERS.get(context.address());
            if (reader == null) {
                reader = new AsyncEventReader(context, deviceName(context));
                READERS.put(context.address(), reader);
                reader.subscribers.add(backend);
                reader.thread.start();
                LOG.debug("reading the asynchronous events of {}", reader.deviceName);
                return;
            }
            reader.subscribers.add(backend);
        }
    }

    /** {@code backend} gets no more events of {@code context}; the last one out stops the reader (bounded). */
    static void unsubscribe(MemorySegment context, AsyncEvents backend) {
        AsyncEventReader stopped = null;
        synchronized (READERS) {
            AsyncEventReader reader = READERS.get(context.address());
            if (reader == null) {
                return;
            }
            reader.subscribers.remove(backend);
            if (reader.subscribers.isEmpty()) {
                READERS.remove(context.address());
                reader.running = false;
                stopped = reader;
            }
        }
        if (stopped != null && stopped.thread != Thread.currentThread()) {
            try {
                stopped.thread.join(TimeUnit.MILLISECONDS.toMillis(WAIT_MILLIS * 10L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (stopped.thread.isAlive()) {
                LOG.warn("the asynchronous event reader of {} did not stop", stopped.deviceName);
            }
        }
    }

    private static String deviceName(MemorySegment context) {
        try {
            MemorySegment device = context.get(ADDRESS, Abi.CONTEXT_DEVICE);
            MemorySegment name = Natives.IBV_GET_DEVICE_NAME.pointer("", (h, a, capture) -> (MemorySegment) h
                    .invokeExact(capture, device));
            return name.equals(MemorySegment.NULL) ? "?" : name.reinterpret(Abi.IBV_SYSFS_NAME_MAX).getString(0);
        } catch (NativeCallException | RuntimeException e) {
            return "0x" + Long.toHexString(context.address());
        }
    }

    private void loop() {
        while (running) {
            try {
                if (waitReadable()) {
                    readOne();
                }
            } catch (Throwable t) {
                LOG.error("reading the asynchronous events of {} failed", deviceName, t);
                parkMillis(WAIT_MILLIS);
            }
        }
    }

    /** poll(2) for at most {@link #WAIT_MILLIS}; allocation-free (errno is asked again only after a failure). */
    private boolean waitReadable() throws NativeCallException {
        pollFd.set(JAVA_SHORT, Abi.POLLFD_REVENTS, (short) 0);
        int rc = Natives.POLL_QUIET.invoke(pollFd, 1L, WAIT_MILLIS);
        if (rc < 0) {
            rc = Natives.POLL.invokeCapturing(capture, pollFd, 1L, 0);
            if (rc < 0 && Natives.errno(capture) != Abi.EINTR) {
                throw Natives.POLL.failed(Natives.errno(capture), "the async event file of " + deviceName);
            }
        }
        return rc > 0;
    }

    private void readOne() throws NativeCallException {
        int rc = Natives.IBV_GET_ASYNC_EVENT.invokeCapturing(capture, context, event);
        if (rc != 0) {
            int errno = Natives.errno(capture);
            if (errno != Abi.EAGAIN && errno != Abi.EINTR) {
                LOG.warn("{}", Natives.IBV_GET_ASYNC_EVENT.failed(errno, deviceName).getMessage());
                parkMillis(WAIT_MILLIS);
            }
            return;
        }
        int type = event.get(JAVA_INT, Abi.ASYNC_EVENT_TYPE);
        long element = event.get(JAVA_LONG, Abi.ASYNC_EVENT_ELEMENT);
        int port = event.get(JAVA_INT, Abi.ASYNC_EVENT_ELEMENT);
        List<AsyncEvents> to = new ArrayList<>(1);
        List<AsyncEvent> events = new ArrayList<>(1);
        for (AsyncEvents backend : subscribers) {
            AsyncEvent e = backend.resolve(context, type, element, port);
            if (e != null) {
                to.add(backend);
                events.add(e);
            }
        }
        Natives.IBV_ACK_ASYNC_EVENT.invokeVoid(event);
        if (to.isEmpty()) {
            LOG.debug("{} on {}: not of a watched object", StatusMapper.asyncEventName(type), deviceName);
            return;
        }
        LOG.debug("{} on {}", StatusMapper.asyncEventName(type), deviceName);
        for (int i = 0; i < to.size(); i++) {
            to.get(i).deliver(context, events.get(i));
        }
    }

    private static void parkMillis(long millis) {
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }
}
