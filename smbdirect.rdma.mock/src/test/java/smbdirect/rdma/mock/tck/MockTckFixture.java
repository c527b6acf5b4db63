package smbdirect.rdma.mock.tck;

import java.net.InetSocketAddress;

import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.tck.RdmaTckFixture;

/** Two devices of one {@link MockFabric} in a given delivery mode; closing checks the fabric for leaks. */
final class MockTckFixture extends RdmaTckFixture {

    private final MockFabric fabric;
    private final MockProvider client;
    private final MockProvider server;

    MockTckFixture(DeliveryMode mode) {
        this(mode, MockFabric.DEFAULT_CAPABILITIES);
    }

    MockTckFixture(DeliveryMode mode, RdmaCapabilities capabilities) {
        fabric = MockFabric.builder().name("tck-" + mode.name().toLowerCase(java.util.Locale.ROOT)).mode(mode)
                .capabilities(capabilities).build();
        client = fabric.provider("client");
        server = fabric.provider("server");
    }

    @Override
    public RdmaProvider clientProvider() {
        return client;
    }

    @Override
    public RdmaProvider serverProvider() {
        return server;
    }

    @Override
    public InetSocketAddress serverAddress(int port) {
        return new InetSocketAddress(server.address(), port);
    }

    @Override
    public void settle() {
        if (fabric.mode() == DeliveryMode.DETERMINISTIC) {
            fabric.runUntilIdle();
        }
    }

    @Override
    public boolean inlineCallbacks() {
        return fabric.mode() == DeliveryMode.INLINE;
    }

    @Override
    public void close() {
        try {
            fabric.assertNoLeaks();
        } finally {
            fabric.close();
        }
    }
}
