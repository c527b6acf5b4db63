package smbdirect.interop.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * An {@link RdmaProvider} in front of another that records, per connection, the bytes that crossed
 * the provider SPI: the private data of the connection request and of the established event, every
 * message posted as a Send and every message a receive completed with, and the RDMA Writes, RDMA
 * Reads and Sends with Invalidate posted toward the peer's memory (token and length). Where no capture can be
 * taken (two peers on one RDMA device in the guest, rxe's loopback), this is what arrived over the
 * real verbs, byte for byte. Thread-safe; the recorded lists are snapshots.
 */
public final class WireRecorder implements RdmaProvider {

    /** What one connection carried, in order. */
    public static final class Connection {
        /** The connection request's private data (passive side), else null. */
        public volatile byte[] requestPrivateData;
        public volatile int peerInboundReadDepth;
        public volatile int peerOutboundReadDepth;
        /** The private data of the established event. */
        public volatile byte[] establishedPrivateData;
        /** Every message posted as a Send, in post order. */
        public final List<byte[]> sent = new CopyOnWriteArrayList<>();
        /** Every message a receive completed with, in completion order. */
        public final List<byte[]> received = new CopyOnWriteArrayList<>();
        /** Every RDMA Write and RDMA Read posted toward the peer's memory, in post order. */
        public final List<Rdma> rdma = new CopyOnWriteArrayList<>();
        /** The peer's tokens named by Sends with Invalidate, in post order. */
        public final List<Integer> invalidated = new CopyOnWriteArrayList<>();
    }

    /**
     * An RDMA operation posted toward the peer's memory.
     *
     * @param write an RDMA Write into the peer's buffer (else an RDMA Read from it)
     * @param token the peer's token (STag, rkey)
     * @param remoteAddress the peer's address (offset) in that registration
     * @param length the bytes moved
     */
    public record Rdma(boolean write, int token, long remoteAddress, int length) {
    }

    private final RdmaProvider delegate;
    private final List<Connection> connections = new CopyOnWriteArrayList<>();

    public WireRecorder(RdmaProvider delegate) {
        this.delegate = delegate;
    }

    /** Every connection so far, passive and active, in the order they began. */
    public List<Connection> connections() {
        return new ArrayList<>(connections);
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public TransportType transportType() {
        return delegate.transportType();
    }

    @Override
    public RdmaCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public String describeSettings() {
        return delegate.describeSettings();
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException {
        return delegate.listen(bindAddress, new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                Connection c = new Connection();
                c.requestPrivateData = copy(request.privateData());
                c.peerInboundReadDepth = request.peerInboundReadDepth();
                c.peerOutboundReadDepth = request.peerOutboundReadDepth();
                connections.add(c);
                handler.onConnectRequest(new Request(request, c));
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                handler.onListenerFailed(cause, detail);
            }
        });
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        Connection c = new Connection();
        connections.add(c);
        Endpoint e = new Endpoint(c, handler);
        e.delegate = delegate.createEndpoint(config, e.recording);
        return e;
    }

    private static byte[] copy(ByteBuffer b) {
        if (b == null) {
            return new byte[0];
        }
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static byte[] copy(MemoryRegion region, int offset, int length) {
        byte[] out = new byte[length];
        region.buffer().duplicate().clear().position(offset).get(out);
        return out;
    }

    /** A connection request whose endpoint is recorded. */
    private static final class Request implements RdmaConnectRequest {
        private final RdmaConnectRequest delegate;
        private final Connection connection;

        Request(RdmaConnectRequest delegate, Connection connection) {
            this.delegate = delegate;
            this.connection = connection;
        }

        @Override
        public InetSocketAddress peerAddress() {
            return delegate.peerAddress();
        }

        @Override
        public InetSocketAddress localAddress() {
            return delegate.localAddress();
        }

        @Override
        public ByteBuffer privateData() {
            return delegate.privateData();
        }

        @Override
        public int peerInboundReadDepth() {
            return delegate.peerInboundReadDepth();
        }

        @Override
        public int peerOutboundReadDepth() {
            return delegate.peerOutboundReadDepth();
        }

        @Override
        public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
            Endpoint e = new Endpoint(connection, handler);
            e.delegate = delegate.createEndpoint(config, e.recording);
            return e;
        }

        @Override
        public void reject(ByteBuffer privateData) {
            delegate.reject(privateData);
        }
    }

    /** An endpoint whose Sends and completed receives are copied into its {@link Connection}. */
    private static final class Endpoint implements RdmaEndpoint {
        private final Connection connection;
        private final Map<Long, Posted> receives = new ConcurrentHashMap<>();
        final RdmaEndpointHandler recording;
        RdmaEndpoint delegate;

        private record Posted(MemoryRegion region, int offset) {
        }

        Endpoint(Connection connection, RdmaEndpointHandler handler) {
            this.connection = connection;
            this.recording = new RdmaEndpointHandler() {
                @Override
                public void onEstablished(ByteBuffer peerPrivateData) {
                    connection.establishedPrivateData = copy(peerPrivateData);
                    handler.onEstablished(peerPrivateData);
                }

                @Override
                public void onCompletion(WorkCompletion c) {
                    if (c.type() == WorkRequestType.RECEIVE) {
                        Posted p = receives.remove(c.wrId());
                        if (p != null && c.status() == CompletionStatus.SUCCESS) {
                            connection.received.add(copy(p.region(), p.offset(), c.byteLength()));
                        }
                    }
                    handler.onCompletion(c);
                }

                @Override
                public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
                    handler.onDisconnected(cause, detail, privateData);
                }
            };
        }

        @Override
        public void connect(InetSocketAddress peer, ConnectParameters parameters) throws RdmaException {
            delegate.connect(peer, parameters);
        }

        @Override
        public void accept(ConnectParameters parameters) throws RdmaException {
            delegate.accept(parameters);
        }

        @Override
        public InetSocketAddress localAddress() {
            return delegate.localAddress();
        }

        @Override
        public InetSocketAddress peerAddress() {
            return delegate.peerAddress();
        }

        @Override
        public int inboundReadDepth() {
            return delegate.inboundReadDepth();
        }

        @Override
        public int outboundReadDepth() {
            return delegate.outboundReadDepth();
        }

        @Override
        public RdmaCapabilities capabilities() {
            return delegate.capabilities();
        }

        @Override
        public MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
            return delegate.register(buffer, access);
        }

        @Override
        public void deregister(MemoryRegion region) throws RdmaException {
            delegate.deregister(region);
        }

        @Override
        public void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
            receives.put(wrId, new Posted(region, offset));
            delegate.postReceive(region, offset, length, wrId);
        }

        @Override
        public void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
            connection.sent.add(copy(region, offset, length));
            delegate.postSend(region, offset, length, wrId);
        }

        @Override
        public void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
                throws RdmaException {
            connection.sent.add(copy(region, offset, length));
            connection.invalidated.add(remoteToken);
            delegate.postSendWithInvalidate(region, offset, length, remoteToken, wrId);
        }

        @Override
        public void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress,
                int remoteToken, long wrId) throws RdmaException {
            connection.rdma.add(new Rdma(true, remoteToken, remoteAddress, length));
            delegate.postRdmaWrite(local, localOffset, length, remoteAddress, remoteToken, wrId);
        }

        @Override
        public void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress,
                int remoteToken, long wrId) throws RdmaException {
            connection.rdma.add(new Rdma(false, remoteToken, remoteAddress, length));
            delegate.postRdmaRead(local, localOffset, length, remoteAddress, remoteToken, wrId);
        }

        @Override
        public void postLocalInvalidate(MemoryRegion region, long wrId) throws RdmaException {
            delegate.postLocalInvalidate(region, wrId);
        }

        @Override
        public void disconnect() {
            delegate.disconnect();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
