package smbdirect.rdma.verbs.internal;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.TransportType;

/** A provider over a {@link FakeBackend} with a manual clock, driven by the test thread. */
final class Harness {

    final FakeBackend backend;
    final AtomicLong now = new AtomicLong(1_000_000_000L);
    final VerbsSettings settings;
    final VerbsRdmaProvider provider;
    static final InetSocketAddress BIND = FakeBackend.ipv4("192.0.2.10", 0);
    static final InetSocketAddress PEER = FakeBackend.ipv4("192.0.2.20", 445);

    Harness() {
        this(VerbsSettings.defaults());
    }

    Harness(VerbsSettings settings) {
        this(settings, new FakeBackend());
    }

    Harness(VerbsSettings settings, FakeBackend backend) {
        this(settings, backend, TransportType.IWARP, null);
    }

    Harness(VerbsSettings settings, FakeBackend backend, TransportType transport, DeviceAttributes device) {
        this.settings = settings;
        this.backend = backend;
        this.provider = new VerbsRdmaProvider(settings, backend, BIND, transport, device, "", now::get);
    }

    static VerbsSettings withSendWithInvalidate() {
        VerbsSettings d = VerbsSettings.defaults();
        return new VerbsSettings(d.deviceName(), d.bindAddress(), d.transportType(), d.cqSize(),
                d.maxSendWorkRequests(), d.maxReceiveWorkRequests(), d.maxMessageSize(), d.maxReadDepth(),
                d.maxRegionSize(), d.busyPolling(), d.pollBatch(), d.eventTimeoutMillis(), d.resolveTimeoutMillis(),
                d.flushTimeoutMillis(), d.retryCount(), d.rnrRetryCount(), d.listenBacklog(), true);
    }

    /** Runs CM events and completion rounds (of every completion group of the device) until nothing is left. */
    void pump() {
        boolean work = true;
        while (work) {
            work = false;
            while (provider.pumpCmEvents(0)) {
                work = true;
            }
            for (CompletionGroup group : provider.completionGroups(backend.device.key())) {
                if (group.runOnce() > 0) {
                    work = true;
                }
            }
        }
    }

    void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    VerbsEndpoint activeEndpoint(RecordingHandler handler, int sendDepth, int recvDepth) throws RdmaException {
        return (VerbsEndpoint) provider.createEndpoint(new EndpointSettings(sendDepth, recvDepth), handler);
    }

    /** An active endpoint taken through resolve, route, connect and ESTABLISHED. */
    VerbsEndpoint established(RecordingHandler handler, int sendDepth, int recvDepth) throws RdmaException {
        VerbsEndpoint endpoint = activeEndpoint(handler, sendDepth, recvDepth);
        endpoint.connect(PEER, new ConnectParameters(ByteBuffer.allocate(0), 4, 4));
        backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, endpoint.cmId());
        backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, endpoint.cmId());
        backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, endpoint.cmId());
        pump();
        return endpoint;
    }

    /**
     * Registers a direct buffer of {@code regionSize} bytes for local write on {@code endpoint} and
     * posts {@code receives} receives of 64 bytes into it, at offsets 0, 64, ... with work request
     * ids 1, 2, ...
     */
    static MemoryRegion postReceives(RdmaEndpoint endpoint, int regionSize, int receives) throws RdmaException {
        MemoryRegion region = endpoint.register(direct(regionSize), access(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < receives; i++) {
            endpoint.postReceive(region, i * 64, 64, i + 1L);
        }
        return region;
    }

    /** A listen handler that adds each connect request to {@code requests}; a failed listener fails the test. */
    static RdmaListenHandler collecting(List<RdmaConnectRequest> requests) {
        return collecting(requests, (cause, detail) -> {
            throw new AssertionError("listener failed: " + cause);
        });
    }

    /** A listen handler that adds each connect request to {@code requests} and hands a listener's failure to {@code failed}. */
    static RdmaListenHandler collecting(List<RdmaConnectRequest> requests, BiConsumer<DisconnectCause, String> failed) {
        return new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                requests.add(request);
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                failed.accept(cause, detail);
            }
        };
    }

    static FakeBackend.FakeQp qp(VerbsEndpoint endpoint) {
        return (FakeBackend.FakeQp) endpoint.queuePair();
    }

    static ByteBuffer direct(int size) {
        return ByteBuffer.allocateDirect(size);
    }

    static EnumSet<MemoryAccess> access(MemoryAccess... rights) {
        EnumSet<MemoryAccess> set = EnumSet.noneOf(MemoryAccess.class);
        for (MemoryAccess a : rights) {
            set.add(a);
        }
        return set;
    }
}
