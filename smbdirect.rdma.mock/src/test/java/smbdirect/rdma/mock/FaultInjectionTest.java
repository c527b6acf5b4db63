package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.tck.TckRecorder;

class FaultInjectionTest {

    private static final byte[] MESSAGE = {1, 2, 3, 4, 5, 6};

    @Test
    void breakAfterTheKthSend() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.clientEp.breakAfterSends(2);
        MemoryRegion src = Fixture.region(f.clientEp, MESSAGE);
        f.clientEp.postSend(src, 0, 6, 1);
        f.clientEp.postSend(src, 0, 6, 2);
        f.clientEp.postSend(src, 0, 6, 3);
        f.settle();
        assertEquals(List.of(CompletionStatus.SUCCESS, CompletionStatus.SUCCESS, CompletionStatus.FLUSHED),
                f.client.completions(WorkRequestType.SEND).stream().map(TckRecorder.Completion::status).toList());
        assertEquals(2, f.server.completions(WorkRequestType.RECEIVE).stream()
                .filter(c -> c.status() == CompletionStatus.SUCCESS).count());
        assertEquals(DisconnectCause.QP_ERROR, f.client.cause());
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause());
        assertTrue(f.client.detail().contains("injected"), f.client.detail());
        f.closeAll();
    }

    @Test
    void failTheNextPostOfAType() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.clientEp.failNextPost(WorkRequestType.RDMA_WRITE, CompletionStatus.GENERAL_ERROR);
        MemoryRegion src = Fixture.region(f.clientEp, MESSAGE);
        f.clientEp.postSend(src, 0, 6, 1);
        f.clientEp.postRdmaWrite(src, 0, 6, 0, 0, 2);
        f.settle();
        assertEquals(CompletionStatus.SUCCESS, f.client.completions(WorkRequestType.SEND).get(0).status());
        assertEquals(CompletionStatus.GENERAL_ERROR, f.client.completions(WorkRequestType.RDMA_WRITE).get(0).status());
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause());
        assertThrows(IllegalArgumentException.class,
                () -> f.clientEp.failNextPost(WorkRequestType.SEND, CompletionStatus.SUCCESS));
        f.closeAll();
    }

    @Test
    void corruptOnlyTheChosenSend() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.clientEp.corruptSend(2, b -> {
            b[0] = (byte) 0xFF;
            return b;
        });
        MemoryRegion src = Fixture.region(f.clientEp, MESSAGE);
        f.clientEp.postSend(src, 0, 6, 1);
        f.clientEp.postSend(src, 0, 6, 2);
        f.settle();
        assertEquals(2, f.server.completions(WorkRequestType.RECEIVE).size());
        assertArrayEquals(MESSAGE, Fixture.bytes(f.serverReceiveRegions.get(0), 0, 6));
        assertArrayEquals(new byte[] {(byte) 0xFF, 2, 3, 4, 5, 6}, Fixture.bytes(f.serverReceiveRegions.get(1), 0, 6));
        assertArrayEquals(MESSAGE, Fixture.bytes(src, 0, 6), "the sender's buffer is untouched");
        assertEquals(MockEndpoint.State.CONNECTED, f.clientEp.state());
        assertEquals(2, f.clientEp.sendsTransmitted());
        f.closeAll();
    }

    @Test
    void corruptedAndTruncatedBytesReachTheRawPeer() throws Exception {
        MockFabric fabric = MockFabric.builder().build();
        RawPeer peer = fabric.rawPeer();
        var bound = peer.listen(new java.net.InetSocketAddress(peer.provider().address(), 445));
        RawPeer client = fabric.rawPeer();
        client.connect(bound, new byte[0]);
        client.awaitEstablished(java.time.Duration.ofSeconds(1));
        client.endpoint().corruptSend(1, b -> {
            b[1] ^= 0x10;
            return b;
        });
        client.endpoint().truncateSend(2, 2);
        client.send(MESSAGE);
        client.send(MESSAGE);
        client.send(MESSAGE);
        List<RawMessage> got = peer.awaitMessages(3, java.time.Duration.ofSeconds(1));
        assertArrayEquals(new byte[] {1, 0x12, 3, 4, 5, 6}, got.get(0).bytes());
        assertArrayEquals(new byte[] {1, 2}, got.get(1).bytes());
        assertArrayEquals(MESSAGE, got.get(2).bytes());
        client.close();
        peer.close();
        fabric.runUntilIdle();
        fabric.assertNoLeaks();
        fabric.close();
    }

    @Test
    void corruptionThatGrowsAMessageBeyondTheReceiveIsALengthError() throws Exception {
        Fixture f = Fixture.deterministic();
        f.receiveSize = 8;
        f.connect();
        f.clientEp.corruptSend(1, b -> new byte[9]);
        MemoryRegion src = Fixture.region(f.clientEp, MESSAGE);
        f.clientEp.postSend(src, 0, 6, 1);
        f.settle();
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, f.server.completions(WorkRequestType.RECEIVE).get(0).status());
        assertEquals(CompletionStatus.REMOTE_INVALID_REQUEST, f.client.completions(WorkRequestType.SEND).get(0).status());
        f.closeAll();
    }

    @Test
    void droppedSendLosesThePathSenderPeerLostReceiverHalfOpen() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.clientEp.dropSend(1);
        MemoryRegion src = Fixture.region(f.clientEp, MESSAGE);
        f.clientEp.postSend(src, 0, 6, 1);
        f.settle();
        assertEquals(CompletionStatus.TRANSPORT_RETRY_EXCEEDED, f.client.completions(WorkRequestType.SEND).get(0).status());
        assertEquals(DisconnectCause.PEER_LOST, f.client.cause());
        assertEquals(0, f.server.completions().size(), "the receiver never saw the message");
        assertNull(f.server.cause());
        MemoryRegion back = Fixture.region(f.serverEp, MESSAGE);
        f.serverEp.postSend(back, 0, 6, 9);
        f.settle();
        assertEquals(CompletionStatus.TRANSPORT_RETRY_EXCEEDED, f.server.completions(WorkRequestType.SEND).get(0).status());
        assertEquals(DisconnectCause.PEER_LOST, f.server.cause());
        f.closeAll();
    }

    @Test
    void shrunkCapabilitiesApplyToNewEndpoints() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        RdmaCapabilities shrunk = new RdmaCapabilities(4, 4, 1, 0, 1024, 1, 1, 4096, false);
        f.clientDevice.setCapabilities(shrunk);
        assertEquals(shrunk, f.clientDevice.capabilities());
        assertEquals(MockFabric.DEFAULT_CAPABILITIES, f.clientEp.capabilities());
        MockEndpoint fresh = (MockEndpoint) f.clientDevice.createEndpoint(new smbdirect.api.rdma.EndpointSettings(4, 4),
                new TckRecorder());
        assertEquals(shrunk, fresh.capabilities());
        assertThrows(IllegalArgumentException.class,
                () -> f.clientDevice.setCapabilities(new RdmaCapabilities(0, 4, 1, 0, 1024, 1, 1, 4096, false)));
        fresh.close();
        f.closeAll();
    }

    @Test
    void endpointObserverArmsFaultsBeforeTheFirstWorkRequest() throws Exception {
        Fixture f = Fixture.deterministic();
        List<MockEndpoint> seen = new ArrayList<>();
        f.fabric.onEndpointCreated(ep -> {
            seen.add(ep);
            if (ep.provider() == f.serverDevice) {
                ep.dropSend(1);
            }
        });
        f.connect();
        assertEquals(List.of(f.clientEp, f.serverEp), seen);
        MemoryRegion src = Fixture.region(f.serverEp, MESSAGE);
        f.serverEp.postSend(src, 0, 6, 1);
        f.settle();
        assertEquals(DisconnectCause.PEER_LOST, f.server.cause());
        f.closeAll();
    }
}
