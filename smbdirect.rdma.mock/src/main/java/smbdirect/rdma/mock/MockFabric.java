package smbdirect.rdma.mock;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.mock.internal.FabricImpl;

/**
 * An in-JVM RDMA fabric: providers (devices) with IP addresses, their listeners and endpoints,
 * connected as reliable-connected queue pairs. Fabrics are independent of each other; use one per
 * test. Thread-safe. Close it at the end of the test (stops the completion threads in
 * {@link DeliveryMode#THREADED}).
 *
 * <pre>{@code
 * MockFabric fabric = MockFabric.builder().name("t").mode(DeliveryMode.DETERMINISTIC).build();
 * MockProvider server = fabric.provider("server");          // 10.0.0.1
 * RawPeer client = fabric.rawPeer();                         // its own device, 10.0.0.2
 * fabric.onEndpointCreated(ep -> ep.dropSend(3));            // arm faults on endpoints as they appear
 * ... engine listens on server at new InetSocketAddress(server.address(), 445) ...
 * client.connect(new InetSocketAddress(server.address(), 445), new byte[0]);
 * client.send(negotiateRequestBytes);
 * fabric.runUntilIdle();                                     // nothing runs by itself
 * List<RawMessage> replies = client.messages();
 * ... close everything ...
 * fabric.assertNoLeaks();
 * fabric.close();
 * }</pre>
 *
 * <p>This class is the fabric's public face; the fabric itself is internal and knows nothing of it.
 */
public final class MockFabric implements AutoCloseable {

    /** Capabilities of a provider created without explicit ones: roomy, like a current RNIC. */
    public static final RdmaCapabilities DEFAULT_CAPABILITIES = new RdmaCapabilities(4096, 4096, 16, 256, 1 << 30,
            16, 16, Integer.MAX_VALUE, true);

    private final FabricImpl fabric;

    private MockFabric(FabricImpl fabric) {
        this.fabric = fabric;
    }

    /** A builder with the defaults: {@link DeliveryMode#DETERMINISTIC}, InfiniBand, {@link #DEFAULT_CAPABILITIES}. */
    public static Builder builder() {
        return new Builder();
    }

    /** The fabric's name (used in thread names and messages). */
    public String name() {
        return fabric.name();
    }

    /** How work requests execute and callbacks are delivered. */
    public DeliveryMode mode() {
        return fabric.mode();
    }

    /**
     * The provider named {@code name}, created on first use with the fabric's transport type and
     * capabilities and the next free address (10.0.x.y).
     */
    public MockProvider provider(String name) {
        return fabric.provider(name);
    }

    /**
     * Creates a provider with its own transport type and capabilities.
     *
     * @throws IllegalArgumentException when a provider of that name exists
     */
    public MockProvider provider(String name, TransportType transportType, RdmaCapabilities capabilities) {
        return fabric.provider(name, transportType, capabilities);
    }

    /** The providers, in creation order. */
    public List<MockProvider> providers() {
        return fabric.providers();
    }

    /** A raw peer on a provider of its own (named {@code raw-<n>}). */
    public RawPeer rawPeer() {
        return fabric.rawPeer();
    }

    /** A raw peer on the given provider of this fabric. */
    public RawPeer rawPeer(MockProvider provider) {
        return fabric.rawPeer(provider);
    }

    /** The endpoints not yet closed, in creation order. */
    public List<MockEndpoint> endpoints() {
        return fabric.endpoints();
    }

    /**
     * Calls {@code observer} for every endpoint created from now on, synchronously on the creating
     * thread before the endpoint is returned to its creator, so that faults can be armed before the
     * first work request.
     */
    public void onEndpointCreated(Consumer<MockEndpoint> observer) {
        fabric.onEndpointCreated(observer);
    }

    /**
     * {@link DeliveryMode#DETERMINISTIC} only: performs the next queued action (one transmission of
     * a work request or one callback) on the calling thread.
     *
     * @return false when nothing was left to do
     * @throws IllegalStateException in another mode
     */
    public boolean step() {
        return fabric.step();
    }

    /**
     * {@link DeliveryMode#DETERMINISTIC} only: steps until nothing is left (callbacks may queue
     * more work; held completions stay held).
     *
     * @return the number of actions performed
     * @throws IllegalStateException in another mode, or after 10 million actions (a livelock)
     */
    public int runUntilIdle() {
        return fabric.runUntilIdle();
    }

    /**
     * {@link DeliveryMode#DETERMINISTIC}: runs {@code check} on the stepping thread after every
     * action that did something, so an invariant (e.g. credits granted never exceed receives
     * posted) is verified after every single event. An exception thrown by the check propagates
     * out of {@link #step()} / {@link #runUntilIdle()}.
     */
    public void afterEachStep(Runnable check) {
        fabric.afterEachStep(check);
    }

    /** {@link DeliveryMode#DETERMINISTIC}: queued actions not yet stepped; 0 in other modes. */
    public int pendingActions() {
        return fabric.pendingActions();
    }

    /** Live counts. */
    public MockFabricStats stats() {
        return fabric.stats();
    }

    /**
     * What is left behind: one line per endpoint not closed (with its posted receives,
     * outstanding work requests and regions), listener not closed, connection request
     * unanswered and handler that threw. Empty when everything was released and no handler failed.
     */
    public List<String> leaks() {
        return fabric.leaks();
    }

    /**
     * @throws AssertionError listing {@link #leaks()} when it is not empty
     */
    public void assertNoLeaks() {
        List<String> leaks = leaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError("fabric " + name() + " has " + leaks.size() + " leaked resource(s):\n  "
                    + String.join("\n  ", leaks));
        }
    }

    /**
     * Shuts the fabric down: live endpoints are disconnected with
     * {@link smbdirect.api.rdma.DisconnectCause#PROVIDER_SHUTDOWN}, listeners fail, then the
     * completion threads stop (after delivering what is queued, up to 5 seconds). Idempotent.
     */
    @Override
    public void close() {
        fabric.close();
    }

    @Override
    public String toString() {
        return fabric.toString();
    }

    /** Builds a {@link MockFabric}. Not thread-safe. */
    public static final class Builder {
        private String name = "fabric";
        private DeliveryMode mode = DeliveryMode.DETERMINISTIC;
        private TransportType transportType = TransportType.INFINIBAND;
        private RdmaCapabilities capabilities = DEFAULT_CAPABILITIES;
        private int completionThreads = 2;

        Builder() {
        }

        /** The name used in thread names and messages. */
        public Builder name(String value) {
            this.name = Objects.requireNonNull(value, "name");
            return this;
        }

        /** The delivery mode; default {@link DeliveryMode#DETERMINISTIC}. */
        public Builder mode(DeliveryMode value) {
            this.mode = Objects.requireNonNull(value, "mode");
            return this;
        }

        /** The transport type of providers created by {@link MockFabric#provider(String)}. */
        public Builder transportType(TransportType value) {
            this.transportType = Objects.requireNonNull(value, "transportType");
            return this;
        }

        /** The capabilities of providers created by {@link MockFabric#provider(String)}. */
        public Builder capabilities(RdmaCapabilities value) {
            this.capabilities = FabricImpl.checkCapabilities(Objects.requireNonNull(value, "capabilities"));
            return this;
        }

        /** Completion threads in {@link DeliveryMode#THREADED}; default 2. */
        public Builder completionThreads(int value) {
            if (value < 1) {
                throw new IllegalArgumentException("completionThreads must be at least 1: " + value);
            }
            this.completionThreads = value;
            return this;
        }

        /** A new, independent fabric. */
        public MockFabric build() {
            return new MockFabric(new FabricImpl(name, mode, transportType, capabilities, completionThreads));
        }
    }
}
