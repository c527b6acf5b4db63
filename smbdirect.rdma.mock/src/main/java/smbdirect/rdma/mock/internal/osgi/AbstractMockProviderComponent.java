package smbdirect.rdma.mock.internal.osgi;

import java.net.InetAddress;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.settings.SettingRefusedException;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.DetachableProvider;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.mock.internal.FabricImpl;

/**
 * A mock provider as a service: one {@link DeliveryMode#THREADED} fabric of its own, one device
 * on it, attached in activate and detached in deactivate (then every call is refused).
 * Thread-safe as {@link DetachableProvider} is.
 */
abstract class AbstractMockProviderComponent extends DetachableProvider implements MockProvider {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractMockProviderComponent.class);

    private volatile MockFabric fabric;

    /**
     * The capabilities a configuration gives the device: what {@link #start} applies and what the
     * {@link MockConfigurationCheck} checks.
     *
     * @throws SettingRefusedException naming the first refused attribute
     */
    static RdmaCapabilities capabilities(MockProviderConfiguration config) {
        RdmaCapabilities caps = FabricImpl.checkCapabilities(new RdmaCapabilities(config.maxSendWorkRequests(),
                config.maxReceiveWorkRequests(), config.maxSge(), config.maxInlineData(), config.maxMessageSize(),
                config.maxInboundReadDepth(), config.maxOutboundReadDepth(), config.maxRegionSize(),
                config.sendWithInvalidate()));
        if (config.completionThreads() < 1) {
            throw new SettingRefusedException("completionThreads must be at least 1: " + config.completionThreads(),
                    "completionThreads", config.completionThreads(), "must be at least 1");
        }
        return caps;
    }

    final void start(MockProviderConfiguration config) {
        RdmaCapabilities caps = capabilities(config);
        String name = config.smbdirect_provider();
        MockFabric f = MockFabric.builder().name(name).mode(DeliveryMode.THREADED)
                .transportType(config.smbdirect_provider_transport()).capabilities(caps)
                .completionThreads(config.completionThreads()).build();
        MockProvider device = f.provider(name);
        attach(device);
        fabric = f;
        LOG.info("Mock RDMA provider {} ({}) active at {}", name, config.smbdirect_provider_transport(),
                device.address().getHostAddress());
    }

    final void stop() {
        MockFabric f = fabric;
        fabric = null;
        detach();
        if (f != null) {
            f.close();
            LOG.info("Mock RDMA provider {} stopped", f.name());
        }
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
        return delegate().address();
    }

    @Override
    public void setCapabilities(RdmaCapabilities capabilities) {
        delegate().setCapabilities(capabilities);
    }

    @Override
    public void failNextRegistrations(int count) {
        delegate().failNextRegistrations(count);
    }

    @Override
    public void refuseConnections(byte[] privateData) {
        delegate().refuseConnections(privateData);
    }

    @Override
    public void acceptConnections() {
        delegate().acceptConnections();
    }

    @Override
    public void removeDevice() {
        delegate().removeDevice();
    }

    @Override
    public void restoreDevice() {
        delegate().restoreDevice();
    }

    @Override
    public boolean isDeviceRemoved() {
        return delegate().isDeviceRemoved();
    }

    @Override
    public List<MockEndpoint> endpoints() {
        return delegate().endpoints();
    }

    @Override
    public String toString() {
        MockProvider p = attached();
        return p == null ? "MockProvider[inactive]" : p.toString();
    }
}
