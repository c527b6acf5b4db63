package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE;
import static smbdirect.api.rdma.MemoryAccess.REMOTE_READ;
import static smbdirect.api.rdma.MemoryAccess.REMOTE_WRITE;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;

/** ibv_reg_mr bookkeeping: access flags, keys, addresses, deregistration, the local-invalidate fence. */
class MemoryRegistrationTest {

    private final Harness h = new Harness();
    private final RecordingHandler handler = new RecordingHandler();

    @Test
    void registrationMapsAccessRightsAndExposesTheMrKeysAndAddress() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ByteBuffer buffer = Harness.direct(1024);
        buffer.position(256).limit(768);
        MemoryRegion region = ep.register(buffer, Harness.access(LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE));
        FakeBackend.FakeMr mr = h.backend.liveRegions.iterator().next();
        assertEquals(VerbsConstants.ACCESS_LOCAL_WRITE | VerbsConstants.ACCESS_REMOTE_READ
                | VerbsConstants.ACCESS_REMOTE_WRITE, mr.access());
        assertEquals(512, mr.length(), "exactly position..limit is registered");
        assertEquals(mr.remoteKey(), region.token());
        assertEquals(mr.localKey(), region.localKey());
        assertEquals(mr.address(), region.address());
        assertEquals(512, region.length());
        assertEquals(0, region.buffer().position());
        assertEquals(512, region.buffer().limit());
        assertTrue(region.isValid());
        assertEquals(Harness.access(LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE), region.access());
    }

    @Test
    void readOnlyRegistrationHasNoLocalWriteFlag() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ep.register(Harness.direct(64), Harness.access(REMOTE_READ));
        assertEquals(VerbsConstants.ACCESS_REMOTE_READ, h.backend.liveRegions.iterator().next().access());
    }

    @Test
    void remoteWriteWithoutLocalWriteIsRefusedBeforeTheDevice() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        RdmaException e = assertThrows(RdmaException.class,
                () -> ep.register(Harness.direct(64), Harness.access(REMOTE_WRITE)));
        assertTrue(e.getMessage().contains("REMOTE_WRITE requires LOCAL_WRITE"), e.getMessage());
        assertFalse(h.backend.calls.contains("register"));
    }

    @Test
    void heapAndEmptyBuffersAreRefused() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        RdmaException heap = assertThrows(RdmaException.class,
                () -> ep.register(ByteBuffer.allocate(64), Harness.access(LOCAL_WRITE)));
        assertTrue(heap.getMessage().contains("direct"), heap.getMessage());
        ByteBuffer empty = Harness.direct(64);
        empty.position(64);
        assertThrows(RdmaException.class, () -> ep.register(empty, Harness.access(LOCAL_WRITE)));
    }

    @Test
    void registrationFailureNamesTheVerbAndRegistersNothing() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        h.backend.failOn = "register";
        RdmaException e = assertThrows(RdmaException.class,
                () -> ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE)));
        assertTrue(e.getMessage().contains("ibv_reg_mr"), e.getMessage());
        assertEquals(0, ep.registeredRegions());
    }

    @Test
    void deregisterReleasesTheMrOnceAndInvalidatesTheRegion() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.deregister(region);
        assertFalse(region.isValid());
        assertTrue(h.backend.liveRegions.isEmpty());
        ep.deregister(region);
        assertEquals(1, h.backend.calls.stream().filter("deregister"::equals).count());
        RdmaException e = assertThrows(RdmaException.class, () -> ep.postReceive(region, 0, 8, 1L));
        assertTrue(e.getMessage().contains("deregistered"), e.getMessage());
    }

    @Test
    void closeDeregistersEveryRegionStillRegistered() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE, REMOTE_READ));
        MemoryRegion gone = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.deregister(gone);
        ep.close();
        assertTrue(h.backend.liveRegions.isEmpty(), "CVE-2026-23093 lesson: deregister exactly what was registered");
        assertEquals(3, h.backend.calls.stream().filter("deregister"::equals).count());
        assertEquals(0, ep.registeredRegions());
        assertTrue(h.backend.destroyedQps.contains(Harness.qp(ep)));
    }

    @Test
    void localInvalidateDeregistersWhenTheSendQueueReachesItAndCompletesInOrder() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion data = ep.register(Harness.direct(4096), Harness.access(LOCAL_WRITE, REMOTE_WRITE));
        MemoryRegion send = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postSend(send, 0, 64, 1L);
        ep.postLocalInvalidate(data, 2L);
        h.pump();
        assertTrue(data.isValid(), "the Send before it has not completed yet");
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_SUCCESS, VerbsConstants.WC_SEND, 0, 0);
        h.pump();
        assertFalse(data.isValid());
        assertEquals(List.of(
                new RecordingHandler.Completion(1L, WorkRequestType.SEND, CompletionStatus.SUCCESS, 0, false, 0, 0),
                new RecordingHandler.Completion(2L, WorkRequestType.LOCAL_INVALIDATE, CompletionStatus.SUCCESS, 0,
                        false, 0, 0)), handler.completions);
        assertEquals(1, h.backend.liveRegions.size());
        ep.deregister(data);
        assertEquals(1, h.backend.calls.stream().filter("deregister"::equals).count(),
                "deregister after the invalidate only drops the bookkeeping");
    }

    @Test
    void localInvalidateOnAnIdleSendQueueCompletesOnTheCompletionThread() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion data = ep.register(Harness.direct(4096), Harness.access(LOCAL_WRITE, REMOTE_READ));
        ep.postLocalInvalidate(data, 5L);
        assertEquals(List.of(), handler.completions, "not delivered inside the post");
        h.pump();
        assertEquals(WorkRequestType.LOCAL_INVALIDATE, handler.completions.get(0).type());
        assertFalse(data.isValid());
        assertEquals(0, ep.outstandingSends());
    }
}
