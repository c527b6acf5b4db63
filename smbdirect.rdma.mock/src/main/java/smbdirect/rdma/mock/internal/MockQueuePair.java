package smbdirect.rdma.mock.internal;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.TransportType;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockProvider;

/**
 * A queue pair of the fabric: its state, its connection setup ({@code connect}, {@code accept}),
 * registrations, posting and the inspection API of {@link MockEndpoint}. Its concerns: the
 * execution of send-queue work requests at the peer ({@link Execution}), the faults a test arms
 * ({@link FaultInjection}), how the connection ends ({@link MockTeardown}), and the delivery of its
 * callbacks ({@link Deliverable}).
 *
 * <h2>The lock protocol</h2>
 * <ul>
 * <li><b>One lock per connection.</b> {@link #lock} is created with an active endpoint
 * ({@link MockDevice#createEndpoint}); the passive endpoint created from its connection request
 * gets the same object ({@link ConnectRequestImpl#createEndpoint}). An endpoint that never connects
 * has its own. So a transmission touching both sides takes one lock, and different connections never
 * contend. A listener has a lock of its own.</li>
 * <li><b>What it guards.</b> Every mutable field of both endpoints (state, peer, addresses, read
 * depths, the connection request, the queues, the pool, the outstanding counts, the registrations,
 * the counters), the {@link FaultInjection} and {@link Deliverable} state of both (the callback
 * queue and pool, who delivers, holding), the {@link ConnectRequestImpl}'s phase and passive
 * endpoint, and {@code MockRegion.registered}. {@code MockRegion.valid} is written under it and is
 * volatile, because {@code isValid()} reads it without; so are the two flags {@link Deliverable}
 * reads first without it ({@code queued}, {@code scheduled}, see there). Everything else is final
 * or confined to one thread (a THREADED worker's batch array).</li>
 * <li><b>Who takes it.</b> This class's SPI and inspection methods, {@link FaultInjection}'s arming,
 * {@link MockTeardown}'s {@code disconnect}, {@code close}, {@code crash} and {@code deviceGone},
 * {@link ConnectRequestImpl} ({@code createEndpoint}, {@code reject}, {@code abandon}),
 * {@link Deliverable} (taking and recycling callbacks, hold and release, scheduling),
 * {@link #transmitOne} (a DETERMINISTIC step) and {@code FabricImpl.stats()}, one endpoint at a
 * time. Each holds it only for the state change: a work request executes entirely under it
 * ({@link Execution}: the sender's and the receiver's queues, registrations and bytes change at
 * once), and completions and disconnects are only queued as events under it, never delivered.</li>
 * <li><b>Order.</b> No other lock of the fabric is taken while it is held, except the action queue
 * ({@code FabricImpl.addTask}) in DETERMINISTIC mode: the connection lock first, never the reverse
 * ({@code FabricImpl.step} takes the next action and releases the queue before running it). The
 * connection lock and a listener's lock are never held together: {@code connect} offers its
 * request to the listener after releasing its own, and a listener that fails or closes abandons
 * its queued requests after releasing its own. Registering draws keys and addresses from the
 * fabric before taking the lock.</li>
 * <li><b>Callbacks run outside every fabric lock.</b> Only {@link Deliverable#deliver} and
 * {@code drainThreaded} call a handler: they take a queued event under the lock, release it, call
 * the handler, and take the lock again to recycle the event. One thread at a time delivers for an
 * endpoint, so its callbacks never overlap and keep their queued order, and a handler may post,
 * disconnect or close from within the callback. Whoever queues a callback calls {@link #signal}
 * ({@link #signalBoth} for both sides) after releasing the lock, since in INLINE mode the signal
 * delivers on the calling thread. The one piece of test code that runs under the lock is the
 * mutation a test passes to {@code corruptSend}.</li>
 * </ul>
 */
final class MockQueuePair extends Deliverable implements MockEndpoint {
    static final byte[] NO_BYTES = new byte[0];
    private static final int IB_CONNECT_PRIVATE_DATA = 56;
    private static final int IB_ACCEPT_PRIVATE_DATA = 196;
    private static final int IWARP_PRIVATE_DATA = 512;

    /** DETERMINISTIC: the action "transmit this endpoint's next queued send work request". */
    static final class TransmitTicket {
        final MockQueuePair endpoint;

        TransmitTicket(MockQueuePair endpoint) {
            this.endpoint = endpoint;
        }
    }

    final MockDevice provider;
    final long id;
    final boolean active;
    private final EndpointSettings config;
    private final RdmaEndpointHandler handler;
    final RdmaCapabilities caps;
    private final TransmitTicket transmitTicket = new TransmitTicket(this);

    State state;
    MockQueuePair peer;
    boolean peerLost;
    private InetSocketAddress localAddress;
    private InetSocketAddress peerAddress;
    private int ird;
    private int ord;
    private int offeredIrd;
    private int offeredOrd;
    ConnectRequestImpl request;
    final ArrayDeque<Wr> recvQueue = new ArrayDeque<>();
    final ArrayDeque<Wr> sendQueue = new ArrayDeque<>();
    private final ArrayDeque<Wr> wrPool = new ArrayDeque<>();
    int sendOutstanding;
    int recvOutstanding;
    final IntMap<MockRegion> regions = new IntMap<>();
    long sendsTransmitted;
    final FaultInjection faults = new FaultInjection(this);
    private final Execution execution = new Execution(this);
    final MockTeardown teardown = new MockTeardown(this);

    MockQueuePair(FabricImpl fabric, MockDevice provider, RdmaCapabilities caps, EndpointSettings config,
            RdmaEndpointHandler handler, boolean active, Object lock) {
        super(fabric, lock);
        this.provider = provider;
        this.caps = caps;
        this.config = config;
        this.handler = handler;
        this.active = active;
        this.id = fabric.ids.incrementAndGet();
        this.state = active ? State.IDLE : State.REQUESTED;
    }

    /** Under lock: binds a passive endpoint to the request it was created from. */
    void initPassive(ConnectRequestImpl r) {
        request = r;
        peer = r.active;
        localAddress = r.localAddress();
        peerAddress = r.peerAddress();
        r.active.peer = this;
    }

    // ------------------------------------------------------------------ connection management

    @Override
    public void connect(InetSocketAddress target, ConnectParameters parameters) throws RdmaException {
        Objects.requireNonNull(target, "peer");
        Objects.requireNonNull(parameters, "parameters");
        byte[] privateData = copy(parameters.privateData());
        int limit = provider.transportType() == TransportType.IWARP ? IWARP_PRIVATE_DATA : IB_CONNECT_PRIVATE_DATA;
        if (privateData.length > limit) {
            throw new RdmaException("connect private data of " + privateData.length + " bytes exceeds the "
                    + provider.transportType() + " limit of " + limit + " bytes");
        }
        provider.checkUsable("connect");
        InetSocketAddress local;
        synchronized (lock) {
            if (!active) {
                throw new RdmaException("endpoint " + id + " was created from a connection request: accept it instead");
            }
            if (state != State.IDLE) {
                throw new RdmaException("connect on endpoint " + id + " in state " + state);
            }
            state = State.CONNECTING;
            local = new InetSocketAddress(provider.address(), fabric.ephemeralPort());
            localAddress = local;
            peerAddress = target;
            offeredIrd = Math.min(parameters.inboundReadDepth(), caps.maxInboundReadDepth());
            offeredOrd = Math.min(parameters.outboundReadDepth(), caps.maxOutboundReadDepth());
        }
        MockListener listener = fabric.findListener(target);
        String unreachable = null;
        if (listener == null) {
            unreachable = "no listener at " + target;
        } else if (listener.provider.transportType() != provider.transportType()) {
            unreachable = "listener at " + target + " is on a " + listener.provider.transportType()
                    + " device, this endpoint on " + provider.transportType();
        }
        if (unreachable != null) {
            failConnect(DisconnectCause.UNREACHABLE, unreachable, NO_BYTES);
            return;
        }
        byte[] refusal = listener.provider.refusal();
        if (refusal != null) {
            failConnect(DisconnectCause.REJECTED, "device " + listener.provider.name() + " refuses connections",
                    refusal);
            return;
        }
        ConnectRequestImpl r = new ConnectRequestImpl(this, listener, privateData, offeredIrd, offeredOrd, local);
        synchronized (lock) {
            if (state != State.CONNECTING) {
                return;
            }
            request = r;
            fabric.pendingRequests.add(r);
        }
        if (!listener.offer(r)) {
            r.abandon(DisconnectCause.UNREACHABLE, "listener at " + target + " closed");
        }
    }

    private void failConnect(DisconnectCause cause, String detail, byte[] data) {
        synchronized (lock) {
            if (state == State.CONNECTING) {
                MockTeardown.breakSide(this, cause, detail, data);
            }
        }
        signal();
    }

    @Override
    public void accept(ConnectParameters parameters) throws RdmaException {
        Objects.requireNonNull(parameters, "parameters");
        byte[] privateData = copy(parameters.privateData());
        int limit = provider.transportType() == TransportType.IWARP ? IWARP_PRIVATE_DATA : IB_ACCEPT_PRIVATE_DATA;
        if (privateData.length > limit) {
            throw new RdmaException("accept private data of " + privateData.length + " bytes exceeds the "
                    + provider.transportType() + " limit of " + limit + " bytes");
        }
        MockQueuePair a;
        synchronized (lock) {
            if (active) {
                throw new RdmaException("accept on endpoint " + id + " that was not created from a connection request");
            }
            if (state != State.REQUESTED) {
                throw new RdmaException("accept on endpoint " + id + " in state " + state);
            }
            ConnectRequestImpl r = request;
            a = r.active;
            if (r.phase != ConnectRequestImpl.Phase.CREATED || a.state != State.CONNECTING || a.request != r) {
                throw new RdmaException("accept on endpoint " + id + ": the connecting peer gave up (" + r.phase + ")");
            }
            int myIrd = Math.min(parameters.inboundReadDepth(), caps.maxInboundReadDepth());
            int myOrd = Math.min(parameters.outboundReadDepth(), caps.maxOutboundReadDepth());
            ird = Math.min(myIrd, r.outboundReadDepth);
            ord = Math.min(myOrd, r.inboundReadDepth);
            a.ird = ord;
            a.ord = ird;
            r.phase = ConnectRequestImpl.Phase.ACCEPTED;
            fabric.pendingRequests.remove(r);
            a.request = null;
            state = State.CONNECTED;
            a.state = State.CONNECTED;
            established(this, NO_BYTES);
            established(a, privateData);
        }
        signal();
        a.signal();
    }

    private static void established(MockQueuePair ep, byte[] data) {
        Event e = ep.obtainEvent();
        e.kind = Event.ESTABLISHED;
        e.data = data;
        ep.enqueue(e);
    }

    /** Under lock: the request of this (active) endpoint was rejected or abandoned. */
    void requestEnded(ConnectRequestImpl r, DisconnectCause cause, String detail, byte[] data) {
        if (state == State.CONNECTING && request == r) {
            request = null;
            MockTeardown.breakSide(this, cause, detail, data);
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        synchronized (lock) {
            return localAddress;
        }
    }

    @Override
    public InetSocketAddress peerAddress() {
        synchronized (lock) {
            return peerAddress;
        }
    }

    @Override
    public int inboundReadDepth() {
        synchronized (lock) {
            return ird;
        }
    }

    @Override
    public int outboundReadDepth() {
        synchronized (lock) {
            return ord;
        }
    }

    @Override
    public RdmaCapabilities capabilities() {
        return caps;
    }

    // ------------------------------------------------------------------ memory

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(access, "access");
        provider.checkUsable("register");
        if (!buffer.isDirect()) {
            throw new RdmaException("register needs a direct buffer (memory the device can pin), got " + buffer);
        }
        int length = buffer.remaining();
        if (length == 0) {
            throw new RdmaException("register of 0 bytes: position equals limit in " + buffer);
        }
        if (length > caps.maxRegionSize()) {
            throw new RdmaException("register of " + length + " bytes exceeds the device limit maxRegionSize "
                    + caps.maxRegionSize());
        }
        boolean localWrite = access.contains(MemoryAccess.LOCAL_WRITE);
        boolean remoteWrite = access.contains(MemoryAccess.REMOTE_WRITE);
        if (remoteWrite && !localWrite) {
            throw new RdmaException("access " + access + ": REMOTE_WRITE requires LOCAL_WRITE");
        }
        if (buffer.isReadOnly() && (localWrite || remoteWrite)) {
            throw new RdmaException("a read-only buffer cannot be registered with " + access);
        }
        if (provider.takeRegistrationFailure()) {
            throw new RdmaException("registration of " + length + " bytes failed (injected fault)");
        }
        MockRegion region = new MockRegion(this, buffer, access, fabric.newKey(), fabric.newKey(),
                fabric.newAddress());
        synchronized (lock) {
            if (state == State.CLOSED) {
                throw new RdmaException("register on closed endpoint " + id);
            }
            regions.put(region.token, region);
        }
        return region;
    }

    @Override
    public void deregister(MemoryRegion region) throws RdmaException {
        MockRegion r = region(region);
        synchronized (lock) {
            if (r.owner != this) {
                throw new RdmaException(r + " is not registered on endpoint " + id);
            }
            if (state == State.CLOSED) {
                return;
            }
            if (!r.registered) {
                throw new RdmaException("deregister of " + r + ": already deregistered");
            }
            r.registered = false;
            r.valid = false;
            regions.remove(r.token);
        }
    }

    private static MockRegion region(MemoryRegion region) throws RdmaException {
        Objects.requireNonNull(region, "region");
        if (region instanceof MockRegion r) {
            return r;
        }
        throw new RdmaException(region + " was not registered by a mock provider");
    }

    // ------------------------------------------------------------------ posting

    @Override
    public void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        MockRegion r = region(region);
        MockQueuePair p;
        synchronized (lock) {
            if (state == State.DISCONNECTED || state == State.CLOSED) {
                throw notPostable("post a receive");
            }
            if (recvOutstanding >= config.receiveQueueDepth()) {
                throw new RdmaException("receive queue of endpoint " + id + " is full: " + recvOutstanding
                        + " receives outstanding, depth " + config.receiveQueueDepth());
            }
            Wr wr = obtainWr(WorkRequestType.RECEIVE, wrId, r, offset, length);
            recvOutstanding++;
            CompletionStatus injected = faults.takeInjected(WorkRequestType.RECEIVE);
            int problem;
            if (injected != null) {
                execution.fail(wr, injected, "injected failure of a posted receive");
            } else if ((problem = Execution.localProblem(this, r, offset, length, true)) != Execution.OK) {
                execution.fail(wr, Execution.localStatus(problem),
                        "receive " + Execution.describeLocal(problem, r, offset, length));
            } else {
                recvQueue.add(wr);
            }
            p = peer;
        }
        signalBoth(p);
    }

    @Override
    public void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        postSendQueue(WorkRequestType.SEND, region(region), offset, length, 0L, 0, false, wrId);
    }

    @Override
    public void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
            throws RdmaException {
        if (!caps.sendWithInvalidate()) {
            throw new RdmaException("device " + provider.name() + " does not support Send with Invalidate");
        }
        postSendQueue(WorkRequestType.SEND, region(region), offset, length, 0L, remoteToken, true, wrId);
    }

    @Override
    public void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        postSendQueue(WorkRequestType.RDMA_WRITE, region(local), localOffset, length, remoteAddress, remoteToken,
                false, wrId);
    }

    @Override
    public void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        postSendQueue(WorkRequestType.RDMA_READ, region(local), localOffset, length, remoteAddress, remoteToken,
                false, wrId);
    }

    @Override
    public void postLocalInvalidate(MemoryRegion region, long wrId) throws RdmaException {
        postSendQueue(WorkRequestType.LOCAL_INVALIDATE, region(region), 0, 0, 0L, 0, false, wrId);
    }

    private void postSendQueue(WorkRequestType type, MockRegion r, int offset, int length, long remoteAddress,
            int remoteToken, boolean withInvalidate, long wrId) throws RdmaException {
        MockQueuePair p;
        synchronized (lock) {
            if (state != State.CONNECTED) {
                throw notPostable("post " + (withInvalidate ? "SEND_WITH_INVALIDATE" : type.name()));
            }
            if (sendOutstanding >= config.sendQueueDepth()) {
                throw new RdmaException("send queue of endpoint " + id + " is full: " + sendOutstanding
                        + " work requests outstanding, depth " + config.sendQueueDepth());
            }
            Wr wr = obtainWr(type, wrId, r, offset, length);
            wr.remoteAddress = remoteAddress;
            wr.remoteToken = remoteToken;
            wr.withInvalidate = withInvalidate;
            if (type == WorkRequestType.SEND) {
                wr.sequence = faults.sendPosted();
            }
            sendOutstanding++;
            if (fabric.mode == DeliveryMode.DETERMINISTIC) {
                sendQueue.add(wr);
                fabric.addTask(transmitTicket);
            } else {
                execution.execute(wr);
            }
            p = peer;
        }
        signalBoth(p);
    }

    private RdmaException notPostable(String what) {
        return new RdmaException("cannot " + what + " on endpoint " + id + ": it is " + state
                + (state == State.CONNECTED ? "" : " (not connected)"));
    }

    private Wr obtainWr(WorkRequestType type, long wrId, MockRegion r, int offset, int length) {
        Wr wr = wrPool.poll();
        if (wr == null) {
            wr = new Wr();
        }
        wr.type = type;
        wr.wrId = wrId;
        wr.region = r;
        wr.offset = offset;
        wr.length = length;
        wr.remoteAddress = 0;
        wr.remoteToken = 0;
        wr.withInvalidate = false;
        wr.sequence = 0;
        return wr;
    }

    void signalBoth(MockQueuePair p) {
        signal();
        if (p != null) {
            p.signal();
        }
    }

    /** DETERMINISTIC: executes the next queued send work request. */
    boolean transmitOne() {
        MockQueuePair p;
        synchronized (lock) {
            Wr wr = sendQueue.poll();
            if (wr == null) {
                return false;
            }
            execution.execute(wr);
            p = peer;
        }
        signalBoth(p);
        return true;
    }

    /** Under lock: queues the completion of {@code wr} (a work request of this endpoint) and recycles it. */
    void complete(Wr wr, CompletionStatus status, int byteLength, boolean invalidated, int token) {
        Event e = obtainEvent();
        e.kind = Event.COMPLETION;
        e.wrId = wr.wrId;
        e.type = wr.type;
        e.status = status;
        e.byteLength = byteLength;
        e.invalidated = invalidated;
        e.invalidatedToken = token;
        enqueue(e);
        wr.region = null;
        wrPool.add(wr);
    }

    // ------------------------------------------------------------------ teardown

    @Override
    public void disconnect() {
        teardown.disconnect();
    }

    @Override
    public void close() {
        teardown.close();
    }

    @Override
    public void crash() {
        teardown.crash();
    }

    /** The device went away (removal or shutdown): this side ends, its peer is left half-open. */
    void deviceGone(DisconnectCause cause, String detail) {
        teardown.deviceGone(cause, detail);
    }

    // ------------------------------------------------------------------ delivery

    @Override
    void discarded(Event e) {
        if (e.kind == Event.COMPLETION) {
            if (e.type == WorkRequestType.RECEIVE) {
                recvOutstanding--;
            } else {
                sendOutstanding--;
            }
        }
    }

    @Override
    void dispatch(Event e) {
        switch (e.kind) {
            case Event.COMPLETION -> handler.onCompletion(e);
            case Event.ESTABLISHED -> handler.onEstablished(readOnly(e.data));
            default -> handler.onDisconnected(e.cause, e.detail, readOnly(e.data));
        }
    }

    private static ByteBuffer readOnly(byte[] data) {
        return ByteBuffer.wrap(data == null ? NO_BYTES : data).asReadOnlyBuffer();
    }

    static byte[] copy(ByteBuffer b) {
        if (b == null || !b.hasRemaining()) {
            return NO_BYTES;
        }
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    // ------------------------------------------------------------------ MockEndpoint

    @Override
    public long id() {
        return id;
    }

    @Override
    public MockProvider provider() {
        return provider;
    }

    @Override
    public State state() {
        synchronized (lock) {
            return state;
        }
    }

    State stateUnderLock() {
        return state;
    }

    @Override
    public MockEndpoint peer() {
        synchronized (lock) {
            return peer;
        }
    }

    @Override
    public int postedReceives() {
        synchronized (lock) {
            return recvQueue.size();
        }
    }

    int postedReceivesUnderLock() {
        return recvQueue.size();
    }

    int outstandingUnderLock() {
        return sendOutstanding + recvOutstanding;
    }

    int regionsUnderLock() {
        return regions.size();
    }

    @Override
    public int outstandingWorkRequests() {
        synchronized (lock) {
            return sendOutstanding + recvOutstanding;
        }
    }

    @Override
    public int registeredRegions() {
        synchronized (lock) {
            return regions.size();
        }
    }

    @Override
    public long sendsTransmitted() {
        synchronized (lock) {
            return sendsTransmitted;
        }
    }

    @Override
    public int pendingCallbacks() {
        return queuedCallbacks();
    }

    @Override
    public void holdCompletions() {
        hold();
    }

    @Override
    public void releaseCompletions() {
        release();
    }

    @Override
    public void releaseCompletions(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        releaseSome(count);
    }

    @Override
    public void breakConnection(String detail) {
        faults.breakConnection(detail);
    }

    @Override
    public void breakAfterSends(int count) {
        faults.breakAfterSends(count);
    }

    @Override
    public void failNextPost(WorkRequestType type, CompletionStatus status) {
        faults.failNextPost(type, status);
    }

    @Override
    public void corruptSend(int nth, UnaryOperator<byte[]> mutation) {
        faults.corruptSend(nth, mutation);
    }

    @Override
    public void truncateSend(int nth, int length) {
        faults.truncateSend(nth, length);
    }

    @Override
    public void dropSend(int nth) {
        faults.dropSend(nth);
    }

    String describe() {
        synchronized (lock) {
            return this + " postedReceives=" + recvQueue.size() + " outstandingWorkRequests="
                    + (sendOutstanding + recvOutstanding) + " registeredRegions=" + regions.size()
                    + " pendingCallbacks=" + events.size();
        }
    }

    @Override
    public String toString() {
        return "MockEndpoint#" + id + "[" + provider.name() + ", " + (active ? "active" : "passive") + ", " + state
                + (localAddress != null ? ", " + localAddress + " -> " + peerAddress : "") + "]";
    }
}
