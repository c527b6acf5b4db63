package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
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
import smbdirect.rdma.tck.TckRecorder;

/** A connection between a client and a server endpoint on two devices of one fabric. */
final class Fixture implements RdmaListenHandler {
    static final int PORT = 445;

    final MockFabric fabric;
    final MockProvider clientDevice;
    final MockProvider serverDevice;
    final TckRecorder client = new TckRecorder();
    final TckRecorder server = new TckRecorder();
    final List<RdmaConnectRequest> requests = new ArrayList<>();
    final List<String> listenerEvents = new ArrayList<>();
    RdmaListener listener;
    List<MemoryRegion> serverReceiveRegions = List.of();
    List<MemoryRegion> clientReceiveRegions = List.of();
    MockEndpoint clientEp;
    volatile MockEndpoint serverEp;
    EndpointSettings serverConfig = new EndpointSettings(16, 16);
    EndpointSettings clientConfig = new EndpointSettings(16, 16);
    ConnectParameters acceptParams = new ConnectParameters(null, 8, 8);
    boolean autoAccept = true;
    int serverReceives = 4;
    int clientReceives = 4;
    int receiveSize = 1024;

    Fixture(MockFabric fabric) {
        this.fabric = fabric;
        this.clientDevice = fabric.provider("client");
        this.serverDevice = fabric.provider("server");
    }

    static Fixture deterministic() {
        return new Fixture(MockFabric.builder().name("test").build());
    }

    InetSocketAddress serverAddress() {
        return new InetSocketAddress(serverDevice.address(), PORT);
    }

    Fixture listen() throws RdmaException {
        listener = serverDevice.listen(new InetSocketAddress(serverDevice.address(), PORT), this);
        return this;
    }

    /** Listens, connects and (deterministic) runs until idle; INLINE completes synchronously. */
    Fixture connect() throws Exception {
        return connect(new ConnectParameters(null, 8, 8));
    }

    Fixture connect(ConnectParameters params) throws Exception {
        if (listener == null) {
            listen();
        }
        clientEp = (MockEndpoint) clientDevice.createEndpoint(clientConfig, client);
        clientReceiveRegions = postReceives(clientEp, clientReceives);
        clientEp.connect(serverAddress(), params);
        settle();
        if (fabric.mode() == DeliveryMode.THREADED && autoAccept) {
            client.awaitEstablished(5, TimeUnit.SECONDS);
            server.awaitEstablished(5, TimeUnit.SECONDS);
        }
        return this;
    }

    void settle() {
        if (fabric.mode() == DeliveryMode.DETERMINISTIC) {
            fabric.runUntilIdle();
        }
    }

    List<MemoryRegion> postReceives(RdmaEndpoint ep, int count) throws RdmaException {
        List<MemoryRegion> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            MemoryRegion r = ep.register(ByteBuffer.allocateDirect(receiveSize), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            ep.postReceive(r, 0, receiveSize, 1000 + i);
            out.add(r);
        }
        return out;
    }

    static MemoryRegion region(RdmaEndpoint ep, byte[] content, MemoryAccess... access) throws RdmaException {
        ByteBuffer b = ByteBuffer.allocateDirect(content.length);
        b.put(content).flip();
        return ep.register(b, access.length == 0 ? EnumSet.noneOf(MemoryAccess.class) : EnumSet.of(access[0], access));
    }

    static byte[] bytes(MemoryRegion r, int offset, int length) {
        byte[] out = new byte[length];
        r.buffer().get(offset, out);
        return out;
    }

    @Override
    public synchronized void onConnectRequest(RdmaConnectRequest request) {
        requests.add(request);
        listenerEvents.add("request");
        if (!autoAccept) {
            return;
        }
        try {
            MockEndpoint ep = (MockEndpoint) request.createEndpoint(serverConfig, server);
            serverEp = ep;
            serverReceiveRegions = postReceives(ep, serverReceives);
            ep.accept(acceptParams);
        } catch (RdmaException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void onListenerFailed(DisconnectCause cause, String detail) {
        listenerEvents.add("failed:" + cause);
    }

    synchronized List<String> listenerEvents() {
        return new ArrayList<>(listenerEvents);
    }

    /** Closes both endpoints and the listener, then checks that nothing leaked. */
    void closeAll() {
        if (clientEp != null) {
            clientEp.close();
        }
        if (serverEp != null) {
            serverEp.close();
        }
        if (listener != null) {
            listener.close();
        }
        settle();
        fabric.assertNoLeaks();
        assertEquals(0, fabric.stats().registeredRegions());
        fabric.close();
    }
}
