package smbdirect.rdma.iwarp.internal.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.IwarpStatistics;

/** One iWARP provider under test, listening on loopback; closing checks it left nothing behind. */
final class Rig implements AutoCloseable {

    final IwarpProvider provider;
    final BlockingQueue<RdmaConnectRequest> requests = new LinkedBlockingQueue<>();
    private final List<RdmaEndpoint> endpoints = new ArrayList<>();
    private RdmaListener listener;

    Rig(IwarpSettings settings) throws RdmaException {
        provider = IwarpProvider.open("conformance", settings.toBuilder().listenAddresses("127.0.0.1").build());
    }

    Rig() throws RdmaException {
        this(IwarpSettings.defaults());
    }

    InetSocketAddress listen() throws RdmaException {
        listener = provider.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                requests.add(request);
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
            }
        });
        return listener.localAddress();
    }

    RdmaConnectRequest nextRequest() throws InterruptedException {
        RdmaConnectRequest r = requests.poll(RawPeer.TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        if (r == null) {
            throw new AssertionError("no connection request");
        }
        return r;
    }

    /** An endpoint of this provider with its recorder and receive region. */
    static final class Side {
        final RdmaEndpoint endpoint;
        final Events events;
        final MemoryRegion receives;
        final int receiveSize;

        Side(RdmaEndpoint endpoint, Events events, MemoryRegion receives, int receiveSize) {
            this.endpoint = endpoint;
            this.events = events;
            this.receives = receives;
            this.receiveSize = receiveSize;
        }

        byte[] received(int slot, int length) {
            byte[] out = new byte[length];
            receives.buffer().get(slot * receiveSize, out);
            return out;
        }
    }

    /** Accepts the next request with {@code receives} receives of {@code size} bytes posted (wrIds 0..). */
    Side accept(int receives, int size, ConnectParameters parameters) throws Exception {
        return accept(receives, size, parameters, new EndpointSettings(16, 16));
    }

    /** As {@link #accept(int, int, ConnectParameters)}, with the endpoint's queues sized by {@code config}. */
    Side accept(int receives, int size, ConnectParameters parameters, EndpointSettings config) throws Exception {
        RdmaConnectRequest request = nextRequest();
        Events events = new Events();
        RdmaEndpoint ep = track(request.createEndpoint(config, events));
        MemoryRegion region = ep.register(ByteBuffer.allocateDirect(Math.max(1, receives * size)),
                EnumSet.of(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < receives; i++) {
            ep.postReceive(region, i * size, size, i);
        }
        ep.accept(parameters);
        return new Side(ep, events, region, size);
    }

    /** An active endpoint with {@code receives} receives posted, connecting to {@code peer}. */
    Side connect(InetSocketAddress peer, int receives, int size, ConnectParameters parameters) throws Exception {
        Events events = new Events();
        RdmaEndpoint ep = track(provider.createEndpoint(new EndpointSettings(16, 16), events));
        MemoryRegion region = ep.register(ByteBuffer.allocateDirect(Math.max(1, receives * size)),
                EnumSet.of(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < receives; i++) {
            ep.postReceive(region, i * size, size, i);
        }
        ep.connect(peer, parameters);
        return new Side(ep, events, region, size);
    }

    synchronized RdmaEndpoint track(RdmaEndpoint ep) {
        endpoints.add(ep);
        return ep;
    }

    @Override
    public void close() {
        synchronized (this) {
            for (RdmaEndpoint ep : endpoints) {
                ep.close();
            }
        }
        if (listener != null) {
            listener.close();
        }
        IwarpStatistics s = provider.statistics();
        provider.close();
        assertEquals(0, s.endpoints(), "endpoints left: " + s);
        assertEquals(0, s.internalErrors(), "failures that took the internal-error path: " + s);
        assertEquals(0, provider.statistics().connections(), "connections left: " + provider.statistics());
    }

    static ConnectParameters params(int ird, int ord, byte... privateData) {
        return new ConnectParameters(ByteBuffer.wrap(privateData), ird, ord);
    }

    /** {@code region} holds each of {@code data} at its offset and {@code sentinel} everywhere else. */
    static void assertRegion(MemoryRegion region, byte sentinel, int[] offsets, byte[][] data) {
        byte[] placed = new byte[region.length()];
        region.buffer().get(0, placed);
        byte[] want = new byte[placed.length];
        java.util.Arrays.fill(want, sentinel);
        for (int i = 0; i < offsets.length; i++) {
            System.arraycopy(data[i], 0, want, offsets[i], data[i].length);
        }
        for (int i = 0; i < want.length; i++) {
            if (want[i] != placed[i]) {
                assertEquals(want[i], placed[i], "byte " + i + " of " + region);
            }
        }
    }
}
