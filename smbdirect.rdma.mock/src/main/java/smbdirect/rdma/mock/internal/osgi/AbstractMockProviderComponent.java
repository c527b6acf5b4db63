package smbdirect.rdma.mock.internal.osgi;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.EndpointConfig;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.mock.internal.FabricImpl;

/**
 * A mock provider as a service: one {@link DeliveryMode#THREADED} fabric of its own, one device
 * on it. Thread-safe: the delegate is set in activate and cleared in deactivate (volatile).
 */
abstract class AbstractMockProviderComponent implements MockProvider {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractMockProviderComponent.class);

    private volatile MockFabric fabric;
    private volatile MockProvider delegate;

    final void start(MockProviderConfig config) {
        RdmaCapabilities caps = FabricImpl.checkCapabilities(new RdmaCapabilities(config.maxSendWorkRequests(),
                config.maxReceiveWorkRequests(), config.maxSge(), config.maxInlineData(), config.maxMessageSize(),
                config.maxInboundReadDepth(), config.maxOutboundReadDepth(), config.maxRegionSize(),
                config.sendWithInvalidate()));
        if (config.completionThreads() < 1) {
            throw new IllegalArgumentException("completionThreads must be at least 1: " + config.completionThreads());
        }
        String name = config.smbdirect_provider();
        MockFabric f = MockFabric.builder().name(name).mode(DeliveryMode.THREADED)
                .transportType(config.smbdirect_provider_transport()).capabilities(caps)
                .completionThreads(config.completionThreads()).build();
        delegate = f.provider(name);
        fabric = f;
        LOG.info("Mock RDMA provider {} ({}) active at {}", name, config.smbdirect_provider_transport(),
                delegate.address().getHostAddress());
    }

    final void stop() {
        MockFabric f = fabric;
        fabric = null;
        delegate = null;
        if (f != null) {
            f.close();
            LOG.info("Mock RDMA provider {} stopped", f.name());
        }
    }

    private MockProvider d() {
        MockProvider p = delegate;
        if (p == null) {
            throw new IllegalStateException("mock provider component is not active");
        }
        return p;
    }

    @Override
    public String name() {
        return d().name();
    }

    @Override
    public TransportType transportType() {
        return d().transportType();
    }

    @Override
    public RdmaCapabilities capabilities() {
        return d().capabilities();
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException {
        return d().listen(bindAddress, handler);
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointConfig config, RdmaEndpointHandler handler) throws RdmaException {
        return d().createEndpoint(config, handler);
    }

    /** The fabric of its own this provider runs on (tests and diagnostics). */
    public MockFabric fabric() {
        MockFabric f = fabric;
        if (f == null) {
            throw new IllegalStateException("mock provider component is not active");
        }
        return f;
    }

    @Override
    public InetAddress address() {
        return d().address();
    }

    @Override
    public void setCapabilities(RdmaCapabilities capabilities) {
        d().setCapabilities(capabilities);
    }

    @Override
    public void failNextRegistrations(int count) {
        d().failNextRegistrations(count);
    }

    @Override
    public void refuseConnections(byte[] privateData) {
        d().refuseConnections(privateData);
    }

    @Override
    public void acceptConnections() {
        d().acceptConnections();
    }

    @Override
    public void removeDevice() {
        d().removeDevice();
    }

    @Override
    public void restoreDevice() {
        d().restoreDevice();
    }

    @Override
    public boolean isDeviceRemoved() {
        return d().isDeviceRemoved();
    }

    @Override
    public List<MockEndpoint> endpoints() {
        return d().endpoints();
    }

    @Override
    public String toString() {
        MockProvider p = delegate;
        return p == null ? "MockProvider[inactive]" : p.toString();
    }
}
