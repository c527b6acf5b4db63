package smbdirect.rdma.verbs.internal.loopback;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.VerbsBackend;
import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * What the SPI contract cannot see: the bytes and events at the loopback device under the verbs
 * provider, and the device's own rules that the contract relies on.
 */
class VerbsDeviceLevelTest {

    /** Handler that ignores everything (the device-level checks look below the SPI). */
    static class Quiet implements RdmaEndpointHandler, RdmaListenHandler {
        final CompletableFuture<RdmaConnectRequest> request = new CompletableFuture<>();

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
        }

        @Override
        public void onCompletion(WorkCompletion completion) {
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        }

        @Override
        public void onConnectRequest(RdmaConnectRequest r) {
            request.complete(r);
        }

        @Override
        public void onListenerFailed(DisconnectCause cause, String detail) {
        }
    }

    /** Private data of the established and disconnected callbacks, as futures. */
    static final class PrivateData extends Quiet {
        final CompletableFuture<byte[]> established = new CompletableFuture<>();
        final CompletableFuture<byte[]> disconnected = new CompletableFuture<>();

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            established.complete(bytes(peerPrivateData));
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            disconnected.complete(bytes(privateData));
        }

        static byte[] bytes(ByteBuffer b) {
            byte[] out = new byte[b.remaining()];
            b.duplicate().get(out);
            return out;
        }
    }

    /** {@code sent}, zero-padded to {@code size}. */
    private static byte[] padded(int size, int... sent) {
        byte[] out = new byte[size];
        for (int i = 0; i < sent.length; i++) {
            out[i] = (byte) sent[i];
        }
        return out;
    }

    /**
     * As Linux rxe (RoCE v2, rdma-core 44, kernel 6.1) reports private data through librdmacm:
     * the connection request's 56 bytes, the accepting reply's 196 and a reject's 148, each the bytes
     * sent and then zeros; nothing on the passive side's established event.
     */
    @Test
    void anInfinibandCmDeliversPrivateDataZeroPaddedToItsMessagesFieldAsRxeDoes() throws Exception {
        VerbsTckFixture f = new VerbsTckFixture(false, false, LoopbackBackend.AS_RDMA_CORE);
        try {
            PrivateData listen = new PrivateData();
            RdmaListener listener = f.server.listen(f.serverAddress(4450), listen);
            PrivateData active = new PrivateData();
            RdmaEndpoint ep = f.client.createEndpoint(new EndpointSettings(2, 2), active);
            ep.connect(f.serverAddress(4450), new ConnectParameters(ByteBuffer.wrap(new byte[] {5, 6, 7}), 1, 1));
            RdmaConnectRequest request = listen.request.get(10, TimeUnit.SECONDS);
            assertArrayEquals(padded(56, 5, 6, 7), PrivateData.bytes(request.privateData()), "CONNECT_REQUEST");
            PrivateData passive = new PrivateData();
            RdmaEndpoint accepted = request.createEndpoint(new EndpointSettings(2, 2), passive);
            accepted.accept(new ConnectParameters(ByteBuffer.wrap(new byte[] {8, 9}), 1, 1));
            assertArrayEquals(padded(196, 8, 9), active.established.get(10, TimeUnit.SECONDS), "active ESTABLISHED");
            assertArrayEquals(new byte[0], passive.established.get(10, TimeUnit.SECONDS), "passive ESTABLISHED");
            ep.close();
            accepted.close();

            PrivateData refused = new PrivateData();
            RdmaEndpoint second = f.client.createEndpoint(new EndpointSettings(2, 2), refused);
            PrivateData listen2 = new PrivateData();
            listener.close();
            listener = f.server.listen(f.serverAddress(4450), listen2);
            second.connect(f.serverAddress(4450), new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
            listen2.request.get(10, TimeUnit.SECONDS).reject(ByteBuffer.wrap(new byte[] {42}));
            assertArrayEquals(padded(148, 42), refused.disconnected.get(10, TimeUnit.SECONDS), "REJECTED");
            second.close();

            // a port without listener: the REJ of the IB CM (reason 8), 148 zeros; the provider reports UNREACHABLE
            assertArrayEquals(new byte[148], LoopbackBackend.field(VerbsConstants.CM_EVENT_REJECTED, null));
            listener.close();
        } finally {
            f.close();
        }
    }

    @Test
    void connectPrivateDataReachesTheDeviceWithTheRequestAlthoughDisniCannotSurfaceIt() throws Exception {
        VerbsTckFixture f = new VerbsTckFixture(false, false);
        try {
            privateDataAtTheDevice(f);
        } finally {
            f.close();
        }
    }

    private static void privateDataAtTheDevice(VerbsTckFixture f) throws Exception {
        Quiet quiet = new Quiet();
        RdmaListener listener = f.server.listen(f.serverAddress(4450), quiet);
        RdmaEndpoint ep = f.client.createEndpoint(new EndpointSettings(2, 2), quiet);
        ep.connect(f.serverAddress(4450), new ConnectParameters(ByteBuffer.wrap(new byte[] {5, 6, 7}), 1, 1));
        RdmaConnectRequest request = quiet.request.get(10, TimeUnit.SECONDS);
        assertEquals(0, request.privateData().remaining(), "DiSNI 2.0 surfaces no private data");
        List<VerbsBackend.CmId> pending = f.serverBackend.pendingRequests();
        assertEquals(1, pending.size());
        assertArrayEquals(new byte[] {5, 6, 7}, f.serverBackend.requestPrivateData(pending.get(0)));
        request.reject(null);
        ep.close();
        listener.close();
    }

    @Test
    void aCompletionQueuedAfterArmingRaisesOneEventAndNoneWithoutArming() throws Exception {
        LoopbackNetwork net = new LoopbackNetwork();
        LoopbackBackend dev = net.attach("10.9.1.1");
        VerbsBackend.CmId id = dev.createId();
        dev.bindAddr(id, new InetSocketAddress(dev.address(), 0));
        VerbsBackend.ProtectionDomain pd = dev.allocPd(dev.device(id));
        VerbsBackend.CompletionQueue cq = dev.createCq(dev.device(id), 16, 4, 0);
        VerbsBackend.QueuePair qp = dev.createQp(id, pd, cq, 4, 4);
        VerbsBackend.RegisteredMemory mr = dev.register(pd, ByteBuffer.allocateDirect(8), VerbsConstants.ACCESS_LOCAL_WRITE);
        dev.postRecv(qp, 1, mr.address(), 8, mr.localKey());
        // not armed: the flush of the receive raises no event
        dev.disconnect(id);
        assertFalse(dev.awaitCompletionEvent(cq, 1));
        dev.requestNotify(cq);
        dev.postRecv(qp, 2, mr.address(), 8, mr.localKey());
        assertTrue(dev.awaitCompletionEvent(cq, 1000), "the completion after arming raises an event");
        assertFalse(dev.awaitCompletionEvent(cq, 1), "one event per arming");
        CompletionBatch batch = new CompletionBatch(4);
        assertEquals(2, dev.poll(cq, batch));
        assertEquals(1, batch.wrId(0));
        assertEquals(VerbsConstants.WC_WR_FLUSH_ERR, batch.status(0));
        assertEquals(2, batch.wrId(1));
        assertThrows(IOException.class, () -> dev.bindAddr(dev.createId(), new InetSocketAddress("10.9.1.2", 0)),
                "an address of another device");
        assertFalse(net.leaks().isEmpty());
        assertThrows(AssertionError.class, net::assertNoLeaks);
    }

    /** Completions and the end of one endpoint, as futures. */
    static final class Outcomes extends Quiet {
        final CompletableFuture<Void> established = new CompletableFuture<>();
        final java.util.concurrent.BlockingQueue<smbdirect.api.rdma.CompletionStatus> completions =
                new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            established.complete(null);
        }

        @Override
        public void onCompletion(WorkCompletion completion) {
            completions.add(completion.status());
        }
    }

    /**
     * A region exposed through a type 2 memory window is reachable through the connection it was
     * registered on only, as RFC 5042 scopes registrations to their connection. With plain
     * registrations in the protection domain the provider shares among a device's endpoints, another
     * connection of the same peer could reach it by its token.
     */
    @Test
    void aWindowIsReachableOnlyThroughTheConnectionItWasRegisteredOn() throws Exception {
        VerbsTckFixture f = new VerbsTckFixture(false, false, LoopbackBackend.AS_RDMA_CORE,
                VerbsTckFixture.withMemoryWindows());
        try {
            java.util.concurrent.BlockingQueue<RdmaConnectRequest> requests = new java.util.concurrent.LinkedBlockingQueue<>();
            RdmaListener listener = f.server.listen(f.serverAddress(4450), new Quiet() {
                @Override
                public void onConnectRequest(RdmaConnectRequest r) {
                    requests.add(r);
                }
            });
            Outcomes[] clients = {new Outcomes(), new Outcomes()};
            Outcomes[] servers = {new Outcomes(), new Outcomes()};
            RdmaEndpoint[] active = new RdmaEndpoint[2];
            RdmaEndpoint[] passive = new RdmaEndpoint[2];
            for (int i = 0; i < 2; i++) {
                active[i] = f.client.createEndpoint(new EndpointSettings(4, 4), clients[i]);
                active[i].connect(f.serverAddress(4450), new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
                RdmaConnectRequest r = requests.poll(10, TimeUnit.SECONDS);
                passive[i] = r.createEndpoint(new EndpointSettings(4, 4), servers[i]);
                passive[i].accept(new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
                clients[i].established.get(10, TimeUnit.SECONDS);
                // memory a peer may reach is bound through a window only on an established endpoint: the
                // passive side's ESTABLISHED may come after the active side's
                servers[i].established.get(10, TimeUnit.SECONDS);
            }
            ByteBuffer bytes = ByteBuffer.allocateDirect(16);
            bytes.put(0, (byte) 77);
            smbdirect.api.rdma.MemoryRegion target = passive[0].register(bytes,
                    java.util.EnumSet.of(smbdirect.api.rdma.MemoryAccess.REMOTE_READ));
            for (int i = 0; i < 2; i++) {
                smbdirect.api.rdma.MemoryRegion sink = active[i].register(ByteBuffer.allocateDirect(4),
                        java.util.EnumSet.of(smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE));
                active[i].postRdmaRead(sink, 0, 4, target.address(), target.token(), i);
            }
            assertEquals(smbdirect.api.rdma.CompletionStatus.SUCCESS, clients[0].completions.poll(10, TimeUnit.SECONDS),
                    "through its own connection");
            assertEquals(smbdirect.api.rdma.CompletionStatus.REMOTE_ACCESS_ERROR,
                    clients[1].completions.poll(10, TimeUnit.SECONDS), "through another connection of the same peer");
            for (int i = 0; i < 2; i++) {
                active[i].close();
                passive[i].close();
            }
            listener.close();
        } finally {
            f.close();
        }
    }

    @Test
    void theLeakCheckNamesAnEndpointTheProviderWasNotAskedToRelease() throws Exception {
        VerbsTckFixture f = new VerbsTckFixture(false, false);
        try {
            RdmaEndpoint ep = f.client.createEndpoint(new EndpointSettings(2, 2), new Quiet());
            ep.register(ByteBuffer.allocateDirect(16), java.util.Set.of());
            List<String> leaks = f.network.leaks();
            assertTrue(leaks.stream().anyMatch(l -> l.contains("registration of 16 bytes")), leaks.toString());
            assertTrue(leaks.stream().anyMatch(l -> l.contains("queue pair")), leaks.toString());
        } finally {
            f.close();
        }
    }
}
