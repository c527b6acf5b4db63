package smbdirect.impl.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;

/** A scripted provider for unit tests: the test plays the peer through {@link FakeEndpoint}. */
final class FakeProvider implements RdmaProvider {

    TransportType transportType = TransportType.ROCE;
    RdmaCapabilities capabilities = new RdmaCapabilities(1024, 1024, 4, 64, 1 << 30, 16, 16, 1L << 32, true);
    final List<FakeEndpoint> endpoints = new ArrayList<>();
    final List<FakeListener> listeners = new ArrayList<>();
    boolean failCreateEndpoint;
    boolean failListen;
    /** Tokens handed out by this provider's endpoints. */
    int nextToken = 0x1000;

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public TransportType transportType() {
        return transportType;
    }

    @Override
    public RdmaCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException {
        if (failListen) {
            throw new RdmaException("address in use");
        }
        FakeListener l = new FakeListener(bindAddress, handler);
        listeners.add(l);
        return l;
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        if (failCreateEndpoint) {
            throw new RdmaException("no queue pair");
        }
        FakeEndpoint e = new FakeEndpoint(this, config, handler, true);
        endpoints.add(e);
        return e;
    }

    FakeEndpoint last() {
        return endpoints.get(endpoints.size() - 1);
    }

    /** Every endpoint was closed (its queue pair and regions released). */
    void assertNoLeaks() {
        for (FakeEndpoint e : endpoints) {
            if (!e.closed) {
                throw new AssertionError("endpoint not closed: " + e);
            }
        }
    }

    static final class FakeListener implements RdmaListener {
        final InetSocketAddress address;
        final RdmaListenHandler handler;
        boolean closed;

        FakeListener(InetSocketAddress address, RdmaListenHandler handler) {
            this.address = address;
            this.handler = handler;
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** An incoming request the test injects. */
    final class FakeRequest implements RdmaConnectRequest {
        final InetSocketAddress peer;
        final ByteBuffer privateData;
        final int peerIrd;
        final int peerOrd;
        FakeEndpoint endpoint;
        boolean rejected;

        FakeRequest(InetSocketAddress peer, ByteBuffer privateData, int peerIrd, int peerOrd) {
            this.peer = peer;
            this.privateData = privateData == null ? ByteBuffer.allocate(0) : privateData;
            this.peerIrd = peerIrd;
            this.peerOrd = peerOrd;
        }

        @Override
        public InetSocketAddress peerAddress() {
            return peer;
        }

        @Override
        public InetSocketAddress localAddress() {
            return new InetSocketAddress("127.0.0.1", 445);
        }

        @Override
        public ByteBuffer privateData() {
            return privateData.asReadOnlyBuffer();
        }

        @Override
        public int peerInboundReadDepth() {
            return peerIrd;
        }

        @Override
        public int peerOutboundReadDepth() {
            return peerOrd;
        }

        @Override
        public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
            if (failCreateEndpoint) {
                throw new RdmaException("no queue pair");
            }
            endpoint = new FakeEndpoint(FakeProvider.this, config, handler, false);
            endpoint.peer = peer;
            endpoints.add(endpoint);
            return endpoint;
        }

        @Override
        public void reject(ByteBuffer privateData) {
            rejected = true;
            if (endpoint != null) {
                endpoint.closed = true;
            }
        }
    }
}
