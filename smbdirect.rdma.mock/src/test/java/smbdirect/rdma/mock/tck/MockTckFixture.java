package smbdirect.rdma.mock.tck;

import java.net.InetSocketAddress;
import java.util.Locale;

import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.tck.RdmaTckFixture;

/**
 * Two devices ({@code client} and {@code server}) of one {@link MockFabric}: the contract suite's
 * fixture for the mock, and the in-JVM pair other modules' tests run over (this module's test jar).
 * Closing checks the fabric for leaks.
 */
public final class MockTckFixture extends RdmaTckFixture {

    private final MockFabric fabric;
    private final MockProvider client;
    private final MockProvider server;

    /** A fabric named after the suite, in {@code mode}, with the default capabilities. */
    public MockTckFixture(DeliveryMode mode) {
        this(mode, MockFabric.DEFAULT_CAPABILITIES);
    }

    /** A fabric named after the suite, in {@code mode}, with {@code capabilities}. */
    public MockTckFixture(DeliveryMode mode, RdmaCapabilities capabilities) {
        this(MockFabric.builder().name("tck-" + mode.name().toLowerCase(Locale.ROOT)).mode(mode)
                .capabilities(capabilities).build());
    }

    /** Two devices of {@code fabric}, which the fixture closes. */
    public MockTckFixture(MockFabric fabric) {
        this.fabric = fabric;
        client = fabric.provider("client");
        server = fabric.provider("server");
    }

    /** The fabric (for raw peers and fault injection). */
    public MockFabric fabric() {
        return fabric;
    }

    @Override
    public MockProvider clientProvider() {
        return client;
    }

    @Override
    public MockProvider serverProvider() {
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

    @Override
    public String toString() {
        return "mock " + fabric.mode();
    }
}
