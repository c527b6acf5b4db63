package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.WorkCompletion;

/**
 * The provider with its own CM and completion threads (event mode) over the fake: every callback
 * of an endpoint, CM-driven or completion-driven, runs on the device's completion thread, and
 * shutdown stops the threads.
 */
class ThreadedProviderTest {

    static final class Latched implements RdmaEndpointHandler {
        final CountDownLatch established = new CountDownLatch(1);
        final CountDownLatch received = new CountDownLatch(1);
        final CountDownLatch disconnected = new CountDownLatch(1);
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        final List<CompletionStatus> statuses = new CopyOnWriteArrayList<>();
        volatile DisconnectCause cause;

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            threads.add(Thread.currentThread().getName());
            established.countDown();
        }

        @Override
        public void onCompletion(WorkCompletion completion) {
            threads.add(Thread.currentThread().getName());
            statuses.add(completion.status());
            received.countDown();
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            threads.add(Thread.currentThread().getName());
            this.cause = cause;
            disconnected.countDown();
        }
    }

    /**
     * A provider over {@code backend} with its threads started, short waits and
     * {@code completionGroups} groups per device.
     */
    static VerbsRdmaProvider started(FakeBackend backend, int completionGroups) {
        VerbsSettings d = VerbsSettings.defaults();
        VerbsSettings fast = new VerbsSettings("", "", "AUTO", d.cqSize(), d.maxSendWorkRequests(),
                d.maxReceiveWorkRequests(), d.maxMessageSize(), d.maxReadDepth(), d.maxRegionSize(), false,
                d.pollBatch(), 20, 1000, 200, 6, 0, 16, false).withCompletionGroups(completionGroups);
        VerbsRdmaProvider provider = new VerbsRdmaProvider(fast, backend, Harness.BIND,
                smbdirect.api.rdma.TransportType.ROCE, System::nanoTime);
        provider.start(Executors.defaultThreadFactory());
        return provider;
    }

    /**
     * An endpoint of the started {@code provider} with one receive of 256 bytes posted, taken through
     * resolve, route and ESTABLISHED, once {@code handler} saw {@code onEstablished}.
     */
    static VerbsEndpoint established(VerbsRdmaProvider provider, FakeBackend backend, Latched handler)
            throws Exception {
        VerbsEndpoint ep = (VerbsEndpoint) provider.createEndpoint(new EndpointSettings(4, 4), handler);
        MemoryRegion region = ep.register(ByteBuffer.allocateDirect(256), Set.of(MemoryAccess.LOCAL_WRITE));
        ep.postReceive(region, 0, 256, 1L);
        ep.connect(Harness.PEER, new ConnectParameters(null, 2, 2));
        backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, ep.cmId());
        assertTrue(handler.established.await(10, TimeUnit.SECONDS), "onEstablished");
        return ep;
    }

    @Test
    void callbacksRunOnTheDevicesCompletionThreadAndShutdownStopsThreads() throws Exception {
        FakeBackend backend = new FakeBackend();
        VerbsRdmaProvider provider = started(backend, 0);
        Latched handler = new Latched();
        VerbsEndpoint ep = established(provider, backend, handler);
        backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 24, 0, 0);
        assertTrue(handler.received.await(10, TimeUnit.SECONDS), "receive completion");
        ep.disconnect();
        backend.flush(Harness.qp(ep));
        assertTrue(handler.disconnected.await(10, TimeUnit.SECONDS), "onDisconnected");
        assertEquals(DisconnectCause.LOCAL, handler.cause);
        assertEquals(Set.of("smbdirect-verbs-cq-7-0"), handler.threads, "completion group 0 of device 7");
        assertEquals(List.of(CompletionStatus.SUCCESS), handler.statuses);
        provider.shutdown();
        assertTrue(backend.closed);
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            assertFalse(t.getName().startsWith("smbdirect-verbs-") && t.isAlive(), t.getName() + " still running");
        }
        synchronized (backend) {
            assertTrue(backend.calls.contains("destroyCq"));
            assertTrue(backend.calls.contains("deallocPd"));
        }
    }
}
