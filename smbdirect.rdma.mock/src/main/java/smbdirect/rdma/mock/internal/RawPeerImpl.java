package smbdirect.rdma.mock.internal;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.mock.RawCompletion;
import smbdirect.rdma.mock.RawMessage;
import smbdirect.rdma.mock.RawPeer;

/**
 * A scripted far end built on the SPI. Thread-safe: state guarded by {@code this}; the handler
 * callbacks only record and notify.
 */
final class RawPeerImpl implements RawPeer, RdmaEndpointHandler, RdmaListenHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RawPeerImpl.class);
    private static final Set<MemoryAccess> RECEIVE_ACCESS = Set.of(MemoryAccess.LOCAL_WRITE);
    private static final Set<MemoryAccess> SEND_ACCESS = Set.of();

    private final FabricImpl fabric;
    private final MockDevice provider;
    private final AtomicLong wrIds = new AtomicLong();
    private int receiveSize = 8192;
    private int initialReceives = 16;
    private boolean autoRepost = true;
    private int sendDepth = 256;
    private int receiveDepth = 256;
    private int ird = 16;
    private int ord = 16;
    private byte[] acceptData = MockQueuePair.NO_BYTES;
    private byte[] rejectData;
    private MockEndpoint endpoint;
    private RdmaListener listener;
    private boolean established;
    private boolean ended;
    private byte[] requestData;
    private byte[] peerAcceptData;
    private DisconnectCause cause;
    private String detail;
    private byte[] disconnectData;
    private long sequence;
    private final List<RawMessage> messages = new ArrayList<>();
    private final List<RawCompletion> completions = new ArrayList<>();
    private final Map<Long, MemoryRegion> receiveRegions = new HashMap<>();
    private final Map<Long, MemoryRegion> sendRegions = new HashMap<>();
    private final List<MemoryRegion> userRegions = new ArrayList<>();

    RawPeerImpl(FabricImpl fabric, MockDevice provider) {
        this.fabric = fabric;
        this.provider = provider;
    }

    @Override
    public MockProvider provider() {
        return provider;
    }

    @Override
    public synchronized RawPeer receiveSize(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("receiveSize must be positive: " + bytes);
        }
        receiveSize = bytes;
        return this;
    }

    @Override
    public synchronized RawPeer initialReceives(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("initialReceives must not be negative: " + count);
        }
        initialReceives = count;
        return this;
    }

    @Override
    public synchronized RawPeer autoRepost(boolean repost) {
        autoRepost = repost;
        return this;
    }

    @Override
    public synchronized RawPeer queueDepths(int sendQueueDepth, int receiveQueueDepth) {
        new EndpointSettings(sendQueueDepth, receiveQueueDepth);
        sendDepth = sendQueueDepth;
        receiveDepth = receiveQueueDepth;
        return this;
    }

    @Override
    public synchronized RawPeer readDepths(int inboundReadDepth, int outboundReadDepth) {
        new ConnectParameters(null, inboundReadDepth, outboundReadDepth);
        ird = inboundReadDepth;
        ord = outboundReadDepth;
        return this;
    }

    @Override
    public synchronized RawPeer acceptPrivateData(byte[] privateData) {
        acceptData = privateData == null ? MockQueuePair.NO_BYTES : privateData.clone();
        return this;
    }

    @Override
    public synchronized RawPeer rejectWith(byte[] privateData) {
        rejectData = privateData == null ? null : privateData.clone();
        return this;
    }

    @Override
    public void connect(InetSocketAddress remote, byte[] privateData) throws RdmaException {
        MockEndpoint ep;
        int receives;
        ConnectParameters params;
        synchronized (this) {
            if (endpoint != null) {
                throw new IllegalStateException("raw peer already has a connection: " + endpoint);
            }
            ep = (MockEndpoint) provider.createEndpoint(new EndpointSettings(sendDepth, receiveDepth), this);
            endpoint = ep;
            receives = initialReceives;
            params = new ConnectParameters(ByteBuffer.wrap(privateData == null ? MockQueuePair.NO_BYTES : privateData),
                    ird, ord);
        }
        postReceives(ep, receives);
        ep.connect(remote, params);
    }

    @Override
    public InetSocketAddress listen(InetSocketAddress bind) throws RdmaException {
        RdmaListener l = provider.listen(bind, this);
        synchronized (this) {
            if (listener != null) {
                l.close();
                throw new IllegalStateException("raw peer already listens at " + listener.localAddress());
            }
            listener = l;
        }
        return l.localAddress();
    }

    @Override
    public void onConnectRequest(RdmaConnectRequest request) {
        byte[] reject;
        ConnectParameters params;
        int receives;
        synchronized (this) {
            requestData = MockQueuePair.copy(request.privateData());
            reject = endpoint != null ? MockQueuePair.NO_BYTES : rejectData;
            params = new ConnectParameters(ByteBuffer.wrap(acceptData), ird, ord);
            receives = initialReceives;
        }
        if (reject != null) {
            request.reject(ByteBuffer.wrap(reject));
            return;
        }
        try {
            MockEndpoint ep = (MockEndpoint) request.createEndpoint(new EndpointSettings(sendDepth, receiveDepth), this);
            synchronized (this) {
                endpoint = ep;
            }
            postReceives(ep, receives);
            ep.accept(params);
        } catch (RdmaException e) {
            LOG.warn("Raw peer could not accept {}: {}", request, e.getMessage());
            request.reject(null);
        }
    }

    @Override
    public void onListenerFailed(DisconnectCause listenerCause, String listenerDetail) {
        LOG.debug("Raw peer listener failed: {} {}", listenerCause, listenerDetail);
    }

    @Override
    public MockEndpoint endpoint() {
        synchronized (this) {
            return endpoint;
        }
    }

    @Override
    public synchronized boolean isConnected() {
        return established && !ended;
    }

    @Override
    public synchronized byte[] requestPrivateData() {
        return requestData == null ? null : requestData.clone();
    }

    @Override
    public synchronized byte[] peerAcceptPrivateData() {
        return peerAcceptData == null ? null : peerAcceptData.clone();
    }

    @Override
    public void postReceives(int count) throws RdmaException {
        postReceives(requireEndpoint(), count);
    }

    private void postReceives(MockEndpoint ep, int count) throws RdmaException {
        int size;
        synchronized (this) {
            size = receiveSize;
        }
        for (int i = 0; i < count; i++) {
            MemoryRegion region = ep.register(ByteBuffer.allocateDirect(size), RECEIVE_ACCESS);
            long wrId = wrIds.incrementAndGet();
            synchronized (this) {
                receiveRegions.put(wrId, region);
            }
            ep.postReceive(region, 0, size, wrId);
        }
    }

    @Override
    public long send(byte[] message) throws RdmaException {
        return send(message, false, 0);
    }

    @Override
    public long sendWithInvalidate(byte[] message, int remoteToken) throws RdmaException {
        return send(message, true, remoteToken);
    }

    private long send(byte[] message, boolean invalidate, int token) throws RdmaException {
        Objects.requireNonNull(message, "message");
        MockEndpoint ep = requireEndpoint();
        ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(1, message.length));
        buffer.put(message).clear();
        MemoryRegion region = ep.register(buffer, SEND_ACCESS);
        long wrId = wrIds.incrementAndGet();
        synchronized (this) {
            sendRegions.put(wrId, region);
        }
        try {
            if (invalidate) {
                ep.postSendWithInvalidate(region, 0, message.length, token, wrId);
            } else {
                ep.postSend(region, 0, message.length, wrId);
            }
        } catch (RdmaException e) {
            synchronized (this) {
                sendRegions.remove(wrId);
            }
            ep.deregister(region);
            throw e;
        }
        return wrId;
    }

    @Override
    public MemoryRegion register(int length, Set<MemoryAccess> access) throws RdmaException {
        MemoryRegion region = requireEndpoint().register(ByteBuffer.allocateDirect(length), access);
        synchronized (this) {
            userRegions.add(region);
        }
        return region;
    }

    @Override
    public void deregister(MemoryRegion region) throws RdmaException {
        requireEndpoint().deregister(region);
        synchronized (this) {
            userRegions.remove(region);
        }
    }

    @Override
    public long rdmaWrite(byte[] data, long remoteAddress, int remoteToken) throws RdmaException {
        Objects.requireNonNull(data, "data");
        MockEndpoint ep = requireEndpoint();
        ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(1, data.length));
        buffer.put(data).clear();
        MemoryRegion region = ep.register(buffer, SEND_ACCESS);
        long wrId = wrIds.incrementAndGet();
        synchronized (this) {
            sendRegions.put(wrId, region);
        }
        ep.postRdmaWrite(region, 0, data.length, remoteAddress, remoteToken, wrId);
        return wrId;
    }

    @Override
    public long rdmaRead(MemoryRegion local, int offset, int length, long remoteAddress, int remoteToken)
            throws RdmaException {
        long wrId = wrIds.incrementAndGet();
        requireEndpoint().postRdmaRead(local, offset, length, remoteAddress, remoteToken, wrId);
        return wrId;
    }

    private synchronized MockEndpoint requireEndpoint() throws RdmaException {
        if (endpoint == null) {
            throw new RdmaException("raw peer has no connection yet");
        }
        return endpoint;
    }

    // ---------------------------------------------------------------- handler

    @Override
    public void onEstablished(ByteBuffer peerPrivateData) {
        synchronized (this) {
            established = true;
            peerAcceptData = MockQueuePair.copy(peerPrivateData);
            notifyAll();
        }
    }

    @Override
    public void onCompletion(WorkCompletion wc) {
        MockEndpoint ep;
        MemoryRegion region = null;
        boolean repost = false;
        int size = 0;
        synchronized (this) {
            ep = endpoint;
            long wrId = wc.wrId();
            completions.add(new RawCompletion(++sequence, wrId, wc.type(), wc.status(), wc.byteLength()));
            if (wc.type() == WorkRequestType.RECEIVE) {
                region = receiveRegions.remove(wrId);
                if (wc.status() == CompletionStatus.SUCCESS && region != null) {
                    byte[] bytes = new byte[wc.byteLength()];
                    region.buffer().get(0, bytes);
                    messages.add(new RawMessage(sequence, System.nanoTime(), bytes, wc.hasInvalidatedToken(),
                            wc.invalidatedToken()));
                    repost = autoRepost && !ended;
                    size = receiveSize;
                }
            } else {
                region = sendRegions.remove(wrId);
            }
            notifyAll();
        }
        if (region == null || ep == null) {
            return;
        }
        try {
            if (repost && region.length() == size) {
                long wrId = wrIds.incrementAndGet();
                synchronized (this) {
                    receiveRegions.put(wrId, region);
                }
                try {
                    ep.postReceive(region, 0, size, wrId);
                    return;
                } catch (RdmaException e) {
                    synchronized (this) {
                        receiveRegions.remove(wrId);
                    }
                }
            }
            ep.deregister(region);
        } catch (RdmaException e) {
            LOG.debug("Raw peer could not release {}: {}", region, e.getMessage());
        }
    }

    @Override
    public void onDisconnected(DisconnectCause disconnectCause, String disconnectDetail, ByteBuffer privateData) {
        synchronized (this) {
            ended = true;
            cause = disconnectCause;
            detail = disconnectDetail;
            disconnectData = MockQueuePair.copy(privateData);
            notifyAll();
        }
    }

    // ---------------------------------------------------------------- accessors

    @Override
    public synchronized List<RawMessage> messages() {
        return List.copyOf(messages);
    }

    @Override
    public synchronized List<byte[]> received() {
        List<byte[]> out = new ArrayList<>(messages.size());
        for (RawMessage m : messages) {
            out.add(m.bytes().clone());
        }
        return out;
    }

    @Override
    public synchronized List<RawCompletion> completions() {
        return List.copyOf(completions);
    }

    @Override
    public List<RawMessage> awaitMessages(int count, Duration timeout) throws InterruptedException {
        awaitCondition(() -> messages.size() >= count, timeout, () -> "expected " + count + " messages, got "
                + messages.size() + (ended ? " (disconnected: " + cause + " " + detail + ")" : ""));
        return messages();
    }

    @Override
    public void awaitEstablished(Duration timeout) throws InterruptedException {
        awaitCondition(() -> established || ended, timeout, () -> "connection not established");
        synchronized (this) {
            if (!established) {
                throw new AssertionError("connection ended before establishment: " + cause + " " + detail);
            }
        }
    }

    @Override
    public DisconnectCause awaitDisconnected(Duration timeout) throws InterruptedException {
        awaitCondition(() -> ended, timeout, () -> "connection did not end");
        synchronized (this) {
            return cause;
        }
    }

    private interface Condition {
        boolean holds();
    }

    private interface Message {
        String text();
    }

    private void awaitCondition(Condition condition, Duration timeout, Message failure) throws InterruptedException {
        if (fabric.mode == DeliveryMode.DETERMINISTIC) {
            fabric.runUntilIdle();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (!condition.holds()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || fabric.mode == DeliveryMode.DETERMINISTIC) {
                    throw new AssertionError(failure.text() + " within " + timeout);
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    @Override
    public synchronized DisconnectCause disconnectCause() {
        return cause;
    }

    @Override
    public synchronized String disconnectDetail() {
        return detail;
    }

    @Override
    public synchronized byte[] disconnectPrivateData() {
        return disconnectData == null ? null : disconnectData.clone();
    }

    @Override
    public void disconnect() {
        MockEndpoint ep = endpoint();
        if (ep != null) {
            ep.disconnect();
        }
    }

    @Override
    public void crash() {
        MockEndpoint ep = endpoint();
        if (ep != null) {
            ep.crash();
        }
        RdmaListener l;
        synchronized (this) {
            l = listener;
        }
        if (l != null) {
            l.close();
        }
    }

    @Override
    public void close() {
        MockEndpoint ep;
        RdmaListener l;
        synchronized (this) {
            ep = endpoint;
            l = listener;
            receiveRegions.clear();
            sendRegions.clear();
            userRegions.clear();
        }
        if (l != null) {
            l.close();
        }
        if (ep != null) {
            ep.close();
        }
    }

    @Override
    public String toString() {
        return "RawPeer[" + provider.name() + ", " + endpoint() + "]";
    }
}
