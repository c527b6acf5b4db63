package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointConfig;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;

class QueuePairTest {

    @Test
    void eachSendConsumesExactlyOneReceiveInFifoOrderKeepingBoundaries() throws Exception {
        Fixture f = Fixture.deterministic();
        f.serverReceives = 0;
        f.connect();
        MemoryRegion r1 = f.serverEp.register(ByteBuffer.allocateDirect(100), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        MemoryRegion r2 = f.serverEp.register(ByteBuffer.allocateDirect(100), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.serverEp.postReceive(r1, 10, 50, 1);
        f.serverEp.postReceive(r2, 0, 100, 2);
        MemoryRegion src = Fixture.region(f.clientEp, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        f.clientEp.postSend(src, 0, 3, 11);
        f.clientEp.postSend(src, 3, 5, 12);
        f.settle();
        List<Recorder.Completion> receives = f.server.completions(WorkRequestType.RECEIVE);
        assertEquals(2, receives.size());
        assertEquals(1, receives.get(0).wrId());
        assertEquals(3, receives.get(0).byteLength());
        assertEquals(2, receives.get(1).wrId());
        assertEquals(5, receives.get(1).byteLength());
        assertArrayEquals(new byte[] {1, 2, 3}, Fixture.bytes(r1, 10, 3));
        assertArrayEquals(new byte[] {4, 5, 6, 7, 8}, Fixture.bytes(r2, 0, 5));
        List<Recorder.Completion> sends = f.client.completions(WorkRequestType.SEND);
        assertEquals(List.of(11L, 12L), sends.stream().map(Recorder.Completion::wrId).toList());
        assertTrue(sends.stream().allMatch(c -> c.status() == CompletionStatus.SUCCESS));
        assertEquals(0, f.serverEp.postedReceives());
        f.closeAll();
    }

    @Test
    void sendWithoutPostedReceiveIsReceiverNotReadyAndBreaksBothSides() throws Exception {
        Fixture f = Fixture.deterministic();
        f.serverReceives = 0;
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[16]);
        f.clientEp.postSend(src, 0, 16, 1);
        f.clientEp.postSend(src, 0, 16, 2);
        f.settle();
        List<Recorder.Completion> sends = f.client.completions(WorkRequestType.SEND);
        assertEquals(CompletionStatus.RECEIVER_NOT_READY, sends.get(0).status());
        assertEquals(CompletionStatus.FLUSHED, sends.get(1).status());
        // the client's four receives are flushed too
        assertEquals(4, f.client.completions(WorkRequestType.RECEIVE).stream()
                .filter(c -> c.status() == CompletionStatus.FLUSHED).count());
        assertEquals(DisconnectCause.QP_ERROR, f.client.cause);
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause);
        assertTrue(f.client.detail.contains("receiver not ready"), f.client.detail);
        assertEquals("disconnected:QP_ERROR", f.client.lastEvent());
        assertEquals("disconnected:QP_ERROR", f.server.lastEvent());
        assertThrows(RdmaException.class, () -> f.clientEp.postSend(src, 0, 1, 3));
        assertThrows(RdmaException.class, () -> f.serverEp.postReceive(src, 0, 1, 3));
        f.closeAll();
    }

    @Test
    void messageLongerThanTheReceiveIsALengthErrorAtTheReceiverAndRemoteInvalidRequestAtTheSender() throws Exception {
        Fixture f = Fixture.deterministic();
        f.serverReceives = 0;
        f.connect();
        MemoryRegion small = f.serverEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.serverEp.postReceive(small, 0, 8, 77);
        MemoryRegion src = Fixture.region(f.clientEp, new byte[9]);
        f.clientEp.postSend(src, 0, 9, 1);
        f.settle();
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, f.server.completions(WorkRequestType.RECEIVE).get(0).status());
        assertEquals(CompletionStatus.REMOTE_INVALID_REQUEST, f.client.completions(WorkRequestType.SEND).get(0).status());
        assertEquals(DisconnectCause.QP_ERROR, f.client.cause);
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause);
        f.closeAll();
    }

    @Test
    void queueDepthsAreEnforcedUntilCompletionsAreDelivered() throws Exception {
        Fixture f = Fixture.deterministic();
        f.clientConfig = new EndpointConfig(2, 4);
        f.serverReceives = 8;
        f.serverConfig = new EndpointConfig(4, 8);
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        f.clientEp.postSend(src, 0, 4, 1);
        f.clientEp.postSend(src, 0, 4, 2);
        RdmaException full = assertThrows(RdmaException.class, () -> f.clientEp.postSend(src, 0, 4, 3));
        assertTrue(full.getMessage().contains("depth 2"), full.getMessage());
        f.settle();
        f.clientEp.postSend(src, 0, 4, 3);
        RdmaException recvFull = assertThrows(RdmaException.class, () -> f.postReceives(f.clientEp, 1));
        assertTrue(recvFull.getMessage().contains("receive queue"), recvFull.getMessage());
        f.settle();
        assertEquals(3, f.client.completions(WorkRequestType.SEND).size());
        f.closeAll();
    }

    @Test
    void heldCompletionsKeepTheirQueueSlots() throws Exception {
        Fixture f = Fixture.deterministic();
        f.clientConfig = new EndpointConfig(1, 4);
        f.connect();
        f.clientEp.holdCompletions();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        f.clientEp.postSend(src, 0, 4, 1);
        f.settle();
        assertEquals(1, f.server.completions(WorkRequestType.RECEIVE).size(), "the Send executed");
        assertTrue(f.client.completions().isEmpty(), "its completion is held");
        assertThrows(RdmaException.class, () -> f.clientEp.postSend(src, 0, 4, 2));
        f.clientEp.releaseCompletions();
        f.settle();
        assertEquals(1, f.client.completions(WorkRequestType.SEND).size());
        f.clientEp.postSend(src, 0, 4, 2);
        f.settle();
        f.closeAll();
    }

    @Test
    void heldCompletionsCanBeLetThroughOneAtATime() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.serverEp.holdCompletions();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        for (int i = 0; i < 3; i++) {
            f.clientEp.postSend(src, 0, 4, i);
        }
        f.settle();
        assertEquals(0, f.server.completions().size());
        f.serverEp.releaseCompletions(1);
        f.settle();
        assertEquals(List.of(1000L), f.server.completions().stream().map(Recorder.Completion::wrId).toList());
        f.serverEp.releaseCompletions(1);
        f.settle();
        assertEquals(2, f.server.completions().size());
        f.clientEp.postSend(src, 0, 4, 3);
        f.settle();
        assertEquals(2, f.server.completions().size(), "still holding");
        assertEquals(2, f.serverEp.pendingCallbacks());
        f.serverEp.releaseCompletions();
        f.settle();
        assertEquals(List.of(1000L, 1001L, 1002L, 1003L),
                f.server.completions().stream().map(Recorder.Completion::wrId).toList());
        f.closeAll();
    }

    @Test
    void postingBeforeConnectIsOnlyAllowedForReceives() throws Exception {
        Fixture f = Fixture.deterministic();
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, f.client);
        MemoryRegion r = Fixture.region(ep, new byte[8], MemoryAccess.LOCAL_WRITE);
        ep.postReceive(r, 0, 8, 1);
        assertEquals(1, ep.postedReceives());
        assertThrows(RdmaException.class, () -> ep.postSend(r, 0, 8, 2));
        assertThrows(RdmaException.class, () -> ep.postRdmaRead(r, 0, 8, 0, 1, 3));
        assertThrows(RdmaException.class, () -> ep.postLocalInvalidate(r, 4));
        ep.disconnect();
        assertNull(f.client.cause, "disconnect of a never connected endpoint is harmless");
        assertEquals(MockEndpoint.State.IDLE, ep.state());
        f.clientEp = ep;
        f.closeAll();
    }

    @Test
    void everyWorkRequestCompletesExactlyOnceInPostOrderPerQueue() throws Exception {
        Fixture f = Fixture.deterministic();
        f.serverReceives = 3;
        f.serverConfig = new EndpointConfig(16, 16);
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[64]);
        for (int i = 0; i < 5; i++) {
            f.clientEp.postSend(src, 0, 8, i);
        }
        f.settle();
        List<Recorder.Completion> sends = f.client.completions(WorkRequestType.SEND);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), sends.stream().map(Recorder.Completion::wrId).toList());
        assertEquals(List.of(CompletionStatus.SUCCESS, CompletionStatus.SUCCESS, CompletionStatus.SUCCESS,
                CompletionStatus.RECEIVER_NOT_READY, CompletionStatus.FLUSHED),
                sends.stream().map(Recorder.Completion::status).toList());
        assertEquals(0, f.clientEp.outstandingWorkRequests());
        assertEquals(0, f.serverEp.outstandingWorkRequests());
        f.closeAll();
    }

    @Test
    void sendLargerThanMaxMessageSizeFailsLocally() throws Exception {
        MockFabric fabric = MockFabric.builder()
                .capabilities(new smbdirect.api.rdma.RdmaCapabilities(16, 16, 1, 0, 16, 1, 1, 1 << 20, true)).build();
        Fixture f = new Fixture(fabric);
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[17]);
        f.clientEp.postSend(src, 0, 17, 1);
        f.settle();
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, f.client.completions(WorkRequestType.SEND).get(0).status());
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause);
        f.closeAll();
    }

    @Test
    void zeroLengthSendIsDelivered() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[1]);
        f.clientEp.postSend(src, 0, 0, 1);
        f.settle();
        Recorder.Completion rc = f.server.completions(WorkRequestType.RECEIVE).get(0);
        assertEquals(CompletionStatus.SUCCESS, rc.status());
        assertEquals(0, rc.byteLength());
        f.closeAll();
    }
}
