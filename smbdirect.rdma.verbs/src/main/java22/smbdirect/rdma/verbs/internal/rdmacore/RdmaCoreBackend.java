package smbdirect.rdma.verbs.internal.rdmacore;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsBackend;
import smbdirect.rdma.verbs.internal.VerbsSettings;

/**
 * {@link VerbsBackend} over rdma-core's libibverbs and librdmacm through the Foreign Function &amp;
 * Memory API: the seam, handing each call to the class of its concern. What DiSNI 2.0 lacks it has:
 * private data on accept and reject and in CM events, the peer's IRD/ORD and the reject status,
 * IRD/ORD as given to {@code rdma_connect}/{@code rdma_accept}, {@code sockaddr_in6}.
 *
 * <p>{@link ConnectionManager} the CM identifiers and events, {@link Registrations} the protection
 * domains and registered memory, {@link QueuePairs} the queue pairs and posting,
 * {@link CompletionQueues} the completion channels and queues, {@link MemoryWindows} the memory
 * windows, {@link AsyncEvents} the devices' asynchronous events. Every native object is a
 * {@link NativeHandle} with a state; every native function a {@link NativeFunction} of
 * {@link Natives}, whose wrapper refuses a destroyed handle or a closed backend before anything
 * reaches C, so a use after free cannot happen through this backend.
 *
 * <p>Thread-safety: as {@link VerbsBackend} requires; every handle is guarded by its monitor, the
 * event channel by its own lock. No monitor is held across a wait in {@code poll(2)}: a thread
 * creating an identifier or a queue pair is never held up by the CM or completion thread's wait.
 */
public final class RdmaCoreBackend implements VerbsBackend {

    /** How long a close waits for a thread still waiting on the event channel before destroying it. */
    static final long CHANNEL_READER_GRACE_MILLIS = 10_000;

    static final Features FEATURES = new Features(VerbsSettings.RDMA_CORE, true, true, true);

    private final BackendState state = new BackendState();
    private final Map<Long, DeviceHandle> devices = new ConcurrentHashMap<>();
    private final AtomicInteger deviceKeys = new AtomicInteger();
    private final QueuePairs queuePairs = new QueuePairs(state);
    private final CompletionQueues completionQueues = new CompletionQueues(state);
    private final Registrations registrations = new Registrations(state);
    private final MemoryWindows memoryWindows = new MemoryWindows(state);
    private final AsyncEvents asyncEvents = new AsyncEvents(state, devices, queuePairs, completionQueues);
    private final ConnectionManager cm;

    /** @param channel the event channel the access opened (owned by this backend from now on) */
    RdmaCoreBackend(MemorySegment channel) throws IOException {
        this.cm = new ConnectionManager(state, queuePairs, channel);
    }

    @Override
    public Features features() {
        return FEATURES;
    }

    // ------------------------------------------------------------------ CM

    @Override
    public CmId createId() throws IOException {
        return cm.createId();
    }

    @Override
    public void bindAddr(CmId id, InetSocketAddress address) throws IOException {
        cm.bindAddr(id, address);
    }

    @Override
    public void listen(CmId id, int backlog) throws IOException {
        cm.listen(id, backlog);
    }

    @Override
    public void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException {
        cm.resolveAddr(id, destination, timeoutMillis);
    }

    @Override
    public void resolveRoute(CmId id, int timeoutMillis) throws IOException {
        cm.resolveRoute(id, timeoutMillis);
    }

    @Override
    public void connect(CmId id, CmConnParam parameters) throws IOException {
        cm.connect(id, parameters);
    }

    @Override
    public void accept(CmId id, CmConnParam parameters) throws IOException {
        cm.accept(id, parameters);
    }

    @Override
    public void reject(CmId id, ByteBuffer privateData) throws IOException {
        cm.reject(id, privateData);
    }

    @Override
    public int disconnect(CmId id) {
        return cm.disconnect(id);
    }

    @Override
    public void destroyId(CmId id) {
        cm.destroyId(id);
    }

    @Override
    public InetSocketAddress localAddress(CmId id) throws IOException {
        return cm.address(id, Abi.CM_ID_SRC_ADDR, "rdma_get_local_addr");
    }

    @Override
    public InetSocketAddress peerAddress(CmId id) throws IOException {
        return cm.address(id, Abi.CM_ID_DST_ADDR, "rdma_get_peer_addr");
    }

    @Override
    public CmEvent nextCmEvent(int timeoutMillis) throws IOException {
        return cm.nextCmEvent(timeoutMillis);
    }

    /**
     * Stops watching the devices, destroys every identifier still open (their queue pairs first;
     * librdmacm requires them gone before the channel), then the event channel. Every later call is
     * refused.
     */
    @Override
    public void close() {
        synchronized (cm.lock) {
            if (state.closed) {
                return;
            }
            asyncEvents.unwatchAll();
            cm.closeIds();
            state.closed = true;
            cm.awaitNoWaitingReader(CHANNEL_READER_GRACE_MILLIS);
            cm.destroyChannel();
        }
    }

    // ------------------------------------------------------------------ verbs

    @Override
    public Device device(CmId id) throws IOException {
        MemorySegment context = cm.verbs(id);
        if (context.equals(MemorySegment.NULL)) {
            throw Natives.refused("rdma_cm_id.verbs", Abi.ENODEV, id + " is not bound to an RDMA device (bind or "
                    + "resolve it first)");
        }
        return devices.computeIfAbsent(context.address(), k -> new DeviceHandle(context, deviceKeys.incrementAndGet()));
    }

    @Override
    public ProtectionDomain allocPd(Device device) throws IOException {
        return registrations.allocPd(device);
    }

    @Override
    public CompletionQueue createCq(Device device, int entries, int pollBatch, int vector) throws IOException {
        return completionQueues.create(device, entries, pollBatch, vector);
    }

    @Override
    public QueuePair createQp(CmId id, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException {
        return queuePairs.create(id, pd, cq, maxSendWr, maxRecvWr);
    }

    @Override
    public QueuePairReadDepths queryReadDepths(QueuePair qp) throws IOException {
        return queuePairs.queryReadDepths(qp);
    }

    @Override
    public void destroyQp(CmId id, QueuePair qp) {
        queuePairs.destroy(id, qp);
    }

    @Override
    public RegisteredMemory register(ProtectionDomain pd, ByteBuffer buffer, int accessFlags) throws IOException {
        return registrations.register(pd, buffer, accessFlags);
    }

    @Override
    public void deregister(RegisteredMemory memory) throws IOException {
        registrations.deregister(memory);
    }

    @Override
    public void postSend(QueuePair qp, SendRequest request) throws IOException {
        queuePairs.postSend(qp, request);
    }

    @Override
    public void postRecv(QueuePair qp, long wrId, long address, int length, int localKey) throws IOException {
        queuePairs.postRecv(qp, wrId, address, length, localKey);
    }

    @Override
    public int poll(CompletionQueue cq, CompletionBatch batch) throws IOException {
        return completionQueues.poll(cq, batch);
    }

    @Override
    public void requestNotify(CompletionQueue cq) throws IOException {
        completionQueues.requestNotify(cq);
    }

    @Override
    public boolean awaitCompletionEvent(CompletionQueue cq, int timeoutMillis) throws IOException {
        return completionQueues.awaitEvent(cq, timeoutMillis);
    }

    @Override
    public boolean wakeCompletionWait(CompletionQueue cq) {
        return completionQueues.wake(cq);
    }

    @Override
    public void destroyCq(CompletionQueue cq) {
        completionQueues.destroy(cq);
    }

    @Override
    public void deallocPd(ProtectionDomain pd) {
        registrations.deallocPd(pd);
    }

    // ------------------------------------------------------------------ memory windows

    @Override
    public MemoryWindow allocMw(ProtectionDomain pd) throws IOException {
        return memoryWindows.allocMw(pd);
    }

    @Override
    public void deallocMw(MemoryWindow window) throws IOException {
        memoryWindows.deallocMw(window);
    }

    // ------------------------------------------------------------------ asynchronous events

    @Override
    public boolean watchAsyncEvents(Device device, AsyncEventHandler handler) {
        return asyncEvents.watch(device, handler);
    }

    @Override
    public void unwatchAsyncEvents(Device device) {
        asyncEvents.unwatch(device);
    }
}
