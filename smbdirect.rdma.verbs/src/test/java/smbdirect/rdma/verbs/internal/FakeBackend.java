package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A recording {@link VerbsBackend}: a miniature device that remembers every call, keeps the posted
 * work requests of each queue pair in order and completes them when a test says so. Not
 * thread-safe (tests drive it from one thread).
 */
class FakeBackend implements VerbsBackend {

    final List<String> calls = new ArrayList<>();
    final Deque<CmEvent> cmEvents = new ArrayDeque<>();
    final List<Send> sends = new ArrayList<>();
    final List<Recv> recvs = new ArrayList<>();
    final Set<FakeMr> liveRegions = new HashSet<>();
    final List<FakeCmId> destroyedIds = new ArrayList<>();
    final List<FakeQp> destroyedQps = new ArrayList<>();
    final List<CmId> listening = new ArrayList<>();
    String failOn;
    /** What the call named by {@link #failOn} throws ({@code null}: an IOException saying it was injected). */
    IOException failWith;
    /** What the next registrations fail with, as the native call would (null: they succeed). */
    IOException registerFailure;
    int nextId = 1;
    int nextMr = 1;
    int notifies;
    int awaits;
    boolean closed;
    final FakeDevice device = new FakeDevice(7, 4);
    /** What the fake claims to do beyond DiSNI (default: what DiSNI 2.0 does). */
    Features features = new Features("fake", false, false, false);
    /** Whether the fake reads asynchronous events (default: no, as DiSNI 2.0). */
    boolean asyncEvents;
    AsyncEventHandler asyncHandler;
    final List<Device> unwatched = new ArrayList<>();
    final Set<FakeMw> liveWindows = new HashSet<>();
    int nextMw = 1;
    /** Protection domains and completion queues allocated and not yet released. */
    final Set<FakePd> livePds = new HashSet<>();
    final Set<FakeCq> liveCqs = new HashSet<>();

    record Send(FakeQp qp, int opcode, long wrId, int sendFlags, long sgeAddress, int sgeLength, int sgeLocalKey,
            long remoteAddress, int remoteKey, int invalidateKey, MemoryWindow bindWindow, int bindKey,
            RegisteredMemory bindRegion, long bindAddress, long bindLength, int bindAccess) {
    }

    record FakeMw(int remoteKey) implements MemoryWindow {
    }

    record Recv(FakeQp qp, long wrId, long address, int length, int localKey) {
    }

    static final class FakeCmId implements CmId {
        final int n;
        InetSocketAddress bound;
        InetSocketAddress peer;
        boolean listening;
        ByteBuffer connectPrivateData;
        int connectRetry = -1;
        int connectRnrRetry = -1;
        /** IRD / ORD given to rdma_connect or rdma_accept. */
        int responderResources = -1;
        int initiatorDepth = -1;
        boolean accepted;
        ByteBuffer acceptPrivateData;
        ByteBuffer rejectPrivateData;
        int disconnects;

        FakeCmId(int n) {
            this.n = n;
        }

        @Override
        public String toString() {
            return "id" + n;
        }
    }

    record FakeDevice(int key, int completionVectors) implements Device {
    }

    static final class FakePd implements ProtectionDomain {
    }

    /** A completion queue: the completions of the queue pairs made on it, in order; its wait's wake. */
    static final class FakeCq implements CompletionQueue {
        final int entries;
        final int vector;
        final Deque<long[]> completions = new ArrayDeque<>();
        boolean woken;

        FakeCq(int entries, int vector) {
            this.entries = entries;
            this.vector = vector;
        }
    }

    static final class FakeQp implements QueuePair {
        final FakeCmId id;
        final FakeCq cq;
        final int maxSend;
        final int maxRecv;
        final Deque<Long> postedSends = new ArrayDeque<>();
        final Deque<Long> postedRecvs = new ArrayDeque<>();

        FakeQp(FakeCmId id, FakeCq cq, int maxSend, int maxRecv) {
            this.id = id;
            this.cq = cq;
            this.maxSend = maxSend;
            this.maxRecv = maxRecv;
        }
    }

    record FakeMr(long address, int length, int localKey, int remoteKey, int access, ByteBuffer buffer)
            implements RegisteredMemory {
    }

    private synchronized void check(String op) throws IOException {
        calls.add(op);
        if (op.equals(failOn)) {
            throw failWith != null ? failWith : new IOException(op + ": injected failure");
        }
    }

    // ---- CM

    @Override
    public synchronized CmId createId() throws IOException {
        check("createId");
        return new FakeCmId(nextId++);
    }

    @Override
    public synchronized void bindAddr(CmId id, InetSocketAddress address) throws IOException {
        check("bindAddr");
        FakeCmId f = (FakeCmId) id;
        f.bound = address.getPort() == 0 ? new InetSocketAddress(address.getAddress(), 40000 + f.n) : address;
    }

    @Override
    public synchronized void listen(CmId id, int backlog) throws IOException {
        check("listen");
        ((FakeCmId) id).listening = true;
        listening.add(id);
    }

    @Override
    public synchronized void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException {
        check("resolveAddr");
        ((FakeCmId) id).peer = destination;
    }

    @Override
    public synchronized void resolveRoute(CmId id, int timeoutMillis) throws IOException {
        check("resolveRoute");
    }

    @Override
    public Features features() {
        return features;
    }

    @Override
    public synchronized void connect(CmId id, CmConnParam p) throws IOException {
        check("connect");
        FakeCmId f = (FakeCmId) id;
        f.connectPrivateData = copy(p.privateData());
        f.connectRetry = p.retryCount();
        f.connectRnrRetry = p.rnrRetryCount();
        f.responderResources = p.responderResources();
        f.initiatorDepth = p.initiatorDepth();
    }

    private static ByteBuffer copy(ByteBuffer b) {
        return ByteBuffer.allocate(b.remaining()).put(b.duplicate()).flip();
    }

    @Override
    public synchronized void accept(CmId id, CmConnParam p) throws IOException {
        check("accept");
        FakeCmId f = (FakeCmId) id;
        f.accepted = true;
        f.acceptPrivateData = copy(p.privateData());
        f.responderResources = p.responderResources();
        f.initiatorDepth = p.initiatorDepth();
    }

    @Override
    public synchronized void reject(CmId id, ByteBuffer privateData) throws IOException {
        check("reject");
        ((FakeCmId) id).rejectPrivateData = copy(privateData);
    }

    @Override
    public synchronized int disconnect(CmId id) {
        calls.add("disconnect");
        ((FakeCmId) id).disconnects++;
        return 0;
    }

    @Override
    public synchronized void destroyId(CmId id) {
        calls.add("destroyId");
        destroyedIds.add((FakeCmId) id);
    }

    @Override
    public synchronized InetSocketAddress localAddress(CmId id) {
        return ((FakeCmId) id).bound;
    }

    @Override
    public synchronized InetSocketAddress peerAddress(CmId id) {
        return ((FakeCmId) id).peer;
    }

    @Override
    public synchronized CmEvent nextCmEvent(int timeoutMillis) {
        if (cmEvents.isEmpty() && timeoutMillis > 0) {
            try {
                wait(timeoutMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return cmEvents.poll();
    }

    @Override
    public synchronized void close() {
        calls.add("close");
        closed = true;
    }

    // ---- verbs

    @Override
    public synchronized Device device(CmId id) throws IOException {
        check("device");
        return device;
    }

    @Override
    public synchronized ProtectionDomain allocPd(Device device) throws IOException {
        check("allocPd");
        FakePd pd = new FakePd();
        livePds.add(pd);
        return pd;
    }

    @Override
    public synchronized CompletionQueue createCq(Device device, int entries, int pollBatch, int vector)
            throws IOException {
        check("createCq");
        FakeCq cq = new FakeCq(entries, vector);
        liveCqs.add(cq);
        return cq;
    }

    @Override
    public synchronized QueuePair createQp(CmId id, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException {
        check("createQp");
        return new FakeQp((FakeCmId) id, (FakeCq) cq, maxSendWr, maxRecvWr);
    }

    /** What {@link #queryReadDepths} reports ({@code null}: the fake cannot query, as DiSNI 2.0). */
    QueuePairReadDepths readDepths;

    @Override
    public synchronized QueuePairReadDepths queryReadDepths(QueuePair qp) throws IOException {
        check("queryReadDepths");
        return readDepths;
    }

    @Override
    public synchronized void destroyQp(CmId id, QueuePair qp) {
        calls.add("destroyQp");
        destroyedQps.add((FakeQp) qp);
    }

    @Override
    public synchronized RegisteredMemory register(ProtectionDomain pd, ByteBuffer buffer, int accessFlags) throws IOException {
        check("register");
        if (registerFailure != null) {
            throw registerFailure;
        }
        int n = nextMr++;
        FakeMr mr = new FakeMr(0x7f00_0000_0000L + n * 0x10_0000L, buffer.remaining(), 0x100 + n, 0xA000 + n,
                accessFlags, buffer);
        liveRegions.add(mr);
        return mr;
    }

    @Override
    public synchronized void deregister(RegisteredMemory memory) throws IOException {
        check("deregister");
        if (!liveRegions.remove(memory)) {
            throw new IOException("deregistering an unknown region " + memory);
        }
    }

    @Override
    public synchronized void postSend(QueuePair qp, SendRequest r) throws IOException {
        check("postSend");
        FakeQp q = (FakeQp) qp;
        sends.add(new Send(q, r.opcode, r.wrId, r.sendFlags, r.sgeAddress, r.sgeLength, r.sgeLocalKey, r.remoteAddress,
                r.remoteKey, r.invalidateKey, r.bindWindow, r.bindKey, r.bindRegion, r.bindAddress, r.bindLength,
                r.bindAccess));
        q.postedSends.add(r.wrId);
    }

    @Override
    public synchronized void postRecv(QueuePair qp, long wrId, long address, int length, int localKey) throws IOException {
        check("postRecv");
        FakeQp q = (FakeQp) qp;
        recvs.add(new Recv(q, wrId, address, length, localKey));
        q.postedRecvs.add(wrId);
    }

    @Override
    public synchronized int poll(CompletionQueue cq, CompletionBatch batch) throws IOException {
        check("poll");
        int n = 0;
        Deque<long[]> completions = ((FakeCq) cq).completions;
        while (n < batch.capacity() && !completions.isEmpty()) {
            long[] c = completions.poll();
            batch.set(n++, c[0], (int) c[1], (int) c[2], (int) c[3], (int) c[4], (int) c[5], (int) c[6], 0);
        }
        return n;
    }

    @Override
    public synchronized void requestNotify(CompletionQueue cq) {
        notifies++;
    }

    @Override
    public synchronized boolean awaitCompletionEvent(CompletionQueue cq, int timeoutMillis) {
        awaits++;
        notifyAll(); // for a test waiting until the completion thread waits here
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        FakeCq queue = (FakeCq) cq;
        while (queue.completions.isEmpty() && !queue.woken) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        queue.woken = false;
        return !queue.completions.isEmpty();
    }

    /** Whether the fake's completion-event wait can be woken (as rdma-core's eventfd); default yes. */
    boolean wakeable = true;
    int wakes;

    @Override
    public synchronized boolean wakeCompletionWait(CompletionQueue cq) {
        if (!wakeable) {
            return false;
        }
        wakes++;
        ((FakeCq) cq).woken = true;
        notifyAll();
        return true;
    }

    /** Waits (at most {@code millis}) until a completion thread has entered {@link #awaitCompletionEvent}. */
    synchronized boolean awaitWaiter(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(millis);
        while (awaits == 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    @Override
    public synchronized void destroyCq(CompletionQueue cq) {
        calls.add("destroyCq");
        liveCqs.remove(cq);
    }

    @Override
    public synchronized void deallocPd(ProtectionDomain pd) {
        calls.add("deallocPd");
        livePds.remove(pd);
    }

    @Override
    public synchronized boolean watchAsyncEvents(Device device, AsyncEventHandler handler) {
        calls.add("watchAsyncEvents");
        if (asyncEvents) {
            asyncHandler = handler;
        }
        return asyncEvents;
    }

    @Override
    public synchronized void unwatchAsyncEvents(Device device) {
        calls.add("unwatchAsyncEvents");
        unwatched.add(device);
        asyncHandler = null;
    }

    @Override
    public synchronized MemoryWindow allocMw(ProtectionDomain pd) throws IOException {
        check("allocMw");
        FakeMw mw = new FakeMw(0xB000_0000 + (nextMw++ << 8) + 0x40);
        liveWindows.add(mw);
        return mw;
    }

    @Override
    public synchronized void deallocMw(MemoryWindow window) throws IOException {
        check("deallocMw");
        if (!liveWindows.remove(window)) {
            throw new IOException("deallocating an unknown memory window " + window);
        }
    }

    // ---- device behaviour driven by tests

    /** The device reports an asynchronous event (what the backend's reader hands on). */
    void asyncEvent(int type, QueuePair qp, CompletionQueue cq, int port) {
        AsyncEventHandler handler;
        synchronized (this) {
            handler = asyncHandler;
        }
        if (handler == null) {
            throw new IllegalStateException("nobody watches the asynchronous events");
        }
        handler.onAsyncEvent(new AsyncEvent(type, qp, cq, port));
    }

    /** The device completes the oldest posted send of {@code qp}. */
    synchronized void completeSend(FakeQp qp, int status, int opcode, int byteLength, int vendorError) {
        long wrId = qp.postedSends.remove();
        qp.cq.completions.add(new long[] {wrId, status, opcode, vendorError, byteLength, 0, 0});
        notifyAll();
    }

    /** The device completes the oldest posted receive of {@code qp}. */
    synchronized void completeRecv(FakeQp qp, int status, int byteLength, int wcFlags, int immData) {
        long wrId = qp.postedRecvs.remove();
        qp.cq.completions.add(new long[] {wrId, status, VerbsConstants.WC_RECV, 0, byteLength, immData, wcFlags});
        notifyAll();
    }

    /** Whether no completion waits in any completion queue. */
    synchronized boolean noCompletions() {
        return liveCqs.stream().allMatch(cq -> cq.completions.isEmpty());
    }

    /** The completions waiting in every completion queue are lost. */
    synchronized void clearCompletions() {
        liveCqs.forEach(cq -> cq.completions.clear());
    }

    /** The device flushes everything outstanding on {@code qp} (queue pair in the error state). */
    synchronized void flush(FakeQp qp) {
        while (!qp.postedSends.isEmpty()) {
            completeSend(qp, VerbsConstants.WC_WR_FLUSH_ERR, 0x55, 0, 0);
        }
        while (!qp.postedRecvs.isEmpty()) {
            completeRecv(qp, VerbsConstants.WC_WR_FLUSH_ERR, 0, 0, 0);
        }
    }

    synchronized void event(int type, CmId listenId, CmId id) {
        event(new CmEvent(type, listenId, id));
    }

    synchronized void event(CmEvent event) {
        cmEvents.add(event);
        notifyAll();
    }

    static InetSocketAddress ipv4(String address, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(address), port);
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
