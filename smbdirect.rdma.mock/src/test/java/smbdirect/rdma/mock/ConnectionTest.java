package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.tck.TckRecorder;

/**
 * Mock-specific checks (deterministic stepping, fault controls, mock state). The provider-independent
 * behaviour is in the SPI contract suite ({@code smbdirect.rdma.tck.RdmaProviderContractTest}), run
 * on the mock in every delivery mode by {@code smbdirect.rdma.mock.tck}.
 */
class ConnectionTest {

    @Test
    void nothingHappensInDeterministicModeUntilStepped() throws Exception {
        Fixture f = Fixture.deterministic().listen();
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, f.client);
        ep.connect(f.serverAddress(), new ConnectParameters(null, 1, 1));
        assertTrue(f.requests.isEmpty());
        assertEquals(MockEndpoint.State.CONNECTING, ep.state());
        assertTrue(f.fabric.step());
        assertEquals(1, f.requests.size());
        assertTrue(f.client.events().isEmpty());
        f.fabric.runUntilIdle();
        assertEquals(List.of("established"), f.client.events());
        assertEquals(0, f.fabric.pendingActions());
        f.clientEp = ep;
        f.closeAll();
    }

    @Test
    void anAssertionErrorInAHandlerReachesTheThreadThatStepsAndIsListedAsALeak() throws Exception {
        Fixture f = Fixture.deterministic();
        AssertionError inHandler = new AssertionError("the test's own check failed");
        f.client.onEstablished = () -> {
            throw inHandler;
        };
        f.listen();
        f.clientEp = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, f.client);
        f.clientEp.connect(f.serverAddress(), new ConnectParameters(null, 8, 8));
        assertSame(inHandler, assertThrows(AssertionError.class, f.fabric::runUntilIdle),
                "not swallowed: the test fails with its own assertion");
        f.fabric.runUntilIdle(); // the rest is delivered
        assertTrue(f.fabric.leaks().stream().anyMatch(l -> l.startsWith("handler failure: ")
                && l.contains("onEstablished") && l.contains("the test's own check failed")), f.fabric.leaks().toString());
        f.clientEp.close();
        f.serverEp.close();
        f.listener.close();
        f.fabric.close();
    }

    @Test
    void invariantChecksRunAfterEveryStep() throws Exception {
        Fixture f = Fixture.deterministic();
        List<String> seen = new java.util.ArrayList<>();
        f.fabric.afterEachStep(() -> seen.add(f.client.events().size() + "/" + f.server.events().size()));
        f.connect();
        // request, passive established, active established
        assertEquals(List.of("0/0", "0/1", "1/1"), seen);
        f.fabric.afterEachStep(() -> {
            throw new AssertionError("invariant broken");
        });
        f.clientEp.disconnect();
        AssertionError e = assertThrows(AssertionError.class, f.fabric::runUntilIdle);
        assertEquals("invariant broken", e.getMessage());
        f.clientEp.close();
        f.serverEp.close();
        f.listener.close();
        f.fabric.assertNoLeaks();
        f.fabric.close();
    }

    @Test
    void irdAndOrdAreTheMinimumOfBothSidesBoundedByCapabilities() throws Exception {
        MockFabric fabric = MockFabric.builder().build();
        RdmaCapabilities small = new RdmaCapabilities(64, 64, 4, 0, 1 << 20, 4, 2, 1 << 20, true);
        Fixture f = new Fixture(fabric);
        f.serverDevice.setCapabilities(small);
        f.acceptParams = new ConnectParameters(null, 32, 32);
        f.connect(new ConnectParameters(null, 10, 3));
        // server: IRD min(32 -> cap 4, client ORD 3) = 3; ORD min(32 -> cap 2, client IRD 10) = 2
        assertEquals(3, f.serverEp.inboundReadDepth());
        assertEquals(2, f.serverEp.outboundReadDepth());
        assertEquals(2, f.clientEp.inboundReadDepth());
        assertEquals(3, f.clientEp.outboundReadDepth());
        assertEquals(10, f.requests.get(0).peerInboundReadDepth());
        assertEquals(3, f.requests.get(0).peerOutboundReadDepth());
        f.closeAll();
    }

    @Test
    void devicesOfDifferentTransportsCannotReachEachOther() throws Exception {
        MockFabric fabric = MockFabric.builder().build();
        MockProvider iwarp = fabric.provider("iw", TransportType.IWARP, MockFabric.DEFAULT_CAPABILITIES);
        Fixture f = new Fixture(fabric).listen();
        TckRecorder r = new TckRecorder();
        MockEndpoint ep = (MockEndpoint) iwarp.createEndpoint(new EndpointSettings(1, 1), r);
        ep.connect(f.serverAddress(), new ConnectParameters(null, 1, 1));
        fabric.runUntilIdle();
        assertEquals(DisconnectCause.UNREACHABLE, r.cause());
        assertTrue(r.detail().contains("INFINIBAND"), r.detail());
        ep.close();
        f.closeAll();
    }

    @Test
    void refusingDeviceRejectsBeforeTheListenerSeesTheRequest() throws Exception {
        Fixture f = Fixture.deterministic();
        f.serverDevice.refuseConnections(new byte[] {5});
        f.connect();
        assertEquals(DisconnectCause.REJECTED, f.client.cause());
        assertArrayEquals(new byte[] {5}, f.client.disconnectData());
        assertTrue(f.requests.isEmpty());
        f.serverDevice.acceptConnections();
        f.clientEp.close();
        TckRecorder second = new TckRecorder();
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, second);
        ep.connect(f.serverAddress(), new ConnectParameters(null, 1, 1));
        f.settle();
        assertEquals(List.of("established"), second.events());
        f.clientEp = ep;
        f.closeAll();
    }

    @Test
    void privateDataLimitsOfInfiniBandAreEnforced() throws Exception {
        Fixture f = Fixture.deterministic().listen();
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, f.client);
        RdmaException e = assertThrows(RdmaException.class,
                () -> ep.connect(f.serverAddress(), new ConnectParameters(ByteBuffer.allocate(57), 1, 1)));
        assertTrue(e.getMessage().contains("56"), e.getMessage());
        ep.connect(f.serverAddress(), new ConnectParameters(ByteBuffer.allocate(56), 1, 1));
        f.settle();
        assertEquals(MockEndpoint.State.CONNECTED, ep.state());
        f.clientEp = ep;
        f.closeAll();
    }

    @Test
    void listenerBindingRules() throws Exception {
        Fixture f = Fixture.deterministic().listen();
        assertThrows(RdmaException.class, () -> f.serverDevice.listen(f.serverAddress(), f));
        assertThrows(RdmaException.class,
                () -> f.serverDevice.listen(new InetSocketAddress(f.clientDevice.address(), 1), f));
        RdmaListener any = f.serverDevice.listen(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0), f);
        assertNotEquals(0, any.localAddress().getPort());
        assertTrue(any.localAddress().getAddress().isAnyLocalAddress());
        TckRecorder r = new TckRecorder();
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, r);
        ep.connect(new InetSocketAddress(f.serverDevice.address(), any.localAddress().getPort()),
                new ConnectParameters(null, 1, 1));
        f.settle();
        assertEquals(List.of("established"), r.events());
        any.close();
        any.close();
        ep.close();
        f.serverEp.close();
        f.serverEp = null;
        f.closeAll();
    }

    @Test
    void closedListenerReportsNoFurtherRequests() throws Exception {
        Fixture f = Fixture.deterministic().listen();
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, f.client);
        ep.connect(f.serverAddress(), new ConnectParameters(null, 1, 1));
        f.listener.close();
        f.settle();
        assertTrue(f.requests.isEmpty());
        assertEquals(DisconnectCause.CONNECT_ERROR, f.client.cause());
        f.clientEp = ep;
        f.closeAll();
    }

    @Test
    void acceptAfterTheActiveSideGaveUpThrows() throws Exception {
        Fixture f = Fixture.deterministic();
        f.autoAccept = false;
        f.connect();
        RdmaConnectRequest request = f.requests.get(0);
        MockEndpoint passive = (MockEndpoint) request.createEndpoint(new EndpointSettings(4, 4), f.server);
        f.clientEp.disconnect();
        f.settle();
        assertEquals(DisconnectCause.LOCAL, f.client.cause());
        assertThrows(RdmaException.class, () -> passive.accept(new ConnectParameters(null, 1, 1)));
        passive.close();
        assertNull(f.server.cause());
        f.closeAll();
    }

    @Test
    void queueDepthsBeyondTheDeviceLimitsAreRefused() {
        MockFabric fabric = MockFabric.builder()
                .capabilities(new RdmaCapabilities(8, 4, 1, 0, 4096, 1, 1, 4096, false)).build();
        MockProvider p = fabric.provider("p");
        RdmaException e = assertThrows(RdmaException.class, () -> p.createEndpoint(new EndpointSettings(9, 4), new TckRecorder()));
        assertTrue(e.getMessage().contains("maxSendWorkRequests"), e.getMessage());
        assertThrows(RdmaException.class, () -> p.createEndpoint(new EndpointSettings(8, 5), new TckRecorder()));
        fabric.assertNoLeaks();
        fabric.close();
    }

    @Test
    void fabricsAreIndependent() throws Exception {
        Fixture one = Fixture.deterministic().listen();
        MockFabric other = MockFabric.builder().name("other").build();
        MockProvider p = other.provider("client");
        TckRecorder r = new TckRecorder();
        MockEndpoint ep = (MockEndpoint) p.createEndpoint(new EndpointSettings(1, 1), r);
        ep.connect(one.serverAddress(), new ConnectParameters(null, 1, 1));
        other.runUntilIdle();
        one.settle();
        assertEquals(DisconnectCause.UNREACHABLE, r.cause());
        assertTrue(one.requests.isEmpty());
        ep.close();
        other.assertNoLeaks();
        other.close();
        one.closeAll();
    }
}
