package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.TransportType;
import smbdirect.api.settings.SettingRefusedException;

/**
 * A device's connections are handled on several cores: up to {@code completionGroups} completion
 * groups per device, each a completion queue on its own completion vector with its own thread, all
 * on the device's one protection domain. A connection goes to the group with the fewest; the
 * device's events reach the connections of every group; a failed queue costs only its group's
 * connections.
 */
class CompletionGroupsTest {

    private static Harness harness(int groups) {
        FakeBackend backend = new FakeBackend();
        backend.asyncEvents = true;
        return new Harness(VerbsSettings.defaults().withCompletionGroups(groups), backend);
    }

    private static List<Integer> vectorsCreated(Harness h) {
        synchronized (h.backend) {
            return h.backend.liveCqs.stream().map(cq -> cq.vector).sorted().toList();
        }
    }

    @Test
    void connectionsAreSpreadOverTheGroupsOnSuccessiveCompletionVectorsSharingOneProtectionDomain() throws Exception {
        Harness h = harness(4);
        List<VerbsEndpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            endpoints.add(h.established(new RecordingHandler(), 4, 4));
        }
        assertEquals(List.of(0, 1, 2, 3, 0, 1, 2, 3), endpoints.stream().map(e -> e.group().index()).toList(),
                "each connection to the group with the fewest (the lowest of equals)");
        List<CompletionGroup> groups = h.provider.completionGroups(h.backend.device.key());
        assertEquals(List.of(2, 2, 2, 2), groups.stream().map(CompletionGroup::attachedCount).toList());
        assertEquals(List.of(0, 1, 2, 3), groups.stream().map(CompletionGroup::vector).toList());
        assertEquals(List.of(0, 1, 2, 3), vectorsCreated(h), "ibv_create_cq's comp_vector of each queue");
        assertEquals(1, h.backend.calls.stream().filter("allocPd"::equals).count(), "one protection domain");
        assertEquals(1, h.backend.calls.stream().filter("watchAsyncEvents"::equals).count(),
                "the device's events are watched once");
        for (VerbsEndpoint e : endpoints) {
            assertEquals(e.group().pd(), groups.get(0).pd());
        }
        assertTrue(h.provider.describeSettings().endsWith(
                "; in use: device 7: 4 completion groups of at most 4 (vector:connections 0:2 1:2 2:2 3:2)"),
                h.provider.describeSettings());
        endpoints.get(5).close();
        assertTrue(h.provider.describeSettings().endsWith("(vector:connections 0:2 1:1 2:2 3:2)"),
                "what an operator reads: " + h.provider.describeSettings());
    }

    @Test
    void moreGroupsThanTheDeviceHasVectorsGoRoundItsVectors() throws Exception {
        Harness h = harness(6); // the fake device has 4 completion vectors
        for (int i = 0; i < 6; i++) {
            h.established(new RecordingHandler(), 4, 4);
        }
        assertEquals(List.of(0, 1, 2, 3, 0, 1),
                h.provider.completionGroups(h.backend.device.key()).stream().map(CompletionGroup::vector).toList());
    }

    @Test
    void theDefaultIsOneGroupPerCompletionVectorAtMostOnePerProcessor() {
        VerbsSettings auto = VerbsSettings.defaults();
        assertEquals(0, auto.completionGroups());
        assertEquals(2, auto.completionGroupsFor(4, 2), "4 vectors, 2 processors");
        assertEquals(4, auto.completionGroupsFor(4, 16), "4 vectors, 16 processors");
        assertEquals(1, auto.completionGroupsFor(1, 16), "siw and rxe in a one-CPU guest: one vector");
        assertEquals(1, auto.completionGroupsFor(0, 16), "a device that reports none");
        assertEquals(3, auto.withCompletionGroups(3).completionGroupsFor(1, 1), "the operator's number");
    }

    @Test
    void onSoftIwarpTheDefaultIsOneGroupForItMapsEveryQueueIntoTheProcess() {
        DeviceAttributes siw = new DeviceAttributes("siw0", TransportType.IWARP, 1L << 40, 16384, 6, 65536, 16, 16,
                VerbsConstants.DEVICE_MEM_MGT_EXTENSIONS, "", DeviceAttributes.PORT_ACTIVE, 5, 1L << 31, 1,
                DeviceAttributes.VENDOR_SIW, 0, false);
        DeviceAttributes rnic = new DeviceAttributes("mlx5_0", TransportType.ROCE, 1L << 40, 16384, 6, 65536, 16, 16,
                VerbsConstants.DEVICE_MEM_MGT_EXTENSIONS, "", DeviceAttributes.PORT_ACTIVE, 5, 1L << 31, 2, 0x02c9, 0,
                false);
        VerbsSettings auto = VerbsSettings.defaults();
        assertEquals(1, auto.completionGroupsFor(16, 16, siw), "siw reports a vector per CPU");
        assertEquals(16, auto.completionGroupsFor(16, 16, rnic));
        assertEquals(4, auto.withCompletionGroups(4).completionGroupsFor(16, 16, siw), "the operator's number holds");
        Harness h = new Harness(auto, new FakeBackend(), TransportType.IWARP, siw);
        assertTrue(h.provider.describeSettings().contains("completion groups: one (siw maps every queue"),
                h.provider.describeSettings());
    }

    @Test
    void aQueuePairSiwHasNoRoomToMapIsRefusedWithWhatToDo() throws Exception {
        DeviceAttributes siw = new DeviceAttributes("siw0", TransportType.IWARP, 1L << 40, 16384, 6, 65536, 16, 16,
                VerbsConstants.DEVICE_MEM_MGT_EXTENSIONS, "", DeviceAttributes.PORT_ACTIVE, 5, 1L << 31, 1,
                DeviceAttributes.VENDOR_SIW, 0, false);
        FakeBackend backend = new FakeBackend();
        Harness h = new Harness(VerbsSettings.defaults(), backend, TransportType.IWARP, siw);
        backend.failOn = "createQp";
        backend.failWith = new NativeCallException("rdma_create_qp", 2, "ENOENT", "send 16, receive 16");
        RdmaException e = assertThrows(RdmaException.class,
                () -> h.provider.createEndpoint(new EndpointSettings(16, 16), new RecordingHandler()));
        assertTrue(e.getMessage().contains("rdma_create_qp failed: errno 2 ENOENT"), e.getMessage());
        assertTrue(e.getMessage().contains("siw maps every queue into the process and has no room left for it (144 "
                + "pages a process, rdma/siw-abi.h SIW_UOBJ_MAX_KEY; a completion queue of cqSize 4096 takes 33"),
                e.getMessage());
    }

    @Test
    void aNumberOfGroupsOutsideItsRangeIsRefusedByName() {
        SettingRefusedException e = assertThrows(SettingRefusedException.class,
                () -> VerbsSettings.defaults().withCompletionGroups(-1));
        assertTrue(e.getMessage().contains("completionGroups = -1"), e.getMessage());
        assertThrows(SettingRefusedException.class,
                () -> VerbsSettings.defaults().withCompletionGroups(VerbsSettings.MAX_COMPLETION_GROUPS + 1));
    }

    @Test
    void connectionsThatComeAndGoReuseAnIdleGroupWhichIsReleasedAfterASecondWithoutConnections() throws Exception {
        Harness h = harness(4);
        VerbsEndpoint held = h.established(new RecordingHandler(), 4, 4);
        for (int i = 0; i < 5; i++) {
            VerbsEndpoint e = h.established(new RecordingHandler(), 4, 4);
            assertEquals(1, e.group().index());
            e.close();
            h.advanceMillis(CompletionGroup.IDLE_MILLIS - 1);
            h.pump();
        }
        assertEquals(2, h.backend.calls.stream().filter("createCq"::equals).count(),
                "the idle group stays for the next connection: no queue and thread made per connection");
        assertEquals(2, h.provider.completionGroups(h.backend.device.key()).size());

        h.advanceMillis(1);
        h.pump();
        assertEquals(List.of(0), h.provider.completionGroups(h.backend.device.key()).stream()
                .map(CompletionGroup::index).toList(), "a second without connections: released");
        assertEquals(1, h.backend.liveCqs.size());
        assertEquals(1, h.backend.livePds.size(), "the device's domain stays with its first group");

        h.advanceMillis(60_000);
        h.pump();
        assertEquals(1, h.backend.liveCqs.size(), "the group of the held connection stays");
        VerbsEndpoint again = h.established(new RecordingHandler(), 4, 4);
        assertEquals(1, again.group().index(), "a new group when one is needed again");
        assertEquals(3, h.backend.calls.stream().filter("createCq"::equals).count());
        again.close();
        held.close();
        assertEquals(Set.of(), h.backend.liveCqs);
        assertEquals(Set.of(), h.backend.livePds);
    }

    @Test
    void withItsThreadAnIdleGroupIsReleasedAfterASecondAndTheListenersGroupStays() throws Exception {
        FakeBackend backend = new FakeBackend();
        VerbsRdmaProvider provider = ThreadedProviderTest.started(backend, 2);
        try {
            provider.listen(FakeBackend.ipv4("192.0.2.10", 445), Harness.collecting(new ArrayList<>(), (cause, detail) -> {
            }));
            List<VerbsEndpoint> endpoints = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                endpoints.add(ThreadedProviderTest.established(provider, backend,
                        new ThreadedProviderTest.Latched()));
            }
            assertEquals(List.of(0, 1), endpoints.stream().map(e -> e.group().index()).toList());
            for (VerbsEndpoint ep : endpoints) {
                ep.close();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (provider.completionGroups(backend.device.key()).size() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(50); // waits for the group's own clock: a second without connections
            }
            assertEquals(List.of(0), provider.completionGroups(backend.device.key()).stream()
                    .map(CompletionGroup::index).toList(), "the idle second group is released, the listener's stays");
            synchronized (backend) {
                assertEquals(1, backend.liveCqs.size());
            }
        } finally {
            provider.shutdown();
        }
    }

    @Test
    void theDevicesFirstGroupStaysWhileTheDeviceIsInUseEvenWhenIdle() throws Exception {
        Harness h = harness(2);
        VerbsEndpoint first = h.established(new RecordingHandler(), 4, 4);
        VerbsEndpoint second = h.established(new RecordingHandler(), 4, 4);
        first.close();
        h.advanceMillis(10 * CompletionGroup.IDLE_MILLIS);
        h.pump();
        assertEquals(List.of(0, 1), h.provider.completionGroups(h.backend.device.key()).stream()
                .map(CompletionGroup::index).toList());
        assertEquals(0, h.established(new RecordingHandler(), 4, 4).group().index(), "the idle first group is used");
        second.close();
    }

    /** {@code handlers.size()} connections, established one after another, each with its handler. */
    private static List<VerbsEndpoint> established(Harness h, List<RecordingHandler> handlers) throws RdmaException {
        List<VerbsEndpoint> endpoints = new ArrayList<>();
        for (RecordingHandler handler : handlers) {
            endpoints.add(h.established(handler, 4, 4));
        }
        return endpoints;
    }

    @Test
    void aPortGoingDownEndsTheConnectionsOfEveryGroup() throws Exception {
        Harness h = harness(3);
        List<RecordingHandler> handlers = List.of(new RecordingHandler(), new RecordingHandler(),
                new RecordingHandler());
        established(h, handlers);
        h.backend.asyncEvent(VerbsConstants.EVENT_PORT_ERR, null, null, 1);
        h.pump();
        for (int i = 0; i < 3; i++) {
            assertEquals(DisconnectCause.PEER_LOST, handlers.get(i).cause, "the connection of group " + i);
            assertTrue(handlers.get(i).detail.startsWith("IBV_EVENT_PORT_ERR"), handlers.get(i).detail);
        }
    }

    @Test
    void aQueuePairEventReachesItsConnectionInWhicheverGroupItIs() throws Exception {
        Harness h = harness(3);
        List<RecordingHandler> handlers = List.of(new RecordingHandler(), new RecordingHandler(),
                new RecordingHandler());
        List<VerbsEndpoint> endpoints = established(h, handlers);
        VerbsEndpoint last = endpoints.get(2);
        assertEquals(2, last.group().index());
        h.backend.asyncEvent(VerbsConstants.EVENT_QP_FATAL, last.queuePair(), null, 0);
        h.pump();
        h.backend.flush(Harness.qp(last));
        h.pump();
        assertEquals(DisconnectCause.QP_ERROR, handlers.get(2).cause);
        assertNull(handlers.get(0).cause);
        assertNull(handlers.get(1).cause);
    }

    @Test
    void aFatalDeviceEndsTheConnectionsOfEveryGroupAndNoNewGroupIsMade() throws Exception {
        Harness h = harness(4);
        List<RecordingHandler> handlers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RecordingHandler handler = new RecordingHandler();
            handlers.add(handler);
            h.established(handler, 4, 4);
        }
        h.backend.asyncEvent(VerbsConstants.EVENT_DEVICE_FATAL, null, null, 0);
        h.pump();
        for (RecordingHandler handler : handlers) {
            assertEquals(DisconnectCause.DEVICE_REMOVED, handler.cause);
        }
        RdmaException refused = assertThrows(RdmaException.class,
                () -> h.provider.createEndpoint(new EndpointSettings(4, 4), new RecordingHandler()));
        assertTrue(refused.getMessage().contains("failed"), refused.getMessage());
        assertEquals(2, h.provider.completionGroups(h.backend.device.key()).size(), "no group made on a dead device");
    }

    @Test
    void completionQueueCapacityIsPerGroup() throws Exception {
        VerbsSettings d = VerbsSettings.defaults();
        Harness small = new Harness(new VerbsSettings("", "", "AUTO", 10, 4, 4, d.maxMessageSize(), 16,
                d.maxRegionSize(), false, 8, 100, 100, 100, 6, 0, 8, false).withCompletionGroups(2));
        RecordingHandler handler = new RecordingHandler();
        small.activeEndpoint(handler, 4, 4);
        small.activeEndpoint(handler, 4, 4); // the second group's queue
        RdmaException e = assertThrows(RdmaException.class, () -> small.activeEndpoint(handler, 2, 1));
        assertTrue(e.getMessage().contains("cqSize 10"), e.getMessage());
    }

    @Test
    void everyGroupHasItsThreadAndEveryCallbackOfAConnectionRunsOnItsGroupsThread() throws Exception {
        FakeBackend backend = new FakeBackend();
        VerbsRdmaProvider provider = ThreadedProviderTest.started(backend, 3);
        List<ThreadedProviderTest.Latched> handlers = new ArrayList<>();
        List<VerbsEndpoint> endpoints = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                ThreadedProviderTest.Latched handler = new ThreadedProviderTest.Latched();
                VerbsEndpoint ep = ThreadedProviderTest.established(provider, backend, handler);
                handlers.add(handler);
                endpoints.add(ep);
            }
            for (VerbsEndpoint ep : endpoints) {
                backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 24, 0, 0);
            }
            for (int i = 0; i < endpoints.size(); i++) {
                VerbsEndpoint ep = endpoints.get(i);
                assertTrue(handlers.get(i).received.await(10, TimeUnit.SECONDS), "receive completion " + i);
                ep.disconnect();
                backend.flush(Harness.qp(ep));
                assertTrue(handlers.get(i).disconnected.await(10, TimeUnit.SECONDS), "onDisconnected " + i);
            }
            Set<String> all = new TreeSet<>();
            for (int i = 0; i < endpoints.size(); i++) {
                String own = "smbdirect-verbs-cq-7-" + endpoints.get(i).group().index();
                assertEquals(Set.of(own), handlers.get(i).threads, "connection " + i);
                all.addAll(handlers.get(i).threads);
            }
            assertEquals(Set.of("smbdirect-verbs-cq-7-0", "smbdirect-verbs-cq-7-1", "smbdirect-verbs-cq-7-2"), all);
        } finally {
            provider.shutdown();
        }
        Set<String> running = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("smbdirect-verbs-cq-7-") && t.isAlive()).map(Thread::getName)
                .collect(Collectors.toSet());
        assertEquals(Set.of(), running, "shutdown stops every group's thread");
        synchronized (backend) {
            assertEquals(Set.of(), backend.liveCqs);
            assertEquals(Set.of(), backend.livePds);
            assertEquals(3, backend.calls.stream().filter("destroyCq"::equals).count());
            assertEquals(1, backend.calls.stream().filter("deallocPd"::equals).count());
        }
        assertFalse(provider.describeSettings().isEmpty());
    }
}
