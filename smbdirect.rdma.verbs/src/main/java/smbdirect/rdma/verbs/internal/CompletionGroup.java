package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaException;

/**
 * A group of endpoints of one RDMA device: the completion queue they share (on one of the device's
 * completion vectors), the device's protection domain ({@link DeviceDomain}, shared with its other
 * groups) and the one thread that delivers every callback of those endpoints (work completions,
 * and the CM events the CM thread hands over with {@link #execute}). Because one thread delivers
 * everything of an endpoint, its callbacks are never concurrent and {@code onDisconnected} can be
 * held back until the last flushed completion. A device has up to {@code completionGroups} groups
 * ({@link DeviceGroups}), so its connections are handled on several cores.
 *
 * <p>Demultiplexing: the high 32 bits of every posted wr_id carry the endpoint's key (slot in the
 * 16 low bits, slot generation in the high 16), so a completion finds its endpoint with one array
 * read and no allocation; a completion of an endpoint that was closed (stale generation) is
 * dropped.
 *
 * <p>Thread-safety: {@link #attach}, {@link #detach} and {@link #execute} may be called from any
 * thread; {@link #runOnce} and {@link #waitForWork} only from the group's thread (or a test).
 */
final class CompletionGroup {

    private static final Logger LOG = LoggerFactory.getLogger(CompletionGroup.class);
    static final int MAX_SLOTS = 1 << 16;
    /** How long a group may be without users before its thread asks for it to be retired ({@link DeviceGroups#retireIdle}). */
    static final long IDLE_MILLIS = 1000;
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS);

    /** Who is told, on the group's thread, that the group has had no user for {@link #IDLE_MILLIS}. */
    @FunctionalInterface
    interface IdleHandler {
        void idle(CompletionGroup group);
    }

    private final VerbsBackend backend;
    private final VerbsSettings settings;
    private final LongSupplier nanoClock;
    private final VerbsBackend.Device device;
    private final DeviceDomain domain;
    private final int index;
    private final int vector;
    private final VerbsBackend.CompletionQueue cq;
    private final CompletionBatch batch;
    private final AtomicReferenceArray<VerbsEndpoint> slots;
    private final int[] generations;
    private final boolean[] reserved;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Endpoints waiting for flushes; touched only by the group thread. */
    private final List<VerbsEndpoint> draining = new ArrayList<>();
    private int reservedEntries;
    private int attached;
    /** The endpoints and listeners that hold this group; guarded by the provider's monitor ({@link DeviceGroups}). */
    int users;
    /** The endpoints among {@link #users}: the group's load; guarded by the provider's monitor. */
    int endpoints;
    /** The group has no user since {@link #idleSince} (written under the provider's monitor, read by the thread). */
    private volatile boolean idle;
    private volatile long idleSince;
    private volatile IdleHandler onIdle;
    /** The group was retired: an inline round (a test) does nothing more. */
    private volatile boolean retired;
    /** The thread releases the queue and the domain when its loop ends (the group was retired). */
    private volatile boolean releaseOnExit;
    /** The completion queue was destroyed and the domain released; guarded by this. */
    private boolean released;
    private volatile boolean running;
    private volatile boolean failed;
    private volatile Thread thread;
    /** The group thread is (about to be) blocked in the device's completion-event wait. */
    private volatile boolean waitingInDevice;

    /**
     * Group {@code index} of the domain's device, its completion queue on completion vector
     * {@code vector}. The caller holds the domain for the group ({@link DeviceDomain#retain}); the
     * group releases it after destroying its queue, and the caller does if this throws.
     */
    CompletionGroup(VerbsBackend backend, VerbsSettings settings, LongSupplier nanoClock, DeviceDomain domain,
            int index, int vector) throws IOException {
        this.backend = backend;
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.device = domain.device();
        this.domain = domain;
        this.index = index;
        this.vector = vector;
        this.cq = backend.createCq(device, settings.cqSize(), settings.pollBatch(), vector);
        this.batch = new CompletionBatch(settings.pollBatch());
        int slotCount = Math.min(MAX_SLOTS, settings.cqSize() / 2);
        this.slots = new AtomicReferenceArray<>(slotCount);
        this.generations = new int[slotCount];
        this.reserved = new boolean[slotCount];
    }

    VerbsBackend.Device device() {
        return device;
    }

    VerbsBackend.ProtectionDomain pd() {
        return domain.pd();
    }

    DeviceDomain domain() {
        return domain;
    }

    /** The group's number among its device's groups (0, 1, ...): its thread is {@code smbdirect-verbs-cq-KEY-INDEX}. */
    int index() {
        return index;
    }

    /** The completion vector its completion queue was created on. */
    int vector() {
        return vector;
    }

    boolean isFailed() {
        return failed;
    }

    /** Under the provider's monitor: the group has a user again. */
    void inUse() {
        idle = false;
    }

    /** Under the provider's monitor: the group's last user left at {@code now} (its clock). */
    void idleSince(long now) {
        idleSince = now;
        idle = true;
    }

    /** Who is told when the group has been without users for {@link #IDLE_MILLIS}. */
    void onIdle(IdleHandler handler) {
        onIdle = handler;
    }

    VerbsBackend.CompletionQueue cq() {
        return cq;
    }

    long nanoTime() {
        return nanoClock.getAsLong();
    }

    /**
     * Reserves {@code entries} completion-queue entries and a slot; returns the endpoint key carried
     * in the wr_ids of the endpoint then {@link #bind bound} to it.
     */
    synchronized int attach(int entries) throws RdmaException {
        if (failed) {
            throw new RdmaException("the completion queue of device " + device.key() + " failed; no new endpoints");
        }
        if (reservedEntries + entries > settings.cqSize()) {
            throw new RdmaException("completion queue full: " + reservedEntries + " of cqSize " + settings.cqSize()
                    + " entries reserved, the endpoint needs " + entries + " (raise smbdirect.rdma.verbs cqSize)");
        }
        for (int slot = 0; slot < slots.length(); slot++) {
            if (!reserved[slot]) {
                generations[slot] = (generations[slot] + 1) & 0xFFFF;
                reserved[slot] = true;
                reservedEntries += entries;
                attached++;
                return (generations[slot] << 16) | slot;
            }
        }
        throw new RdmaException("no endpoint slot left on device " + device.key() + " (" + slots.length() + " in use)");
    }

    /** Makes completions carrying {@code key} go to {@code endpoint}. */
    synchronized void bind(int key, VerbsEndpoint endpoint) {
        slots.set(key & 0xFFFF, endpoint);
    }

    synchronized void detach(int key, int entries) {
        int slot = key & 0xFFFF;
        if (reserved[slot] && generations[slot] == (key >>> 16)) {
            slots.set(slot, null);
            reserved[slot] = false;
            reservedEntries -= entries;
            attached--;
        }
    }

    synchronized int attachedCount() {
        return attached;
    }

    /** Runs {@code task} on the group thread (CM events, local disconnects, deferred completions). */
    void execute(Runnable task) {
        tasks.add(task);
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t); // wakes a thread parked without endpoints
            if (waitingInDevice) {
                backend.wakeCompletionWait(cq); // and one blocked in the device's completion-event wait
            }
        }
    }

    /**
     * Group thread: the endpoint's deadlines (a phase of connection establishment, the flushes of an
     * ending connection) or its queue pair in error are checked after every poll until it says done.
     */
    void watchDrain(VerbsEndpoint endpoint) {
        if (!draining.contains(endpoint)) {
            draining.add(endpoint);
        }
    }

    /**
     * One round of work: pending tasks, every available completion, drain deadlines. Returns the
     * number of tasks and completions handled.
     */
    int runOnce() {
        if (retired && thread == null) {
            return 0;
        }
        int work = 0;
        Runnable task;
        while ((task = tasks.poll()) != null) {
            work++;
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("RDMA task failed on device {}", device.key(), e);
            }
        }
        work += pollAll();
        if (!draining.isEmpty()) {
            long now = nanoClock.getAsLong();
            for (int i = draining.size() - 1; i >= 0; i--) {
                if (draining.get(i).checkDeadline(now)) {
                    draining.remove(i);
                }
            }
        }
        IdleHandler handler = onIdle;
        if (idle && handler != null && nanoClock.getAsLong() - idleSince >= IDLE_NANOS) {
            handler.idle(this);
        }
        return work;
    }

    private int pollAll() {
        if (failed) {
            return 0;
        }
        int total = 0;
        int n;
        do {
            try {
                n = backend.poll(cq, batch);
            } catch (IOException e) {
                cqFailed("ibv_poll_cq failed: " + e.getMessage());
                return total;
            }
            for (int i = 0; i < n; i++) {
                dispatch(i);
            }
            total += n;
        } while (n == batch.capacity());
        return total;
    }

    private void dispatch(int i) {
        long wrId = batch.wrId(i);
        int key = (int) (wrId >>> 32);
        VerbsEndpoint endpoint = slots.get(key & 0xFFFF);
        if (endpoint == null || endpoint.key() != key) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("dropping a completion of a closed endpoint (wr_id 0x{}, status {})", Long.toHexString(wrId),
                        StatusMapper.wcStatusName(batch.status(i)));
            }
            return;
        }
        try {
            endpoint.onWorkCompletion(batch, i);
        } catch (RuntimeException e) {
            LOG.error("completion handling failed for {}", endpoint, e);
        }
    }

    void cqFailed(String detail) {
        LOG.error("completion queue {} of device {} failed ({}); ending its endpoints", index, device.key(), detail);
        endAll(DisconnectCause.QP_ERROR, detail);
    }

    /** Group thread: the device is gone (IBV_EVENT_DEVICE_FATAL): every endpoint ends, no new one is made. */
    void deviceFailed(String detail) {
        domain.failed();
        LOG.error("RDMA device {} failed ({}); ending the endpoints of completion group {}", device.key(), detail,
                index);
        endAll(DisconnectCause.DEVICE_REMOVED, detail);
    }

    /**
     * Group thread: port {@code port} of the device went down; every endpoint of the group that is
     * connecting, accepting or connected ends as PEER_LOST with {@code detail} (one not yet
     * connecting may still connect once the port is up). The devices the provider serves (and siw and rxe) have one port,
     * and an endpoint does not record the port its route took, so every endpoint of the device ends.
     * What they have outstanding completes as FLUSHED at once; their CM messages wait for the port
     * ({@link VerbsEndpoint#endForPortDown}).
     */
    void portDown(int port, String detail) {
        for (int slot = 0; slot < slots.length(); slot++) {
            VerbsEndpoint endpoint = slots.get(slot);
            if (endpoint != null && endpoint.connectingOrConnected()) {
                endpoint.endForPortDown(detail);
            }
        }
    }

    /**
     * Group thread: the device's port is up again; the endpoints ended by {@link #portDown} now
     * disconnect and, if closed, release what the kernel holds for them.
     */
    void portUp() {
        for (int slot = 0; slot < slots.length(); slot++) {
            VerbsEndpoint endpoint = slots.get(slot);
            if (endpoint != null) {
                endpoint.portUp();
            }
        }
    }

    /** Every endpoint ends; no completion will come, so what they have outstanding completes as FLUSHED now. */
    private void endAll(DisconnectCause cause, String detail) {
        failed = true;
        for (int slot = 0; slot < slots.length(); slot++) {
            VerbsEndpoint endpoint = slots.get(slot);
            if (endpoint != null) {
                endpoint.endOnGroup(cause, detail, true);
            }
        }
    }

    /**
     * Group thread: an asynchronous event of queue pair {@code qp}, for the endpoint of this group
     * that owns it; whether one did.
     */
    boolean onQueuePairEvent(VerbsBackend.QueuePair qp, int type) {
        VerbsEndpoint endpoint = endpointOf(qp);
        if (endpoint != null) {
            endpoint.onAsyncEvent(type);
        }
        return endpoint != null;
    }

    /** Any thread: whether an endpoint of this group owns {@code qp} now. */
    boolean owns(VerbsBackend.QueuePair qp) {
        return endpointOf(qp) != null;
    }

    private VerbsEndpoint endpointOf(VerbsBackend.QueuePair qp) {
        for (int slot = 0; slot < slots.length(); slot++) {
            VerbsEndpoint endpoint = slots.get(slot);
            if (endpoint != null && endpoint.queuePair() == qp) {
                return endpoint;
            }
        }
        return null;
    }

    /** Group thread: waits until a completion or a task may be pending. */
    void waitForWork() {
        if (settings.busyPolling() && !failed && attachedCount() > 0) {
            Thread.onSpinWait();
            return;
        }
        if (failed || attachedCount() == 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(settings.eventTimeoutMillis()));
            return;
        }
        try {
            backend.requestNotify(cq);
            // announced before the task queue is looked at: a task added after this look sees the flag and wakes the wait
            waitingInDevice = true;
            if (pollAll() > 0 || !tasks.isEmpty()) {
                return;
            }
            backend.awaitCompletionEvent(cq, settings.eventTimeoutMillis());
        } catch (IOException e) {
            cqFailed("completion channel failed: " + e.getMessage());
        } finally {
            waitingInDevice = false;
        }
    }

    void start(ThreadFactory threads) {
        running = true;
        thread = threads.newThread(this::loop);
        thread.setName("smbdirect-verbs-cq-" + device.key() + "-" + index);
        thread.setDaemon(true);
        thread.start();
    }

    boolean isStarted() {
        return thread != null;
    }

    /**
     * Whether the caller is the thread that handles this group's completions: its own thread, or any
     * thread while the group runs inline ({@link #runOnce} called by a test, no thread started).
     */
    boolean onGroupThread() {
        Thread t = thread;
        return t == null || t == Thread.currentThread();
    }

    private void loop() {
        while (running) {
            if (runOnce() == 0 && running) {
                waitForWork();
            }
        }
        runOnce();
        if (releaseOnExit) {
            release();
        }
    }

    /**
     * The group's last user is gone (its queue pairs are destroyed, their registrations released):
     * the completion thread stops after one more round and then destroys the completion queue and
     * releases the protection domain (the device's last group deallocates it); without a thread (driven by {@link #runOnce}) they are
     * released now. Never waits, so an endpoint may be closed on this group's own thread or by a
     * caller that thread waits for.
     */
    void retire() {
        retired = true;
        Thread t = thread;
        if (t == null) {
            release();
            return;
        }
        releaseOnExit = true;
        running = false;
        LockSupport.unpark(t);
    }

    /**
     * Waits (at most a few wait intervals) until a {@link #retire retired} group's thread released
     * the queue and the domain; returns whether it did.
     */
    boolean awaitRetired() {
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(TimeUnit.MILLISECONDS.toMillis(settings.eventTimeoutMillis()) * 4 + 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            return released;
        }
    }

    /** Whether the completion queue and the protection domain were released. */
    synchronized boolean isReleased() {
        return released;
    }

    /** Stops the thread (after at most one wait interval) and releases the queue and domain. */
    void stop() {
        running = false;
        backend.wakeCompletionWait(cq); // the thread leaves a completion-event wait at once
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            LockSupport.unpark(t);
            try {
                t.join(TimeUnit.MILLISECONDS.toMillis(settings.eventTimeoutMillis()) * 4 + 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                LOG.warn("completion thread {} did not stop; leaving its queue allocated", t.getName());
                return;
            }
        }
        release();
    }

    /** Destroys the completion queue, then releases the protection domain (the last group deallocates it; once). */
    private void release() {
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
        }
        backend.destroyCq(cq);
        domain.release();
        LOG.debug("completion group {} of device {} released", index, device.key());
    }
}
