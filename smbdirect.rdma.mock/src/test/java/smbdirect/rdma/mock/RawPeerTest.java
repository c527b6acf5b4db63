package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.WorkRequestType;

class RawPeerTest {

    private static final Duration T = Duration.ofSeconds(5);

    @Test
    void rawPeerAcceptsAndRecordsEveryMessageInOrder() throws Exception {
        Fixture f = Fixture.deterministic();
        RawPeer peer = f.fabric.rawPeer(f.serverDevice).acceptPrivateData(new byte[] {9});
        InetSocketAddress bound = peer.listen(new InetSocketAddress(f.serverDevice.address(), 5445));
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, f.client);
        ep.connect(bound, new ConnectParameters(ByteBuffer.wrap(new byte[] {1, 2}), 4, 4));
        f.settle();
        assertArrayEquals(new byte[] {1, 2}, peer.requestPrivateData());
        assertArrayEquals(new byte[] {9}, f.client.establishedData());
        assertTrue(peer.isConnected());
        MemoryRegion src = Fixture.region(ep, new byte[] {5, 6, 7});
        ep.postSend(src, 0, 3, 1);
        ep.postSend(src, 1, 2, 2);
        List<RawMessage> got = peer.awaitMessages(2, T);
        assertArrayEquals(new byte[] {5, 6, 7}, got.get(0).bytes());
        assertArrayEquals(new byte[] {6, 7}, got.get(1).bytes());
        assertTrue(got.get(0).sequence() < got.get(1).sequence());
        assertTrue(got.get(0).nanoTime() <= got.get(1).nanoTime());
        assertEquals(2, peer.received().size());
        assertThrows(AssertionError.class, () -> peer.awaitMessages(3, Duration.ofMillis(1)));
        ep.close();
        peer.close();
        f.fabric.runUntilIdle();
        f.fabric.assertNoLeaks();
    }

    @Test
    void rawPeerConnectsSendsArbitraryBytesAndSeesTheResult() throws Exception {
        Fixture f = Fixture.deterministic();
        f.receiveSize = 16;
        f.listen();
        RawPeer peer = f.fabric.rawPeer();
        peer.connect(f.serverAddress(), new byte[] {3});
        peer.awaitEstablished(T);
        assertArrayEquals(new byte[] {3}, EndpointPrivateData.of(f.requests.get(0)));
        peer.send(new byte[16]);
        f.settle();
        assertEquals(CompletionStatus.SUCCESS, f.server.completions(WorkRequestType.RECEIVE).get(0).status());
        // a 17-byte message against 16-byte receives: the engine side would see a length error
        peer.send(new byte[17]);
        assertEquals(DisconnectCause.QP_ERROR, peer.awaitDisconnected(T));
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, f.server.completions(WorkRequestType.RECEIVE).get(1).status());
        assertTrue(peer.completions().stream().anyMatch(c -> c.status() == CompletionStatus.REMOTE_INVALID_REQUEST));
        peer.close();
        f.closeAll();
    }

    @Test
    void rawPeerRdmaReadsAndWritesTheOtherSidesMemory() throws Exception {
        MockFabric fabric = MockFabric.builder().mode(DeliveryMode.INLINE).build();
        RawPeer server = fabric.rawPeer();
        InetSocketAddress bound = server.listen(new InetSocketAddress(server.provider().address(), 0));
        RawPeer client = fabric.rawPeer();
        client.connect(bound, null);
        client.awaitEstablished(T);
        server.awaitEstablished(T);
        MemoryRegion exposed = client.register(16,
                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE));
        server.rdmaWrite(new byte[] {1, 2, 3}, exposed.address() + 4, exposed.token());
        assertArrayEquals(new byte[] {0, 0, 0, 0, 1, 2, 3, 0}, Fixture.bytes(exposed, 0, 8));
        MemoryRegion sink = server.register(8, EnumSet.of(MemoryAccess.LOCAL_WRITE));
        server.rdmaRead(sink, 0, 3, exposed.address() + 4, exposed.token());
        assertArrayEquals(new byte[] {1, 2, 3}, Fixture.bytes(sink, 0, 3));
        assertEquals(List.of(WorkRequestType.RDMA_WRITE, WorkRequestType.RDMA_READ),
                server.completions().stream().map(RawCompletion::type).toList());
        // Send with Invalidate of the exposed region
        server.sendWithInvalidate(new byte[] {42}, exposed.token());
        RawMessage m = client.awaitMessages(1, T).get(0);
        assertTrue(m.invalidatedToken());
        assertEquals(exposed.token(), m.token());
        client.deregister(exposed);
        client.disconnect();
        assertEquals(DisconnectCause.LOCAL, client.awaitDisconnected(T));
        assertEquals(DisconnectCause.PEER, server.awaitDisconnected(T));
        client.close();
        server.close();
        fabric.assertNoLeaks();
        fabric.close();
    }

    @Test
    void rawPeerCanRejectAndCrash() throws Exception {
        MockFabric fabric = MockFabric.builder().mode(DeliveryMode.INLINE).build();
        RawPeer refusing = fabric.rawPeer().rejectWith(new byte[] {4, 4});
        InetSocketAddress bound = refusing.listen(new InetSocketAddress(refusing.provider().address(), 445));
        RawPeer client = fabric.rawPeer();
        client.connect(bound, null);
        assertEquals(DisconnectCause.REJECTED, client.awaitDisconnected(T));
        assertArrayEquals(new byte[] {4, 4}, client.disconnectPrivateData());
        assertThrows(AssertionError.class, () -> client.awaitEstablished(Duration.ofMillis(1)));
        client.close();
        refusing.close();

        RawPeer server = fabric.rawPeer();
        InetSocketAddress b2 = server.listen(new InetSocketAddress(server.provider().address(), 445));
        RawPeer c2 = fabric.rawPeer();
        c2.connect(b2, null);
        c2.awaitEstablished(T);
        server.crash();
        assertNull(c2.disconnectCause());
        c2.send(new byte[] {1});
        assertEquals(DisconnectCause.PEER_LOST, c2.awaitDisconnected(T));
        c2.close();
        server.close();
        fabric.assertNoLeaks();
        fabric.close();
    }

    @Test
    void rawPeerWithoutAutoRepostRunsOutOfReceives() throws Exception {
        MockFabric fabric = MockFabric.builder().build();
        RawPeer server = fabric.rawPeer().initialReceives(1).autoRepost(false);
        InetSocketAddress bound = server.listen(new InetSocketAddress(server.provider().address(), 445));
        RawPeer client = fabric.rawPeer();
        client.connect(bound, null);
        client.awaitEstablished(T);
        client.send(new byte[] {1});
        client.send(new byte[] {2});
        assertEquals(DisconnectCause.QP_ERROR, client.awaitDisconnected(T));
        assertEquals(1, server.received().size());
        assertEquals(CompletionStatus.RECEIVER_NOT_READY, client.completions().stream()
                .filter(c -> c.type() == WorkRequestType.SEND).toList().get(1).status());
        client.close();
        server.close();
        fabric.runUntilIdle();
        fabric.assertNoLeaks();
        fabric.close();
    }

    @Test
    void rawPeerAwaitsMessagesInThreadedMode() throws Exception {
        MockFabric fabric = MockFabric.builder().mode(DeliveryMode.THREADED).build();
        RawPeer server = fabric.rawPeer();
        InetSocketAddress bound = server.listen(new InetSocketAddress(server.provider().address(), 445));
        RawPeer client = fabric.rawPeer();
        client.connect(bound, null);
        client.awaitEstablished(T);
        for (int i = 0; i < 10; i++) {
            client.send(new byte[] {(byte) i});
        }
        List<RawMessage> got = server.awaitMessages(10, T);
        for (int i = 0; i < 10; i++) {
            assertArrayEquals(new byte[] {(byte) i}, got.get(i).bytes());
        }
        client.disconnect();
        server.awaitDisconnected(T);
        client.awaitDisconnected(T);
        client.close();
        server.close();
        fabric.assertNoLeaks();
        fabric.close();
    }

    /** Reads a request's private data. */
    static final class EndpointPrivateData {
        static byte[] of(smbdirect.api.rdma.RdmaConnectRequest r) {
            ByteBuffer b = r.privateData();
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        }
    }
}
