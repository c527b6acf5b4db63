package smbdirect.rdma.verbs.internal.loopback;

import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.tck.RdmaTckFixture;
import smbdirect.rdma.verbs.internal.DeviceAttributes;
import smbdirect.rdma.verbs.internal.VerbsBackend;
import smbdirect.rdma.verbs.internal.VerbsConstants;
import smbdirect.rdma.verbs.internal.VerbsRdmaProvider;
import smbdirect.rdma.verbs.internal.VerbsSettings;

/**
 * Two started {@link VerbsRdmaProvider}s (their own CM and completion threads), each over its own
 * {@link LoopbackBackend} on one {@link LoopbackNetwork}. Closing shuts both providers down and
 * checks that every native resource was released.
 */
final class VerbsTckFixture extends RdmaTckFixture {

    final LoopbackNetwork network = new LoopbackNetwork();
    final LoopbackBackend clientBackend;
    final LoopbackBackend serverBackend;
    final VerbsRdmaProvider client;
    final VerbsRdmaProvider server;
    private final VerbsBackend.Features features;

    /** Over devices whose backend shows what DiSNI 2.0 shows. */
    VerbsTckFixture(boolean busyPolling, boolean sendWithInvalidate) {
        this(busyPolling, sendWithInvalidate, LoopbackBackend.AS_DISNI);
    }

    VerbsTckFixture(boolean busyPolling, boolean sendWithInvalidate, VerbsBackend.Features features) {
        this(busyPolling, sendWithInvalidate, features, null);
    }

    /**
     * @param device what the providers are told the device reports ({@code null}: nothing, as DiSNI);
     *     with type 2 memory windows the providers expose memory through them
     */
    VerbsTckFixture(boolean busyPolling, boolean sendWithInvalidate, VerbsBackend.Features features,
            DeviceAttributes device) {
        this(busyPolling, sendWithInvalidate, features, device, 0);
    }

    /**
     * @param completionGroups the providers' {@code completionGroups} (0: one per completion vector
     *     of the loopback device, at most one per processor of this machine)
     */
    VerbsTckFixture(boolean busyPolling, boolean sendWithInvalidate, VerbsBackend.Features features,
            DeviceAttributes device, int completionGroups) {
        this.features = features;
        clientBackend = network.attach("10.9.0.1", features);
        serverBackend = network.attach("10.9.0.2", features);
        VerbsSettings settings = settings(busyPolling, sendWithInvalidate).withCompletionGroups(completionGroups);
        client = provider(settings, clientBackend, device);
        server = provider(settings, serverBackend, device);
    }

    /** A loopback device as rxe and mlx5 describe themselves: memory management extensions, type 2 windows. */
    static DeviceAttributes withMemoryWindows() {
        return new DeviceAttributes("loopback0", TransportType.INFINIBAND, 1L << 40, 16384, 1, 65536, 16, 16,
                VerbsConstants.DEVICE_MEM_MGT_EXTENSIONS | VerbsConstants.DEVICE_MEM_WINDOW
                        | VerbsConstants.DEVICE_MEM_WINDOW_TYPE_2B, "", DeviceAttributes.PORT_ACTIVE, 3, 1L << 31, 1,
                0, 1 << 16, true);
    }

    /** The defaults, with short wake-up intervals so CM events handed to a completion thread are seen quickly. */
    static VerbsSettings settings(boolean busyPolling, boolean sendWithInvalidate) {
        VerbsSettings d = VerbsSettings.defaults();
        return new VerbsSettings("", "", "AUTO", d.cqSize(), d.maxSendWorkRequests(), d.maxReceiveWorkRequests(),
                d.maxMessageSize(), d.maxReadDepth(), d.maxRegionSize(), busyPolling, d.pollBatch(), 5, 1000, 2000,
                d.retryCount(), d.rnrRetryCount(), d.listenBacklog(), sendWithInvalidate);
    }

    static VerbsRdmaProvider provider(VerbsSettings settings, LoopbackBackend backend) {
        return provider(settings, backend, null);
    }

    static VerbsRdmaProvider provider(VerbsSettings settings, LoopbackBackend backend, DeviceAttributes device) {
        VerbsRdmaProvider provider = new VerbsRdmaProvider(settings, backend,
                new InetSocketAddress(backend.address(), 0), TransportType.INFINIBAND, device, "", System::nanoTime);
        provider.start(Executors.defaultThreadFactory());
        return provider;
    }

    /** The device stands for an InfiniBand CM: private data comes zero-padded to its field where it is surfaced. */
    @Override
    public boolean padsPrivateData() {
        return features.privateData();
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
        return new InetSocketAddress(serverBackend.address(), port);
    }

    /**
     * librdmacm reports a connect to a port without listener as REJECTED; its status (the InfiniBand
     * CM's "invalid service ID") tells it from a consumer's reject, but DiSNI 2.0 hides the status.
     */
    @Override
    public boolean reportsMissingListenerAsUnreachable() {
        return clientBackend.features().privateData();
    }

    @Override
    public void close() {
        client.shutdown();
        server.shutdown();
        network.assertNoLeaks();
    }
}
