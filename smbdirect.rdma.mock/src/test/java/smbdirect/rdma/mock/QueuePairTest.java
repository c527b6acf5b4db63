package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.tck.TckRecorder;

/**
 * Mock-specific checks (deterministic stepping, fault controls, mock state). The provider-independent
 * behaviour is in the SPI contract suite ({@code smbdirect.rdma.tck.RdmaProviderContractTest}), run
 * on the mock in every delivery mode by {@code smbdirect.rdma.mock.tck}.
 */
class QueuePairTest {

    @Test
    void queueDepthsAreEnforcedUntilCompletionsAreDelivered() throws Exception {
        Fixture f = Fixture.deterministic();
        f.clientConfig = new EndpointSettings(2, 4);
        f.serverReceives = 8;
        f.serverConfig = new EndpointSettings(4, 8);
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
        f.clientConfig = new EndpointSettings(1, 4);
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
        assertEquals(List.of(1000L), f.server.completions().stream().map(TckRecorder.Completion::wrId).toList());
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
                f.server.completions().stream().map(TckRecorder.Completion::wrId).toList());
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
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause());
        f.closeAll();
    }
}
