package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE;
import static smbdirect.api.rdma.MemoryAccess.REMOTE_WRITE;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.TransportType;
import smbdirect.api.rdma.WorkCompletion;

/**
 * A device's completion group (protection domain, completion queue, completion thread) lives as
 * long as something uses the device: its endpoints (their queue pairs and registrations) and the
 * listeners bound to its address. The last one gone releases it, after every queue pair and
 * registration of it; the next connection gets a new one.
 */
class CompletionGroupLifetimeTest {

    private final Harness h = new Harness();

    @Test
    void theLastEndpointClosedReleasesTheQueuesAndTheDomainAfterItsQueuePairsAndRegistrations() throws Exception {
        Harness h = new Harness(VerbsSettings.defaults().withCompletionGroups(2));
        RecordingHandler first = new RecordingHandler();
        RecordingHandler second = new RecordingHandler();
        VerbsEndpoint a = h.established(first, 4, 4);
        VerbsEndpoint b = h.established(second, 4, 4);
        a.register(Harness.direct(64), Harness.access(LOCAL_WRITE, REMOTE_WRITE));
        b.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        assertNotSame(a.group(), b.group(), "the second connection has a group of its own");
        assertEquals(1, count(h, "allocPd"), "one domain for the device, shared by its groups");
        assertEquals(2, count(h, "createCq"), "a completion queue per group");

        a.close();
        assertEquals(1, h.backend.livePds.size(), "the other endpoint still uses the domain");
        assertEquals(2, h.backend.liveCqs.size(), "a group without endpoints stays while the device is in use");
        assertEquals(2, h.provider.completionGroups(h.backend.device.key()).size());

        b.close();
        assertEquals(Set.of(), h.backend.livePds, "domain released with the last endpoint");
        assertEquals(Set.of(), h.backend.liveCqs, "completion queues released with the last endpoint");
        assertEquals(Set.of(), h.backend.liveRegions, "registrations released before the domain");
        assertNull(h.provider.group(h.backend.device.key()));
        List<String> calls = h.backend.calls;
        int lastQp = calls.lastIndexOf("destroyQp");
        int lastDereg = calls.lastIndexOf("deregister");
        int firstCq = calls.indexOf("destroyCq");
        int lastCq = calls.lastIndexOf("destroyCq");
        int pd = calls.indexOf("deallocPd");
        assertTrue(lastQp < firstCq && lastDereg < pd && lastCq < pd && firstCq != lastCq,
                "queue pairs, registrations, both queues, domain: " + calls);
        assertEquals(1, count(h, "deallocPd"));
        assertTrue(calls.contains("unwatchAsyncEvents"), "the device's events are no longer watched");
    }

    @Test
    void aConnectionAfterTheGroupWasReleasedGetsANewOneAndWorks() throws Exception {
        RecordingHandler first = new RecordingHandler();
        VerbsEndpoint a = h.established(first, 4, 4);
        CompletionGroup old = a.group();
        a.close();
        assertTrue(old.isReleased());

        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint b = h.established(handler, 4, 4);
        assertNotSame(old, b.group());
        assertEquals(2, count("allocPd"));
        assertEquals(1, h.backend.livePds.size());
        assertEquals(1, handler.established);
        MemoryRegion region = b.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        b.postReceive(region, 0, 64, 1L);
        b.postSend(region, 0, 8, 2L);
        h.backend.completeSend(Harness.qp(b), VerbsConstants.WC_SUCCESS, VerbsConstants.WC_SEND, 8, 0);
        h.backend.completeRecv(Harness.qp(b), VerbsConstants.WC_SUCCESS, 8, 0, 0);
        h.pump();
        assertEquals(List.of(2L, 1L), handler.completions.stream().map(RecordingHandler.Completion::wrId).toList());
        b.close();
        assertEquals(Set.of(), h.backend.livePds);
        assertEquals(Set.of(), h.backend.liveCqs);
    }

    @Test
    void aListenerBoundToTheDeviceHoldsItsGroupAcrossConnectionsUntilItCloses() throws Exception {
        List<RdmaConnectRequest> requests = new ArrayList<>();
        RdmaListener listener = h.provider.listen(FakeBackend.ipv4("192.0.2.10", 445), Harness.collecting(requests));
        assertEquals(1, h.backend.livePds.size(), "the listener's device has its group while it listens");
        assertEquals(1, h.backend.liveCqs.size());
        for (int i = 0; i < 3; i++) {
            FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(90 + i);
            h.backend.event(VerbsConstants.CM_EVENT_CONNECT_REQUEST, h.backend.listening.get(0), incoming);
            h.pump();
            RecordingHandler handler = new RecordingHandler();
            RdmaEndpoint endpoint = requests.get(i).createEndpoint(new EndpointSettings(4, 4), handler);
            endpoint.accept(new ConnectParameters(null, 4, 4));
            h.backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, incoming);
            h.pump();
            assertEquals(1, handler.established);
            endpoint.close();
        }
        assertEquals(1, count("allocPd"), "connections one after another share the listener's group");
        assertEquals(1, count("createCq"));
        assertEquals(1, h.backend.livePds.size());

        listener.close();
        assertEquals(Set.of(), h.backend.livePds);
        assertEquals(Set.of(), h.backend.liveCqs);
        assertNull(h.provider.group(h.backend.device.key()));
    }

    @Test
    void anEndpointThatCouldNotBeCreatedLeavesNoGroupBehind() throws Exception {
        h.backend.failOn = "createQp";
        RecordingHandler handler = new RecordingHandler();
        try {
            h.provider.createEndpoint(new EndpointSettings(4, 4), handler);
        } catch (smbdirect.api.rdma.RdmaException expected) {
            assertTrue(expected.getMessage().contains("rdma_create_qp"), expected.getMessage());
        }
        assertEquals(Set.of(), h.backend.livePds);
        assertEquals(Set.of(), h.backend.liveCqs);
        h.backend.failOn = null;
        h.established(handler, 4, 4);
        assertEquals(1, h.backend.livePds.size());
    }

    @Test
    void withItsThreadTheGroupIsReleasedByTheThreadAlsoWhenAHandlerClosesItsEndpointOnIt() throws Exception {
        VerbsSettings d = VerbsSettings.defaults();
        VerbsSettings fast = new VerbsSettings("", "", "AUTO", d.cqSize(), d.maxSendWorkRequests(),
                d.maxReceiveWorkRequests(), d.maxMessageSize(), d.maxReadDepth(), d.maxRegionSize(), false,
                d.pollBatch(), 20, 1000, 200, 6, 0, 16, false);
        FakeBackend backend = new FakeBackend();
        VerbsRdmaProvider provider = new VerbsRdmaProvider(fast, backend, Harness.BIND, TransportType.ROCE,
                System::nanoTime);
        provider.start(Executors.defaultThreadFactory());
        try {
            for (int round = 0; round < 2; round++) {
                ClosingHandler handler = new ClosingHandler();
                VerbsEndpoint ep = (VerbsEndpoint) provider.createEndpoint(new EndpointSettings(4, 4), handler);
                handler.endpoint = ep;
                Thread groupThread = groupThread();
                ep.connect(Harness.PEER, new ConnectParameters(null, 2, 2));
                backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
                backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
                backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, ep.cmId());
                assertTrue(handler.established.await(10, TimeUnit.SECONDS), "onEstablished");
                backend.event(VerbsConstants.CM_EVENT_DISCONNECTED, null, ep.cmId());
                assertTrue(handler.closed.await(10, TimeUnit.SECONDS), "closed in onDisconnected");
                assertEquals(DisconnectCause.PEER, handler.cause);
                groupThread.join(10_000);
                assertFalse(groupThread.isAlive(), "the completion thread stops with its group");
                synchronized (backend) {
                    assertEquals(Set.of(), backend.livePds, "round " + round);
                    assertEquals(Set.of(), backend.liveCqs, "round " + round);
                }
            }
        } finally {
            provider.shutdown();
        }
        synchronized (backend) {
            assertEquals(2, backend.calls.stream().filter("allocPd"::equals).count());
            assertEquals(2, backend.calls.stream().filter("deallocPd"::equals).count(), "each group released once");
        }
    }

    @Test
    void shutdownReleasesTheGroupsOfOpenEndpointsAndListeners() throws Exception {
        h.provider.listen(FakeBackend.ipv4("192.0.2.10", 445), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
            }
        });
        h.established(new RecordingHandler(), 4, 4);
        h.provider.shutdown();
        assertEquals(Set.of(), h.backend.livePds);
        assertEquals(Set.of(), h.backend.liveCqs);
        assertEquals(1, count("deallocPd"));
    }

    private long count(String call) {
        return count(h, call);
    }

    private static long count(Harness h, String call) {
        return h.backend.calls.stream().filter(call::equals).count();
    }

    private static Thread groupThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("smbdirect-verbs-cq-") && t.isAlive()) {
                return t;
            }
        }
        throw new AssertionError("no completion thread");
    }

    /** Closes its endpoint from inside onDisconnected, on the completion thread. */
    private static final class ClosingHandler implements RdmaEndpointHandler {
        final CountDownLatch established = new CountDownLatch(1);
        final CountDownLatch closed = new CountDownLatch(1);
        volatile VerbsEndpoint endpoint;
        volatile DisconnectCause cause;

        @Override
        public void onEstablished(ByteBuffer privateData) {
            established.countDown();
        }

        @Override
        public void onCompletion(WorkCompletion completion) {
        }

        @Override
        public void onDisconnected(DisconnectCause why, String detail, ByteBuffer privateData) {
            cause = why;
            endpoint.close();
            closed.countDown();
        }
    }
}
