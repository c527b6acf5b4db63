package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;

/**
 * Address resolution, route resolution and the connect itself are each bounded by the provider's
 * settings ({@code resolveTimeoutMillis}, {@code connectTimeoutMillis}), in the provider's clock
 * (virtual here), and a connect that runs out of time ends with a reason naming the phase.
 */
class ConnectTimeoutTest {

    private static final int RESOLVE = 700;
    private static final int CONNECT = 3_000;
    private final Harness h = new Harness(VerbsSettings.defaults().withTimeouts(RESOLVE, CONNECT));
    private final RecordingHandler handler = new RecordingHandler();

    private VerbsEndpoint connecting() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ep.connect(Harness.PEER, new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
        h.pump();
        return ep;
    }

    /** Lets {@code millis} pass: nothing ends a millisecond before, and the phase's time runs out at it. */
    private void runOutOf(long millis) {
        h.advanceMillis(millis - 1);
        h.pump();
        assertEquals(0, handler.disconnects);
        h.advanceMillis(1);
        h.pump();
    }

    @Test
    void anUnansweredAddressResolutionEndsAsUnreachableNamingTheAddressPhase() throws Exception {
        VerbsEndpoint ep = connecting();
        runOutOf(VerbsEndpoint.RESOLVE_BACKSTOP_FACTOR * RESOLVE); // the kernel's own answer never came
        assertEquals(DisconnectCause.UNREACHABLE, handler.cause);
        assertEquals("connect to 192.0.2.20:445: address resolution (rdma_resolve_addr) got no answer within 1400 ms "
                + "(twice resolveTimeoutMillis, the kernel's own time for it)", handler.detail);
        assertEquals(0, ((FakeBackend.FakeCmId) ep.cmId()).disconnects, "nothing to disconnect before rdma_connect");
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId()); // late: ignored
        h.pump();
        assertEquals(0, h.backend.calls.stream().filter("resolveRoute"::equals).count());
        assertEquals(List.of(), handler.violations);
    }

    @Test
    void eachPhaseHasItsOwnTimeAndAnUnansweredRouteResolutionIsNamed() throws Exception {
        VerbsEndpoint ep = connecting();
        h.advanceMillis(VerbsEndpoint.RESOLVE_BACKSTOP_FACTOR * RESOLVE - 100);
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        h.pump();
        runOutOf(VerbsEndpoint.RESOLVE_BACKSTOP_FACTOR * RESOLVE); // past the address phase's time, within the route phase's
        assertEquals(DisconnectCause.UNREACHABLE, handler.cause);
        assertTrue(handler.detail.contains("route resolution (rdma_resolve_route) got no answer"), handler.detail);
    }

    @Test
    void anUnansweredConnectEndsAsConnectErrorNamingTheConnectPhaseAndFlushesThePostedReceives() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        Harness.postReceives(ep, 64, 1);
        ep.connect(Harness.PEER, new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        h.backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        h.pump();
        assertEquals(VerbsEndpoint.State.CONNECTING, ep.state());
        runOutOf(CONNECT);
        assertEquals(1, ((FakeBackend.FakeCmId) ep.cmId()).disconnects, "rdma_disconnect ends the connect");
        h.backend.flush(Harness.qp(ep));
        h.pump();
        assertEquals(DisconnectCause.CONNECT_ERROR, handler.cause);
        assertTrue(handler.detail.contains("the connect (rdma_connect) was not established within 3000 ms "
                + "(connectTimeoutMillis)"), handler.detail);
        assertEquals(List.of("completion:1:RECEIVE:FLUSHED", "disconnected:CONNECT_ERROR"),
                ConnectionLifecycleTest.describe(handler.events));
        h.backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, ep.cmId()); // too late
        h.pump();
        assertEquals(0, handler.established);
    }

    @Test
    void anAcceptThePeerNeverCompletesEndsAsConnectErrorNamingTheAccept() throws Exception {
        List<RdmaConnectRequest> requests = new ArrayList<>();
        h.provider.listen(FakeBackend.ipv4("192.0.2.10", 5445), Harness.collecting(requests, (cause, detail) -> {
        }));
        FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(99);
        incoming.peer = FakeBackend.ipv4("192.0.2.30", 50000);
        h.backend.event(VerbsConstants.CM_EVENT_CONNECT_REQUEST, h.backend.listening.get(0), incoming);
        h.pump();
        RdmaEndpoint ep = requests.get(0).createEndpoint(new EndpointSettings(4, 4), handler);
        ep.accept(new ConnectParameters(null, 4, 4));
        h.pump();
        runOutOf(CONNECT);
        assertEquals(DisconnectCause.CONNECT_ERROR, handler.cause);
        assertTrue(handler.detail.startsWith("accept from 192.0.2.30:50000: the accepted connection (rdma_accept) "
                + "was not established within 3000 ms (connectTimeoutMillis)"), handler.detail);
    }

    @Test
    void anEstablishedConnectionIsNotEndedByTheConnectTime() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        h.advanceMillis(CONNECT * 10L);
        h.pump();
        assertEquals(VerbsEndpoint.State.ESTABLISHED, ep.state());
        assertEquals(0, handler.disconnects);
    }

    @Test
    void aConnectTimeoutBelowOneMillisecondIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VerbsSettings.defaults().withTimeouts(100, 0));
        assertEquals("smbdirect.rdma.verbs: connectTimeoutMillis = 0 is invalid (must be >= 1)", e.getMessage());
    }
}
