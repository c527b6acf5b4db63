package smbdirect.impl.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * A scripted endpoint: records every post; the test delivers receives, completes work requests and
 * disconnects, playing the peer. Completions are delivered synchronously (re-entrantly when the
 * test does so from a handler).
 */
final class FakeEndpoint implements RdmaEndpoint {

    /** A registered region. */
    static final class Region implements MemoryRegion {
        final int token;
        final long address;
        final ByteBuffer buffer;
        final Set<MemoryAccess> access;
        boolean valid = true;

        Region(int token, long address, ByteBuffer buffer, Set<MemoryAccess> access) {
            this.token = token;
            this.address = address;
            this.buffer = buffer;
            this.access = access;
        }

        @Override public int token() { return token; }
        @Override public int localKey() { return token; }
        @Override public long address() { return address; }
        @Override public int length() { return buffer.capacity(); }
        @Override public ByteBuffer buffer() { return buffer.duplicate().clear(); }
        @Override public Set<MemoryAccess> access() { return access; }
        @Override public boolean isValid() { return valid; }
    }

    /** A posted work request. */
    static final class Wr {
        final WorkRequestType type;
        final Region region;
        final int offset;
        final int length;
        final long wrId;
        final byte[] bytes;
        final Integer invalidateToken;
        final long remoteAddress;
        final int remoteToken;
        boolean completed;

        Wr(WorkRequestType type, Region region, int offset, int length, long wrId, byte[] bytes, Integer inv,
                long remoteAddress, int remoteToken) {
            this.type = type;
            this.region = region;
            this.offset = offset;
            this.length = length;
            this.wrId = wrId;
            this.bytes = bytes;
            this.invalidateToken = inv;
            this.remoteAddress = remoteAddress;
            this.remoteToken = remoteToken;
        }

        /** The sent bytes as a little-endian buffer. */
        ByteBuffer message() {
            return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    private final class Wc implements WorkCompletion {
        long wrId;
        WorkRequestType type;
        CompletionStatus status;
        int len;
        boolean inv;
        int token;

        @Override public long wrId() { return wrId; }
        @Override public WorkRequestType type() { return type; }
        @Override public CompletionStatus status() { return status; }
        @Override public int byteLength() { return len; }
        @Override public boolean hasInvalidatedToken() { return inv; }
        @Override public int invalidatedToken() { return token; }
        @Override public int vendorError() { return 0; }
    }

    final FakeProvider provider;
    final EndpointSettings config;
    final RdmaEndpointHandler handler;
    final boolean active;
    InetSocketAddress peer;
    ConnectParameters connectParameters;
    ConnectParameters acceptParameters;
    final List<String> events = new ArrayList<>();
    final ArrayDeque<Wr> receives = new ArrayDeque<>();
    final List<Wr> sends = new ArrayList<>();
    final List<Wr> rdma = new ArrayList<>();
    final List<Wr> invalidates = new ArrayList<>();
    final Set<Region> regions = new HashSet<>();
    boolean disconnected;
    boolean disconnectCalled;
    boolean closed;
    boolean autoCompleteSends;
    boolean autoCompleteRdma;
    boolean deferDisconnect;
    int failRegisterAfter = -1;
    boolean failDeregister;
    boolean failSendPost;
    /** When &ge; 0: that many more Send posts succeed, the following ones are refused. */
    int failSendPostsAfter = -1;
    boolean failReceivePost;
    boolean failRdmaPost;
    boolean failInvalidatePost;
    int ird = 8;
    /** Allocation-free bookkeeping for measurements: receives in a ring, Sends completed by {@link #leanStep}. */
    boolean lean;
    private final long[] leanRecvWr = new long[1024];
    private final int[] leanRecvOff = new int[1024];
    private final int[] leanRecvLen = new int[1024];
    private final Region[] leanRecvRegion = new Region[1024];
    private int leanRecvHead;
    private int leanRecvCount;
    private final long[] leanSendWr = new long[1024];
    private int leanSendCount;
    long leanSends;
    int ord = 8;
    final Wc wc = new Wc();

    FakeEndpoint(FakeProvider provider, EndpointSettings config, RdmaEndpointHandler handler, boolean active) {
        this.provider = provider;
        this.config = config;
        this.handler = handler;
        this.active = active;
    }

    @Override
    public void connect(InetSocketAddress peer, ConnectParameters parameters) throws RdmaException {
        this.peer = peer;
        this.connectParameters = parameters;
        events.add("connect");
    }

    @Override
    public void accept(ConnectParameters parameters) throws RdmaException {
        this.acceptParameters = parameters;
        events.add("accept");
    }

    @Override public InetSocketAddress localAddress() { return new InetSocketAddress("127.0.0.1", 4445); }
    @Override public InetSocketAddress peerAddress() { return peer; }
    @Override public int inboundReadDepth() { return ird; }
    @Override public int outboundReadDepth() { return ord; }
    @Override public RdmaCapabilities capabilities() { return provider.capabilities; }

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
        if (failRegisterAfter == 0) {
            throw new RdmaException("registration refused");
        }
        if (failRegisterAfter > 0) {
            failRegisterAfter--;
        }
        int token = provider.nextToken++;
        Region r = new Region(token, 0x10000L * token, buffer.slice(), Set.copyOf(access));
        regions.add(r);
        events.add("register");
        return r;
    }

    @Override
    public void deregister(MemoryRegion region) throws RdmaException {
        if (failDeregister) {
            throw new RdmaException("deregistration failed");
        }
        if (!regions.remove(region)) {
            throw new RdmaException("unknown region");
        }
        ((Region) region).valid = false;
        events.add("deregister");
    }

    private void live() throws RdmaException {
        if (disconnected || closed) {
            throw new RdmaException("endpoint not connected");
        }
    }

    @Override
    public void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        live();
        if (failReceivePost) {
            throw new RdmaException("receive queue full");
        }
        if (lean) {
            int at = (leanRecvHead + leanRecvCount++) % 1024;
            leanRecvWr[at] = wrId;
            leanRecvOff[at] = offset;
            leanRecvLen[at] = length;
            leanRecvRegion[at] = (Region) region;
            return;
        }
        receives.add(new Wr(WorkRequestType.RECEIVE, (Region) region, offset, length, wrId, null, null, 0, 0));
        events.add("postReceive:" + length);
    }

    @Override
    public void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        send(region, offset, length, wrId, null);
    }

    @Override
    public void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
            throws RdmaException {
        if (!provider.capabilities.sendWithInvalidate()) {
            throw new RdmaException("send with invalidate unsupported");
        }
        send(region, offset, length, wrId, remoteToken);
    }

    private void send(MemoryRegion region, int offset, int length, long wrId, Integer inv) throws RdmaException {
        live();
        if (failSendPost || failSendPostsAfter == 0) {
            throw new RdmaException("send queue full");
        }
        if (failSendPostsAfter > 0) {
            failSendPostsAfter--;
        }
        if (lean) {
            leanSendWr[leanSendCount++] = wrId;
            leanSends++;
            return;
        }
        byte[] b = new byte[length];
        region.buffer().get(offset, b);
        Wr w = new Wr(WorkRequestType.SEND, (Region) region, offset, length, wrId, b, inv, 0, 0);
        sends.add(w);
        events.add("postSend:" + length);
        if (autoCompleteSends) {
            complete(w, CompletionStatus.SUCCESS);
        }
    }

    @Override
    public void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        live();
        if (failRdmaPost) {
            throw new RdmaException("send queue full");
        }
        Wr w = new Wr(WorkRequestType.RDMA_WRITE, (Region) local, localOffset, length, wrId, null, null,
                remoteAddress, remoteToken);
        rdma.add(w);
        if (autoCompleteRdma) {
            complete(w, CompletionStatus.SUCCESS);
        }
    }

    @Override
    public void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        live();
        if (failRdmaPost) {
            throw new RdmaException("send queue full");
        }
        Wr w = new Wr(WorkRequestType.RDMA_READ, (Region) local, localOffset, length, wrId, null, null,
                remoteAddress, remoteToken);
        rdma.add(w);
        if (autoCompleteRdma) {
            complete(w, CompletionStatus.SUCCESS);
        }
    }

    @Override
    public void postLocalInvalidate(MemoryRegion region, long wrId) throws RdmaException {
        live();
        if (failInvalidatePost) {
            throw new RdmaException("send queue full");
        }
        Wr w = new Wr(WorkRequestType.LOCAL_INVALIDATE, (Region) region, 0, 0, wrId, null, null, 0, 0);
        invalidates.add(w);
        events.add("invalidate");
    }

    @Override
    public void disconnect() {
        disconnectCalled = true;
        if (!deferDisconnect) {
            flushAndDisconnect(DisconnectCause.LOCAL, "");
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Region r : regions) {
            r.valid = false;
        }
        regions.clear();
        events.add("close");
    }

    // ---- test side ----

    void establish() {
        handler.onEstablished(ByteBuffer.allocate(0));
    }

    void establish(ByteBuffer privateData) {
        handler.onEstablished(privateData);
    }

    /** Completes one work request. */
    void complete(Wr w, CompletionStatus status) {
        if (w.completed) {
            throw new AssertionError("completed twice");
        }
        w.completed = true;
        wc.wrId = w.wrId;
        wc.type = w.type;
        wc.status = status;
        wc.len = status == CompletionStatus.SUCCESS && w.type != WorkRequestType.SEND ? w.length : 0;
        wc.inv = false;
        handler.onCompletion(wc);
    }

    /** Completes every outstanding Send successfully, in order. */
    int completeSends() {
        int n = 0;
        for (int i = 0; i < sends.size(); i++) {
            Wr w = sends.get(i);
            if (!w.completed) {
                complete(w, CompletionStatus.SUCCESS);
                n++;
            }
        }
        return n;
    }

    /** Completes every outstanding RDMA request successfully. */
    void completeRdma() {
        for (int i = 0; i < rdma.size(); i++) {
            if (!rdma.get(i).completed) {
                complete(rdma.get(i), CompletionStatus.SUCCESS);
            }
        }
    }

    /** Completes every outstanding local invalidate. */
    void completeInvalidates() {
        for (int i = 0; i < invalidates.size(); i++) {
            if (!invalidates.get(i).completed) {
                complete(invalidates.get(i), CompletionStatus.SUCCESS);
            }
        }
    }

    /** The peer sends {@code message}: it lands in the oldest posted receive. */
    void deliver(ByteBuffer message) {
        deliver(message, null);
    }

    void deliver(ByteBuffer message, Integer invalidatedToken) {
        Wr w = receives.pollFirst();
        if (w == null) {
            throw new AssertionError("receiver not ready: no receive posted");
        }
        int len = message.remaining();
        w.completed = true;
        wc.wrId = w.wrId;
        wc.type = WorkRequestType.RECEIVE;
        if (len > w.length) {
            wc.status = CompletionStatus.LOCAL_LENGTH_ERROR;
            wc.len = 0;
            wc.inv = false;
            handler.onCompletion(wc);
            return;
        }
        w.region.buffer.put(w.offset, message, message.position(), len);
        wc.status = CompletionStatus.SUCCESS;
        wc.len = len;
        wc.inv = invalidatedToken != null;
        wc.token = invalidatedToken == null ? 0 : invalidatedToken;
        handler.onCompletion(wc);
    }

    /**
     * Lean mode: the peer's {@code message} lands in the oldest posted receive, then every Send
     * posted meanwhile completes. Allocates nothing.
     */
    void leanStep(ByteBuffer message) {
        int at = leanRecvHead;
        leanRecvHead = (leanRecvHead + 1) % 1024;
        leanRecvCount--;
        leanRecvRegion[at].buffer.put(leanRecvOff[at], message, 0, message.limit());
        wc.wrId = leanRecvWr[at];
        wc.type = WorkRequestType.RECEIVE;
        wc.status = CompletionStatus.SUCCESS;
        wc.len = message.limit();
        wc.inv = false;
        handler.onCompletion(wc);
        leanCompleteSends();
    }

    /** Lean mode: completes every Send posted so far, now (from inside a callback: while busy). */
    void leanCompleteSends() {
        while (leanSendCount > 0) {
            wc.wrId = leanSendWr[--leanSendCount];
            wc.type = WorkRequestType.SEND;
            wc.status = CompletionStatus.SUCCESS;
            wc.len = 0;
            wc.inv = false;
            handler.onCompletion(wc);
        }
    }

    /** Flushes every outstanding request, then reports the disconnect (the SPI's order). */
    void flushAndDisconnect(DisconnectCause cause, String detail) {
        if (disconnected) {
            return;
        }
        disconnected = true;
        Wr w;
        while ((w = receives.pollFirst()) != null) {
            complete(w, CompletionStatus.FLUSHED);
        }
        for (List<Wr> list : List.of(sends, rdma, invalidates)) {
            for (int i = 0; i < list.size(); i++) {
                if (!list.get(i).completed) {
                    complete(list.get(i), CompletionStatus.FLUSHED);
                }
            }
        }
        handler.onDisconnected(cause, detail, ByteBuffer.allocate(0));
    }

    /** Sends not yet completed. */
    List<Wr> outstandingSends() {
        List<Wr> out = new ArrayList<>();
        for (Wr w : sends) {
            if (!w.completed) {
                out.add(w);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "FakeEndpoint[" + (active ? "active" : "passive") + ", events=" + events + "]";
    }
}
