package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryRegion;

/**
 * {@code rdma_connect} runs off the completion thread: on iWARP it blocks for the TCP handshake
 * (siw connects its socket in blocking mode for as long as the SYN retries last). While one
 * connect is in the kernel, the other connections of the device go on, the connect's deadline
 * still ends it (naming the phase), and what must follow the call on its identifier (rdma_disconnect,
 * the destroys) waits for the call to return instead of holding up the thread that asked. Here the
 * connect calls queue in the test ({@link #inFlight}) and "return" when the test runs them.
 */
class ConnectCallTest {

    private static final int CONNECT = 3_000;
    private final Harness h = new Harness(VerbsSettings.defaults().withTimeouts(700, CONNECT));
    private final Queue<Runnable> inFlight = new ArrayDeque<>();

    ConnectCallTest() {
        h.provider.connectCalls(inFlight::add);
    }

    /** An endpoint whose rdma_connect has been handed over and not returned yet. */
    private VerbsEndpoint connectInTheKernel(RecordingHandler handler) throws Exception {
        long connectsBefore = connects();
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        Harness.postReceives(ep, 128, 2);
        ep.connect(Harness.PEER, new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        h.backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        h.pump();
        assertEquals(VerbsEndpoint.State.CONNECTING, ep.state());
        assertEquals(1, inFlight.size(), "rdma_connect handed to a connect thread");
        assertEquals(connectsBefore, connects(), "not made on the completion thread");
        return ep;
    }

    private long connects() {
        return h.backend.calls.stream().filter("connect"::equals).count();
    }

    @Test
    void anotherConnectionOfTheDeviceGoesOnWhileAConnectIsInTheKernel() throws Exception {
        RecordingHandler other = new RecordingHandler();
        VerbsEndpoint established = h.established(other, 4, 4);
        inFlight.remove().run(); // its own connect returned at once
        MemoryRegion region = Harness.postReceives(established, 128, 1);
        RecordingHandler handler = new RecordingHandler();
        connectInTheKernel(handler);

        established.postSend(region, 0, 16, 7);
        h.backend.completeSend(Harness.qp(established), VerbsConstants.WC_SUCCESS, VerbsConstants.WC_SEND, 16, 0);
        h.backend.completeRecv(Harness.qp(established), VerbsConstants.WC_SUCCESS, 32, 0, 0);
        h.pump();
        assertEquals(List.of(CompletionStatus.SUCCESS, CompletionStatus.SUCCESS),
                other.completions.stream().map(RecordingHandler.Completion::status).toList(),
                "the other connection's completions are delivered while the connect is in the kernel");
        assertEquals(0, handler.disconnects);
    }

    @Test
    void aConnectStillInTheKernelEndsByItsDeadlineAndItsIdentifierIsReleasedWhenTheCallReturns() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = connectInTheKernel(handler);
        FakeBackend.FakeCmId id = (FakeBackend.FakeCmId) ep.cmId();

        h.advanceMillis(CONNECT);
        h.pump();
        assertEquals(0, id.disconnects, "rdma_disconnect waits for rdma_connect to return");
        h.advanceMillis(VerbsSettings.defaults().flushTimeoutMillis());
        h.pump();
        assertEquals(DisconnectCause.CONNECT_ERROR, handler.cause);
        assertTrue(handler.detail.contains("the connect (rdma_connect) was not established within 3000 ms"),
                handler.detail);
        assertEquals(List.of("completion:1:RECEIVE:FLUSHED", "completion:2:RECEIVE:FLUSHED",
                "disconnected:CONNECT_ERROR"), ConnectionLifecycleTest.describe(handler.events));

        ep.close();
        assertFalse(h.backend.destroyedIds.contains(id), "nothing is destroyed under a call still in the kernel");
        inFlight.remove().run(); // the kernel gives up the TCP handshake: rdma_connect returns
        assertEquals(List.of("connect", "disconnect", "destroyQp", "destroyId"),
                h.backend.calls.stream().filter(c -> List.of("connect", "disconnect", "destroyQp", "destroyId")
                        .contains(c)).toList(), "the call first, then what followed it, in order");
        assertTrue(h.backend.destroyedIds.contains(id));
        h.pump();
        assertEquals(List.of(), handler.violations);
        assertEquals(1, handler.disconnects, "one onDisconnected");
    }

    @Test
    void aConnectThatFailsInTheKernelEndsNamingTheCall() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = connectInTheKernel(handler);
        h.backend.failOn = "connect";
        inFlight.remove().run();
        h.pump();
        assertEquals(DisconnectCause.CONNECT_ERROR, handler.cause, handler.detail);
        assertEquals("rdma_connect failed: connect: injected failure", handler.detail);
        assertEquals(List.of("completion:1:RECEIVE:FLUSHED", "completion:2:RECEIVE:FLUSHED",
                "disconnected:CONNECT_ERROR"), ConnectionLifecycleTest.describe(handler.events));
        ep.close();
    }
}
