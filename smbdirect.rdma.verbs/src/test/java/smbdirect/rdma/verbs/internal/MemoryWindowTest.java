package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.TransportType;

/**
 * Memory the peer may access, on a device with type 2 memory windows (rxe, ConnectX, E810): the
 * work requests and calls the provider makes, through the fake backend.
 */
class MemoryWindowTest {

    static DeviceAttributes device(boolean windows) {
        return new DeviceAttributes("rxe0", TransportType.ROCE, 1L << 40, 16384, 32, 65536, 128, 128,
                VerbsConstants.DEVICE_MEM_MGT_EXTENSIONS | (windows ? VerbsConstants.DEVICE_MEM_WINDOW_TYPE_2B : 0),
                "", DeviceAttributes.PORT_ACTIVE, 3, 1L << 23, 2, DeviceAttributes.VENDOR_RXE, windows ? 4096 : 0,
                windows);
    }

    private final Harness h = new Harness(VerbsSettings.defaults(), new FakeBackend(), TransportType.ROCE,
            device(true));

    private FakeBackend.Send lastBind() {
        List<FakeBackend.Send> binds = h.backend.sends.stream()
                .filter(s -> s.opcode() == VerbsConstants.WR_BIND_MW).toList();
        return binds.get(binds.size() - 1);
    }

    @Test
    void aRemoteRegionOfAConnectedEndpointIsATypeTwoWindowBoundOverItOnTheConnection() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion r = ep.register(Harness.direct(4096), Harness.access(MemoryAccess.LOCAL_WRITE,
                MemoryAccess.REMOTE_WRITE));
        FakeBackend.FakeMr mr = h.backend.liveRegions.iterator().next();
        assertEquals(VerbsConstants.ACCESS_LOCAL_WRITE | VerbsConstants.ACCESS_MW_BIND, mr.access(),
                "the registration itself grants no remote access");
        FakeBackend.Send bind = lastBind();
        FakeBackend.FakeMw mw = h.backend.liveWindows.iterator().next();
        assertEquals(mw, bind.bindWindow());
        assertEquals((mw.remoteKey() & ~0xff) | ((mw.remoteKey() + 1) & 0xff), bind.bindKey(), "ibv_inc_rkey");
        assertEquals(bind.bindKey(), r.token());
        assertEquals(mr, bind.bindRegion());
        assertEquals(mr.address(), bind.bindAddress());
        assertEquals(4096, bind.bindLength());
        assertEquals(VerbsConstants.ACCESS_REMOTE_WRITE, bind.bindAccess());
        assertEquals(VerbsConstants.SEND_SIGNALED, bind.sendFlags());
        assertEquals(mr.address(), r.address());
        // the bind's completion is the provider's own: the handler never sees it
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_SUCCESS, VerbsConstants.WC_BIND_MW, 0, 0);
        h.pump();
        assertEquals(List.of(), handler.completions);
        assertTrue(r.isValid());
    }

    @Test
    void localRegionsAndRegionsRegisteredBeforeTheConnectionAreRegistrationsOnly() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(new RecordingHandler(), 4, 4);
        MemoryRegion early = ep.register(Harness.direct(64), Harness.access(MemoryAccess.REMOTE_READ));
        MemoryRegion local = ep.register(Harness.direct(64), Harness.access(MemoryAccess.LOCAL_WRITE));
        assertEquals(List.of(), h.backend.sends, "no bind on an unconnected queue pair");
        assertTrue(h.backend.liveWindows.isEmpty());
        assertTrue(h.backend.liveRegions.stream().anyMatch(m -> m.remoteKey() == early.token()
                && m.access() == VerbsConstants.ACCESS_REMOTE_READ));
        assertNotNull(local);
    }

    @Test
    void bindsHaveTheirOwnShareOfTheSendQueue() throws Exception {
        VerbsEndpoint ep = h.established(new RecordingHandler(), 2, 2);
        assertEquals(4, Harness.qp(ep).maxSend, "send queue depth 2 and as many binds");
        MemoryRegion src = ep.register(Harness.direct(64), Harness.access());
        ep.postSend(src, 0, 8, 1);
        ep.postSend(src, 0, 8, 2);
        assertThrows(RdmaException.class, () -> ep.postSend(src, 0, 8, 3), "the caller's share is full");
        ep.register(Harness.direct(64), Harness.access(MemoryAccess.REMOTE_READ));
        ep.register(Harness.direct(64), Harness.access(MemoryAccess.REMOTE_READ));
        RdmaException full = assertThrows(RdmaException.class,
                () -> ep.register(Harness.direct(64), Harness.access(MemoryAccess.REMOTE_READ)));
        assertTrue(full.getMessage().contains("memory window binds in flight"), full.getMessage());
        assertEquals(2, h.backend.liveWindows.size(), "a refused registration keeps nothing");
        assertEquals(3, h.backend.liveRegions.size());
    }

    @Test
    void aRegionDeregisteredWhileItsBindIsInFlightIsReleasedWhenTheBindCompletesWindowFirst() throws Exception {
        VerbsEndpoint ep = h.established(new RecordingHandler(), 4, 4);
        MemoryRegion r = ep.register(Harness.direct(64), Harness.access(MemoryAccess.REMOTE_READ));
        // the harness runs the completion group on this thread: nothing to wait for, the release waits
        ep.deregister(r);
        assertFalse(r.isValid());
        assertEquals(1, h.backend.liveWindows.size(), "ibv_dealloc_mw must not overtake the queued bind");
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_SUCCESS, VerbsConstants.WC_BIND_MW, 0, 0);
        h.pump();
        assertTrue(h.backend.liveWindows.isEmpty());
        assertTrue(h.backend.liveRegions.isEmpty());
        List<String> releases = h.backend.calls.stream().filter(c -> c.equals("deallocMw") || c.equals("deregister"))
                .toList();
        assertEquals(List.of("deallocMw", "deregister"), releases, "the window dies before the registration");
    }

    @Test
    void aFailedBindBreaksTheConnection() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion r = ep.register(Harness.direct(64), Harness.access(MemoryAccess.REMOTE_READ));
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_MW_BIND_ERR, VerbsConstants.WC_BIND_MW, 0, 0);
        h.pump();
        h.backend.flush(Harness.qp(ep));
        h.pump();
        assertEquals(DisconnectCause.QP_ERROR, handler.cause);
        assertTrue(handler.detail.startsWith("the bind of memory window rkey 0x" + Integer.toHexString(r.token())
                + " completed with IBV_WC_MW_BIND_ERR"), handler.detail);
        assertFalse(r.isValid());
    }

    @Test
    void aPeersSendWithInvalidateNamingTheWindowInvalidatesTheRegion() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion receive = ep.register(Harness.direct(64), Harness.access(MemoryAccess.LOCAL_WRITE));
        ep.postReceive(receive, 0, 64, 9);
        MemoryRegion exposed = ep.register(Harness.direct(64), Harness.access(MemoryAccess.LOCAL_WRITE,
                MemoryAccess.REMOTE_WRITE));
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_SUCCESS, VerbsConstants.WC_BIND_MW, 0, 0);
        h.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 24, VerbsConstants.WC_WITH_INV,
                exposed.token());
        h.pump();
        RecordingHandler.Completion c = handler.completions.get(0);
        assertEquals(CompletionStatus.SUCCESS, c.status());
        assertTrue(c.hasInvalidatedToken());
        assertEquals(exposed.token(), c.invalidatedToken());
        assertFalse(exposed.isValid());
        ep.deregister(exposed);
        assertTrue(h.backend.liveWindows.isEmpty());
    }

    @Test
    void aLocalInvalidateDeallocatesTheWindowWhenTheSendQueueReachesIt() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion r = ep.register(Harness.direct(64), Harness.access(MemoryAccess.REMOTE_READ));
        ep.postLocalInvalidate(r, 33);
        h.pump();
        assertEquals(1, h.backend.liveWindows.size(), "behind the bind");
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_SUCCESS, VerbsConstants.WC_BIND_MW, 0, 0);
        h.pump();
        assertTrue(h.backend.liveWindows.isEmpty());
        assertEquals(33L, handler.completions.get(0).wrId());
        assertFalse(r.isValid());
    }

    /**
     * rxe holds the queue pair a type 2 window is bound on: destroying the queue pair first waits 50 s
     * for that reference (rxe_pool.c, __rxe_cleanup) and warns in the kernel log.
     */
    @Test
    void closingReleasesWindowsBeforeTheQueuePairAndRegistrationsAfterIt() throws Exception {
        VerbsEndpoint ep = h.established(new RecordingHandler(), 4, 4);
        ep.register(Harness.direct(64), Harness.access(MemoryAccess.REMOTE_READ));
        ep.close();
        List<String> order = h.backend.calls.stream().filter(c -> c.equals("disconnect") || c.equals("destroyQp")
                || c.equals("deallocMw") || c.equals("deregister")).toList();
        assertEquals(List.of("disconnect", "deallocMw", "destroyQp", "deregister"), order);
        assertTrue(h.backend.liveWindows.isEmpty());
        assertTrue(h.backend.liveRegions.isEmpty());
    }

    /**
     * Linux rxe marks a receive that invalidated an rkey with the kernel's IB_WC_WITH_INVALIDATE bit
     * (1 << 2), not IBV_WC_WITH_INV (1 << 3): on rxe either is taken, elsewhere only the latter.
     */
    @Test
    void rxeReportsAnInvalidationWithTheKernelsFlagWhichIsTakenOnRxeOnly() throws Exception {
        for (boolean rxe : new boolean[] {true, false}) {
            DeviceAttributes d = device(true);
            DeviceAttributes dev = new DeviceAttributes(d.name(), d.transportType(), d.maxMrSize(), d.maxQpWr(),
                    d.maxSge(), d.maxCqe(), d.maxQpRdAtom(), d.maxQpInitRdAtom(), d.deviceCapFlags(), d.firmware(),
                    d.portState(), d.activeMtu(), d.maxMsgSize(), d.linkLayer(), rxe ? DeviceAttributes.VENDOR_RXE : 0x15b3,
                    d.maxMw(), true);
            Harness hx = new Harness(VerbsSettings.defaults(), new FakeBackend(), TransportType.ROCE, dev);
            RecordingHandler handler = new RecordingHandler();
            VerbsEndpoint ep = hx.established(handler, 4, 4);
            MemoryRegion receive = ep.register(Harness.direct(64), Harness.access(MemoryAccess.LOCAL_WRITE));
            ep.postReceive(receive, 0, 64, 9);
            MemoryRegion exposed = ep.register(Harness.direct(64), Harness.access(MemoryAccess.LOCAL_WRITE,
                    MemoryAccess.REMOTE_WRITE));
            hx.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_SUCCESS, VerbsConstants.WC_BIND_MW, 0, 0);
            hx.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 24, 1 << 2, exposed.token());
            hx.pump();
            assertEquals(rxe, handler.completions.get(0).hasInvalidatedToken(), "rxe " + rxe);
            assertEquals(!rxe, exposed.isValid(), "rxe " + rxe);
        }
    }

    /**
     * The two directions of Send with Invalidate: posting one is the device's (memory management
     * extensions), with or without windows; a peer's Send with Invalidate invalidating our memory
     * and being reported follows the windows, or the operator's word for a device without them.
     */
    @Test
    void sendWithInvalidateIsPostedWithTheExtensionsAndAPeersFollowsTheWindowsAndEachSaysWhy() throws Exception {
        RdmaCapabilities windows = VerbsSettings.defaults().capabilities(device(true));
        assertTrue(windows.sendWithInvalidate());
        assertTrue(VerbsSettings.defaults().remoteInvalidation(device(true)));
        assertTrue(windows.remoteInvalidation(), "the capabilities an upper layer reads say the same");
        DeviceAttributes small = new DeviceAttributes("rxe0", TransportType.ROCE, 1L << 40, 1024, 32, 65536, 128, 128,
                device(true).deviceCapFlags(), "", DeviceAttributes.PORT_ACTIVE, 3, 1L << 23, 2, 0, 4096, true);
        assertEquals(512, VerbsSettings.defaults().capabilities(small).maxSendWorkRequests(),
                "binds share the send queue: half of max_qp_wr for the caller");
        assertEquals(1024, VerbsSettings.defaults().capabilities(small).maxReceiveWorkRequests());
        assertTrue(VerbsSettings.defaults().remoteInvalidationReason(device(true)).contains("type 2 memory windows"));

        RdmaCapabilities plain = VerbsSettings.defaults().capabilities(device(false));
        assertTrue(plain.sendWithInvalidate(), "posting needs the extensions only");
        assertTrue(VerbsSettings.defaults().sendWithInvalidateReason(device(false))
                .startsWith("rxe0 posts IBV_WR_SEND_WITH_INV"));
        assertFalse(VerbsSettings.defaults().remoteInvalidation(device(false)));
        assertFalse(plain.remoteInvalidation(), "posting, but a peer's does not invalidate our memory");
        assertTrue(VerbsSettings.defaults().remoteInvalidationReason(device(false))
                .startsWith("rxe0 has no type 2 memory windows"));
        assertTrue(Harness.withSendWithInvalidate().remoteInvalidation(device(false)),
                "the operator states the device invalidates plain registrations and reports it");

        Harness plainDevice = new Harness(VerbsSettings.defaults(), new FakeBackend(), TransportType.ROCE,
                device(false));
        assertFalse(plainDevice.provider.remoteInvalidation());
        assertFalse(plainDevice.provider.capabilities().remoteInvalidation());
        assertTrue(plainDevice.provider.describeSettings().contains("Send with Invalidate on: rxe0 posts "
                + "IBV_WR_SEND_WITH_INV"), plainDevice.provider.describeSettings());
        assertTrue(plainDevice.provider.describeSettings().contains("a peer's Send with Invalidate of our memory off: "
                + "rxe0 has no type 2 memory windows"), plainDevice.provider.describeSettings());
        VerbsEndpoint ep = plainDevice.established(new RecordingHandler(), 4, 4);
        ep.postSendWithInvalidate(ep.register(Harness.direct(8), Harness.access()), 0, 8, 0x1234, 1);
        FakeBackend.Send sent = plainDevice.backend.sends.get(plainDevice.backend.sends.size() - 1);
        assertEquals(VerbsConstants.WR_SEND_WITH_INV, sent.opcode());
        assertEquals(0x1234, sent.invalidateKey());

        DeviceAttributes noExtensions = new DeviceAttributes("x", TransportType.ROCE, 1L << 40, 512, 32, 8192, 32, 4, 0,
                "", 4, 3, 0, 2);
        RdmaException off = assertThrows(RdmaException.class, () -> {
            Harness h = new Harness(Harness.withSendWithInvalidate(), new FakeBackend(), TransportType.ROCE,
                    noExtensions);
            VerbsEndpoint e = h.established(new RecordingHandler(), 4, 4);
            e.postSendWithInvalidate(e.register(Harness.direct(8), Harness.access()), 0, 8, 0x1234, 1);
        });
        assertTrue(off.getMessage().contains("has no memory management extensions"), off.getMessage());
    }
}
