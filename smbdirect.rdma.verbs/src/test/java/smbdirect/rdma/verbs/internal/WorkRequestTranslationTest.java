package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE;
import static smbdirect.api.rdma.MemoryAccess.REMOTE_READ;
import static smbdirect.api.rdma.MemoryAccess.REMOTE_WRITE;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;

/** Every SPI post becomes exactly one verbs work request with the right fields. */
class WorkRequestTranslationTest {

    private final Harness h = new Harness();
    private final RecordingHandler handler = new RecordingHandler();

    @Test
    void postSendBecomesSignalledSendWithOneSgeOfTheRegionSlice() throws Exception {
        VerbsEndpoint ep = h.established(handler, 8, 8);
        MemoryRegion region = ep.register(Harness.direct(4096), Harness.access(LOCAL_WRITE));
        ep.postSend(region, 100, 1364, 77L);
        FakeBackend.Send s = h.backend.sends.get(0);
        assertEquals(VerbsConstants.WR_SEND, s.opcode());
        assertEquals(VerbsConstants.SEND_SIGNALED, s.sendFlags());
        assertEquals(region.address() + 100, s.sgeAddress());
        assertEquals(1364, s.sgeLength());
        assertEquals(region.localKey(), s.sgeLocalKey());
        assertEquals(((long) ep.key()) << 32, s.wrId(), "wr_id carries the endpoint key, not the caller's wrId");
        assertEquals(0, s.wrId() & VerbsEndpoint.RECEIVE_FLAG);
        assertEquals(1, ep.outstandingSends());
    }

    @Test
    void postRdmaWriteCarriesRemoteAddressAndToken() throws Exception {
        VerbsEndpoint ep = h.established(handler, 8, 8);
        MemoryRegion region = ep.register(Harness.direct(8192), Harness.access(LOCAL_WRITE));
        ep.postRdmaWrite(region, 4096, 4096, 0x1234_5678_9000L, 0xBEEF, 5L);
        FakeBackend.Send s = h.backend.sends.get(0);
        assertEquals(VerbsConstants.WR_RDMA_WRITE, s.opcode());
        assertEquals(region.address() + 4096, s.sgeAddress());
        assertEquals(4096, s.sgeLength());
        assertEquals(0x1234_5678_9000L, s.remoteAddress());
        assertEquals(0xBEEF, s.remoteKey());
        assertEquals(VerbsConstants.SEND_SIGNALED, s.sendFlags());
    }

    @Test
    void postRdmaReadCarriesRemoteAddressAndToken() throws Exception {
        VerbsEndpoint ep = h.established(handler, 8, 8);
        MemoryRegion region = ep.register(Harness.direct(8192), Harness.access(LOCAL_WRITE, REMOTE_WRITE));
        ep.postRdmaRead(region, 0, 8192, 0x42_0000L, 0x1111, 6L);
        FakeBackend.Send s = h.backend.sends.get(0);
        assertEquals(VerbsConstants.WR_RDMA_READ, s.opcode());
        assertEquals(region.address(), s.sgeAddress());
        assertEquals(8192, s.sgeLength());
        assertEquals(region.localKey(), s.sgeLocalKey());
        assertEquals(0x42_0000L, s.remoteAddress());
        assertEquals(0x1111, s.remoteKey());
    }

    @Test
    void postReceiveBecomesSingleSgeReceiveWithReceiveFlagInWrId() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(8192), Harness.access(LOCAL_WRITE));
        ep.postReceive(region, 1024, 1364, 9L);
        FakeBackend.Recv r = h.backend.recvs.get(0);
        assertEquals(region.address() + 1024, r.address());
        assertEquals(1364, r.length());
        assertEquals(region.localKey(), r.localKey());
        assertEquals((((long) ep.key()) << 32) | VerbsEndpoint.RECEIVE_FLAG, r.wrId());
        assertEquals(1, ep.outstandingReceives(), "receives may be posted before connect (3.1.4.1)");
    }

    @Test
    void sendWithInvalidateIsRefusedWhenNotConfigured() throws Exception {
        VerbsEndpoint ep = h.established(handler, 8, 8);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        assertEquals(false, ep.capabilities().sendWithInvalidate());
        RdmaException e = assertThrows(RdmaException.class, () -> ep.postSendWithInvalidate(region, 0, 64, 0x77, 1L));
        assertTrue(e.getMessage().contains("sendWithInvalidate"), e.getMessage());
        assertTrue(h.backend.sends.isEmpty());
    }

    @Test
    void sendWithInvalidateUsesRawOpcode9AndTheTokenInTheImmDataUnion() throws Exception {
        Harness inv = new Harness(Harness.withSendWithInvalidate());
        VerbsEndpoint ep = inv.established(handler, 8, 8);
        assertTrue(ep.capabilities().sendWithInvalidate());
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postSendWithInvalidate(region, 8, 56, 0xCAFE, 3L);
        FakeBackend.Send s = inv.backend.sends.get(0);
        assertEquals(9, s.opcode());
        assertEquals(0xCAFE, s.invalidateKey());
        assertEquals(region.address() + 8, s.sgeAddress());
        assertEquals(56, s.sgeLength());
    }

    @Test
    void sendsAreRefusedBeforeTheConnectionIsEstablished() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        RdmaException e = assertThrows(RdmaException.class, () -> ep.postSend(region, 0, 64, 1L));
        assertTrue(e.getMessage().contains("IDLE"), e.getMessage());
        assertThrows(RdmaException.class, () -> ep.postRdmaWrite(region, 0, 64, 0, 1, 1L));
        assertThrows(RdmaException.class, () -> ep.postRdmaRead(region, 0, 64, 0, 1, 1L));
        assertTrue(h.backend.sends.isEmpty());
    }

    @Test
    void fullSendQueueIsRefusedWithTheConfiguredDepth() throws Exception {
        VerbsEndpoint ep = h.established(handler, 2, 2);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postSend(region, 0, 8, 1L);
        ep.postSend(region, 8, 8, 2L);
        RdmaException e = assertThrows(RdmaException.class, () -> ep.postSend(region, 16, 8, 3L));
        assertTrue(e.getMessage().contains("sendQueueDepth"), e.getMessage());
        assertEquals(2, h.backend.sends.size());
    }

    @Test
    void fullReceiveQueueIsRefused() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 2, 1);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postReceive(region, 0, 64, 1L);
        RdmaException e = assertThrows(RdmaException.class, () -> ep.postReceive(region, 0, 64, 2L));
        assertTrue(e.getMessage().contains("receiveQueueDepth"), e.getMessage());
    }

    @Test
    void outOfBoundsSliceIsRefusedNamingOffsetAndLength() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(100), Harness.access(LOCAL_WRITE));
        RdmaException e = assertThrows(RdmaException.class, () -> ep.postSend(region, 90, 20, 1L));
        assertTrue(e.getMessage().contains("offset 90 + length 20"), e.getMessage());
        assertThrows(RdmaException.class, () -> ep.postReceive(region, -1, 10, 1L));
    }

    @Test
    void regionOfAnotherEndpointIsRefused() throws Exception {
        VerbsEndpoint a = h.established(handler, 4, 4);
        VerbsEndpoint b = h.established(new RecordingHandler(), 4, 4);
        MemoryRegion foreign = b.register(Harness.direct(64), Harness.access(LOCAL_WRITE, REMOTE_READ));
        RdmaException e = assertThrows(RdmaException.class, () -> a.postSend(foreign, 0, 8, 1L));
        assertTrue(e.getMessage().contains("not registered on this endpoint"), e.getMessage());
    }

    @Test
    void failedNativePostLeavesNothingOutstanding() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        h.backend.failOn = "postSend";
        RdmaException e = assertThrows(RdmaException.class, () -> ep.postSend(region, 0, 8, 1L));
        assertTrue(e.getMessage().contains("ibv_post_send"), e.getMessage());
        assertEquals(0, ep.outstandingSends());
        h.backend.failOn = "postRecv";
        assertThrows(RdmaException.class, () -> ep.postReceive(region, 0, 8, 1L));
        assertEquals(0, ep.outstandingReceives());
    }

    @Test
    void theSendRequestIsReusedForEveryPost() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        FakeBackend spy = h.backend;
        ep.postSend(region, 0, 8, 1L);
        ep.postRdmaWrite(region, 0, 8, 0x10, 2, 2L);
        // the fake copies the fields; a stale field would show up in the second copy
        assertEquals(0, spy.sends.get(0).remoteAddress());
        assertEquals(0x10, spy.sends.get(1).remoteAddress());
        assertEquals(0, spy.sends.get(1).invalidateKey());
    }
}
