package smbdirect.rdma.mock;

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
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.tck.TckRecorder;

/**
 * Mock-specific checks (deterministic stepping, fault controls, mock state). The provider-independent
 * behaviour is in the SPI contract suite ({@code smbdirect.rdma.tck.RdmaProviderContractTest}), run
 * on the mock in every delivery mode by {@code smbdirect.rdma.mock.tck}.
 */
class TeardownTest {

    private static long flushed(TckRecorder r) {
        return r.completions().stream().filter(c -> c.status() == CompletionStatus.FLUSHED).count();
    }

    @Test
    void disconnectFlushesEveryOutstandingRequestOnceThenReportsLocalAndPeer() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[8]);
        f.clientEp.postSend(src, 0, 8, 1);
        f.clientEp.postSend(src, 0, 8, 2);
        f.clientEp.disconnect();
        f.clientEp.disconnect();
        f.settle();
        // two queued Sends and four posted receives flushed on the client, four receives on the server
        assertEquals(6, flushed(f.client));
        assertEquals(4, flushed(f.server));
        assertEquals(6, f.client.completions().size(), "each exactly once");
        assertEquals(DisconnectCause.LOCAL, f.client.cause());
        assertEquals(DisconnectCause.PEER, f.server.cause());
        assertEquals("disconnected:LOCAL", f.client.lastEvent());
        assertEquals("disconnected:PEER", f.server.lastEvent());
        assertEquals(0, f.clientEp.outstandingWorkRequests());
        assertEquals(MockEndpoint.State.DISCONNECTED, f.serverEp.state());
        f.closeAll();
    }

    @Test
    void noCallbackArrivesAfterOnDisconnected() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.clientEp.disconnect();
        f.settle();
        f.clientEp.disconnect();
        f.serverEp.disconnect();
        f.clientDevice.removeDevice();
        f.serverEp.breakConnection("late");
        f.settle();
        assertEquals(0, f.client.callbacksAfterDisconnect());
        assertEquals(0, f.server.callbacksAfterDisconnect());
        assertEquals(1, f.client.events().stream().filter(e -> e.startsWith("disconnected")).count());
        f.closeAll();
    }

    @Test
    void deviceRemovalDisconnectsItsEndpointsAndFailsItsListeners() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.serverDevice.removeDevice();
        f.settle();
        assertEquals(DisconnectCause.DEVICE_REMOVED, f.server.cause());
        assertEquals(4, flushed(f.server));
        assertEquals(List.of("request", "failed:DEVICE_REMOVED"), f.listenerEvents());
        assertTrue(f.serverDevice.isDeviceRemoved());
        assertThrows(RdmaException.class, () -> f.serverDevice.createEndpoint(f.serverConfig, new TckRecorder()));
        assertThrows(RdmaException.class, () -> f.serverDevice.listen(f.serverAddress(), f));
        // the client got no message: it is idle and still believes it is connected
        assertNull(f.client.cause());
        assertEquals(MockEndpoint.State.CONNECTED, f.clientEp.state());
        // its next Send finds nobody
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        f.clientEp.postSend(src, 0, 4, 1);
        f.settle();
        assertEquals(CompletionStatus.TRANSPORT_RETRY_EXCEEDED, f.client.completions(WorkRequestType.SEND).get(0).status());
        assertEquals(DisconnectCause.PEER_LOST, f.client.cause());
        f.serverDevice.restoreDevice();
        f.closeAll();
    }

    @Test
    void crashedPeerIsNoticedOnlyOnTheNextSendOrRdma() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.serverEp.crash();
        f.settle();
        assertTrue(f.server.events().equals(List.of("established")), "a crashed endpoint gets no callback");
        assertNull(f.client.cause(), "an idle survivor notices nothing");
        MemoryRegion r = f.clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.clientEp.postReceive(r, 0, 8, 50);
        f.settle();
        assertNull(f.client.cause(), "posting a receive sends nothing");
        f.clientEp.postRdmaRead(r, 0, 8, 1L << 40, 1234, 51);
        f.settle();
        assertEquals(CompletionStatus.TRANSPORT_RETRY_EXCEEDED,
                f.client.completions(WorkRequestType.RDMA_READ).get(0).status());
        assertEquals(DisconnectCause.PEER_LOST, f.client.cause());
        assertEquals(5, flushed(f.client));
        f.closeAll();
    }

    @Test
    void fabricCloseShutsEveryProviderDown() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.fabric.close();
        f.fabric.runUntilIdle();
        assertEquals(DisconnectCause.PROVIDER_SHUTDOWN, f.client.cause());
        assertEquals(DisconnectCause.PROVIDER_SHUTDOWN, f.server.cause());
        assertEquals(List.of("request", "failed:PROVIDER_SHUTDOWN"), f.listenerEvents());
        assertThrows(RdmaException.class, () -> f.clientDevice.createEndpoint(f.clientConfig, new TckRecorder()));
        f.clientEp.close();
        f.serverEp.close();
        f.listener.close();
        f.fabric.assertNoLeaks();
    }

    @Test
    void leaksNameWhatWasLeftBehind() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        List<String> leaks = f.fabric.leaks();
        assertEquals(3, leaks.size(), leaks.toString());
        assertTrue(leaks.stream().anyMatch(l -> l.startsWith("listener not closed")));
        assertTrue(leaks.stream().anyMatch(l -> l.contains("postedReceives=4")));
        AssertionError e = assertThrows(AssertionError.class, f.fabric::assertNoLeaks);
        assertTrue(e.getMessage().contains("3 leaked"), e.getMessage());
        MockFabricStats stats = f.fabric.stats();
        assertEquals(2, stats.endpoints());
        assertEquals(2, stats.connectedEndpoints());
        assertEquals(8, stats.postedReceives());
        assertEquals(8, stats.outstandingWorkRequests());
        assertEquals(8, stats.registeredRegions());
        assertEquals(1, stats.listeners());
        assertEquals(0, stats.pendingConnectRequests());
        f.closeAll();
        assertEquals(new MockFabricStats(2, 0, 0, 0, 0, 0, 0, 0), f.fabric.stats());
    }

    @Test
    void unansweredConnectionRequestIsALeak() throws Exception {
        Fixture f = Fixture.deterministic();
        f.autoAccept = false;
        f.connect();
        assertEquals(1, f.fabric.stats().pendingConnectRequests());
        assertTrue(f.fabric.leaks().stream().anyMatch(l -> l.startsWith("connection request")));
        f.requests.get(0).reject(null);
        f.settle();
        assertEquals(0, f.fabric.stats().pendingConnectRequests());
        f.closeAll();
    }

    @Test
    void handlerExceptionsAreReportedAsLeaksAndDoNotStopTheFabric() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        f.server.onCompletion = wc -> {
            throw new IllegalStateException("boom");
        };
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        f.clientEp.postSend(src, 0, 4, 1);
        f.clientEp.postSend(src, 0, 4, 2);
        f.settle();
        assertEquals(2, f.server.completions(WorkRequestType.RECEIVE).size());
        f.clientEp.close();
        f.serverEp.close();
        f.listener.close();
        List<String> leaks = f.fabric.leaks();
        assertEquals(2, leaks.size(), leaks.toString());
        assertTrue(leaks.get(0).contains("boom"));
        f.fabric.close();
    }
}
