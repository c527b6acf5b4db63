package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE;
import static smbdirect.api.rdma.MemoryAccess.REMOTE_READ;
import static smbdirect.api.rdma.MemoryAccess.REMOTE_WRITE;

import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;

/** Verbs work completions become SPI completions: wrId, type, status, byte length, invalidation. */
class CompletionTranslationTest {

    private final Harness h = new Harness();
    private final RecordingHandler handler = new RecordingHandler();

    @Test
    void receiveCompletionCarriesCallerWrIdAndByteLength() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(8192), Harness.access(LOCAL_WRITE));
        ep.postReceive(region, 0, 8192, 1001L);
        h.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 148, 0, 0);
        h.pump();
        RecordingHandler.Completion c = handler.completions.get(0);
        assertEquals(new RecordingHandler.Completion(1001L, WorkRequestType.RECEIVE, CompletionStatus.SUCCESS, 148,
                false, 0, 0), c);
        assertEquals(0, ep.outstandingReceives());
    }

    @Test
    void sendRdmaWriteAndReadCompletionsInPostOrderWithTransferredBytes() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(8192), Harness.access(LOCAL_WRITE));
        ep.postSend(region, 0, 100, 1L);
        ep.postRdmaWrite(region, 0, 4096, 0x1000, 5, 2L);
        ep.postRdmaRead(region, 4096, 2048, 0x2000, 5, 3L);
        FakeBackend.FakeQp qp = Harness.qp(ep);
        // verbs leaves byte_len undefined for sends and writes: the provider reports what was asked for RDMA
        h.backend.completeSend(qp, VerbsConstants.WC_SUCCESS, VerbsConstants.WC_SEND, 999, 0);
        h.backend.completeSend(qp, VerbsConstants.WC_SUCCESS, VerbsConstants.WC_RDMA_WRITE, 0, 0);
        h.backend.completeSend(qp, VerbsConstants.WC_SUCCESS, VerbsConstants.WC_RDMA_READ, 2048, 0);
        h.pump();
        assertEquals(List.of(
                new RecordingHandler.Completion(1L, WorkRequestType.SEND, CompletionStatus.SUCCESS, 0, false, 0, 0),
                new RecordingHandler.Completion(2L, WorkRequestType.RDMA_WRITE, CompletionStatus.SUCCESS, 4096, false,
                        0, 0),
                new RecordingHandler.Completion(3L, WorkRequestType.RDMA_READ, CompletionStatus.SUCCESS, 2048, false,
                        0, 0)), handler.completions);
    }

    @Test
    void theCompletionObjectIsOneReusedFlyweight() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postReceive(region, 0, 64, 1L);
        ep.postReceive(region, 0, 64, 2L);
        h.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 10, 0, 0);
        h.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 20, 0, 0);
        h.pump();
        assertSame(handler.flyweights.get(0), handler.flyweights.get(1));
        assertEquals(2L, handler.flyweights.get(1).wrId());
    }

    @Test
    void receiveWithInvalidateReportsTheTokenAndInvalidatesTheLocalRegion() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion exposed = ep.register(Harness.direct(4096), Harness.access(LOCAL_WRITE, REMOTE_WRITE));
        MemoryRegion receive = ep.register(Harness.direct(1024), Harness.access(LOCAL_WRITE));
        ep.postReceive(receive, 0, 1024, 4L);
        h.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 80, VerbsConstants.WC_WITH_INV,
                exposed.token());
        h.pump();
        RecordingHandler.Completion c = handler.completions.get(0);
        assertTrue(c.hasInvalidatedToken());
        assertEquals(exposed.token(), c.invalidatedToken());
        assertFalse(exposed.isValid());
        assertTrue(receive.isValid());
    }

    @Test
    void immediateDataWithoutTheInvalidateFlagIsNotAnInvalidation() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE, REMOTE_READ));
        ep.postReceive(region, 0, 64, 4L);
        h.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 8, 2 /* IBV_WC_WITH_IMM */, region.token());
        h.pump();
        assertFalse(handler.completions.get(0).hasInvalidatedToken());
        assertTrue(region.isValid());
    }

    @Test
    void failedCompletionTakesItsTypeFromThePostedRequestNotTheUndefinedOpcode() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postRdmaRead(region, 0, 64, 0x10, 9, 12L);
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_REM_ACCESS_ERR, 0x7F, 0, 0x8A);
        h.pump();
        RecordingHandler.Completion c = handler.completions.get(0);
        assertEquals(WorkRequestType.RDMA_READ, c.type());
        assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, c.status());
        assertEquals(0, c.byteLength());
        assertEquals(0x8A, c.vendorError());
    }

    @Test
    void aFailedCompletionBreaksTheConnectionAndDisconnectedComesAfterTheFlushes() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postReceive(region, 0, 64, 1L);
        ep.postReceive(region, 0, 64, 2L);
        ep.postSend(region, 0, 64, 3L);
        FakeBackend.FakeQp qp = Harness.qp(ep);
        h.backend.completeSend(qp, VerbsConstants.WC_RNR_RETRY_EXC_ERR, 0, 0, 0);
        h.pump();
        assertEquals(CompletionStatus.RECEIVER_NOT_READY, handler.completions.get(0).status());
        assertEquals(1, qp.id.disconnects, "rdma_disconnect moves the queue pair to error and tells the peer");
        // the failure put the queue pair in error: the two receives complete as FLUSHED at once, in order
        assertEquals(3, handler.completions.size());
        assertEquals(1L, handler.completions.get(1).wrId());
        RdmaException e = assertThrows(RdmaException.class, () -> ep.postSend(region, 0, 8, 4L));
        assertTrue(e.getMessage().contains("DISCONNECTED"), e.getMessage());
        h.backend.flush(qp);
        h.pump();
        assertEquals(3, handler.completions.size(), "the device's late flushes add nothing");
        assertEquals(CompletionStatus.FLUSHED, handler.completions.get(1).status());
        assertEquals(WorkRequestType.RECEIVE, handler.completions.get(2).type());
        assertEquals(1, handler.disconnects);
        assertEquals(DisconnectCause.QP_ERROR, handler.cause);
        assertTrue(handler.detail.contains("IBV_WC_RNR_RETRY_EXC_ERR"), handler.detail);
        assertEquals(List.of(), handler.violations);
    }

    @Test
    void transportRetryExceededEndsAsPeerLost() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postSend(region, 0, 64, 3L);
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_RETRY_EXC_ERR, 0, 0, 0);
        h.pump();
        assertEquals(CompletionStatus.TRANSPORT_RETRY_EXCEEDED, handler.completions.get(0).status());
        assertEquals(DisconnectCause.PEER_LOST, handler.cause);
    }

    @Test
    void aCompletionOfAClosedEndpointIsDroppedEvenIfItsSlotIsReused() throws Exception {
        // another endpoint keeps the device's group (and its completion queue) alive
        h.established(new RecordingHandler(), 4, 4);
        VerbsEndpoint old = h.established(handler, 4, 4);
        MemoryRegion region = old.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        old.postReceive(region, 0, 64, 1L);
        FakeBackend.FakeQp oldQp = Harness.qp(old);
        old.close();
        RecordingHandler second = new RecordingHandler();
        VerbsEndpoint reused = h.activeEndpoint(second, 4, 4);
        assertEquals(old.key() & 0xFFFF, reused.key() & 0xFFFF, "slot reused");
        MemoryRegion r2 = reused.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        reused.postReceive(r2, 0, 64, 2L);
        h.backend.completeRecv(oldQp, VerbsConstants.WC_WR_FLUSH_ERR, 0, 0, 0);
        h.pump();
        assertEquals(List.of(), second.completions);
        assertEquals(List.of(), handler.completions);
        assertEquals(1, reused.outstandingReceives());
    }
}
