package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.rdma.TransportType;
import smbdirect.impl.wire.IrdOrdHeader;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.impl.wire.SmbdWire;

/** The passive side: 3.1.7.2, 3.1.5.6, 3.1.5.3, listener caps and budget. */
class PassiveEstablishmentTest {

    final Harness h = new Harness();

    private FakeEndpoint arrive() {
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        return e;
    }

    @Test
    void R_3_1_7_2_05_initialReceivePostedBeforeAccept() {
        FakeEndpoint e = h.request(null).endpoint;
        int recv = e.events.indexOf("postReceive:512");
        int accept = e.events.indexOf("accept");
        assertTrue(recv >= 0 && accept > recv, e.events.toString());
        assertTrue(h.accepted.isEmpty(), "A-41: the upper layer is told only after negotiation");
    }

    @Test
    @DisplayName("R-2.2.2-01 R-2.2.2-02 R-2.2.2-03 R-2.2.2-04 R-2.2.2-10 R-3.1.5.3-01 R-3.1.5.3-16 R-3.1.5.6-16 R-3.1.5.6-18 R-3.1.5.6-21 R-3.1.5.5-01 R-3.1.5.1-01: success response")
    void R_3_1_5_3_successResponseFieldsAnd_R_3_1_5_6_sizeReductions() {
        FakeEndpoint e = arrive();
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        assertEquals(1, e.sends.size(), "peer-lessons 5: the first message out is the Negotiate Response");
        ByteBuffer r = e.sends.get(0).message();
        assertEquals(32, r.remaining());
        assertEquals(0x100, NegotiateResponse.minVersion(r, 0)); // R-3.1.5.3-02
        assertEquals(0x100, NegotiateResponse.maxVersion(r, 0)); // R-3.1.5.3-03
        assertEquals(0, NegotiateResponse.reserved(r, 0)); // R-3.1.5.3-04
        assertEquals(0, NegotiateResponse.status(r, 0)); // R-3.1.5.3-05, R-2.2.2-08
        assertEquals(0x100, NegotiateResponse.negotiatedVersion(r, 0)); // R-3.1.5.3-09, R-2.2.2-05
        assertEquals(255, NegotiateResponse.creditsRequested(r, 0)); // R-3.1.5.3-10
        assertEquals(10, NegotiateResponse.creditsGranted(r, 0), "R-3.1.5.3-11, A-18: bounded by the request");
        assertEquals(8 << 20, NegotiateResponse.maxReadWriteSize(r, 0)); // R-3.1.5.3-12
        assertEquals(1024, NegotiateResponse.preferredSendSize(r, 0), "R-3.1.5.3-13, R-3.1.5.6-14, R-2.2.2-09");
        assertEquals(1024, NegotiateResponse.maxReceiveSize(r, 0), "R-3.1.5.3-14, R-3.1.5.6-10");
        assertEquals(1 << 20, NegotiateResponse.maxFragmentedSize(r, 0)); // R-3.1.5.3-15
        assertEquals(1, h.accepted.size(), "R-3.1.5.6-19, R-3.1.7.2-11");
        Connection c = (Connection) h.accepted.get(0);
        assertEquals(Role.ESTABLISHED, c.negotiation.role(), "R-3.1.5.6-22");
        assertEquals(131072, c.negotiation.maxFragmentedSendSize(), "R-3.1.5.6-15");
        assertEquals(10, c.credits.receiveCreditTarget(), "R-3.1.5.6-13");
        assertEquals(0, c.credits.sendCredits(), "A-14: no Send Credit before the first Data Transfer");
        assertEquals(0x100, c.negotiation.protocol(), "R-3.1.5.6-12");
        assertEquals(0, h.scheduler.pending() - 1, "R-3.1.5.6-20, -21: only the idle timer is armed");
    }

    @Test
    void R_3_1_5_6_11_maxReceiveSizeFloor128() {
        FakeEndpoint e = arrive();
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 0, 1024, 131072));
        assertEquals(128, NegotiateResponse.maxReceiveSize(e.sends.get(0).message(), 0));
    }

    @Test
    void A_11_trailingBytesAfterTheRequestAreAccepted() {
        FakeEndpoint e = arrive();
        ByteBuffer b = Harness.le(512);
        b.put(0, Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072), 0, 20);
        e.deliver(b);
        assertEquals(0, NegotiateResponse.status(e.sends.get(0).message(), 0));
    }

    @Test
    @DisplayName("R-3.1.5.6-04 R-3.1.5.3-07 R-3.1.5.3-08: failure response then close")
    void R_3_1_5_6_04_versionOutsideRangeGetsNotSupportedThenClose() {
        FakeEndpoint e = arrive();
        e.deliver(Harness.negRequest(0x200, 0x200, 10, 1024, 1024, 131072));
        assertEquals(1, e.sends.size());
        ByteBuffer r = e.sends.get(0).message();
        assertEquals(SmbdWire.STATUS_NOT_SUPPORTED, NegotiateResponse.status(r, 0));
        assertEquals(0, NegotiateResponse.negotiatedVersion(r, 0), "R-3.1.5.3-06");
        assertEquals(0, NegotiateResponse.creditsGranted(r, 0), "R-3.1.5.3-06");
        assertEquals(0, NegotiateResponse.maxReceiveSize(r, 0), "R-3.1.5.3-06");
        assertFalse(e.disconnectCalled, "the failure response goes out first");
        e.completeSends();
        assertTrue(e.disconnectCalled, "R-3.1.5.3-08: graceful termination after the response");
        assertTrue(h.accepted.isEmpty());
        h.provider.assertNoLeaks();
        assertEquals(1, h.listener.getListenerDTO().negotiationFailures);
        assertEquals(0, h.listener.getListenerDTO().negotiating);
    }

    @Test
    void A_2_versionFailureWinsOverSizeFailure() {
        FakeEndpoint e = arrive();
        e.deliver(Harness.negRequest(0x200, 0x200, 0, 1024, 1, 1));
        assertEquals(SmbdWire.STATUS_NOT_SUPPORTED, NegotiateResponse.status(e.sends.get(0).message(), 0));
    }

    @Test
    void R_3_1_5_6_05_rangeContaining0100IsAccepted() {
        FakeEndpoint e = arrive();
        e.deliver(Harness.negRequest(0x000, 0x200, 10, 1024, 1024, 131072));
        assertEquals(0, NegotiateResponse.status(e.sends.get(0).message(), 0));
    }

    @SuppressWarnings("removal") // the deprecated lastNegotiationFailure still works
    @Test
    void R_3_1_5_6_09_sizeAndCreditViolationsTerminateWithoutResponse() {
        Object[][] cases = {
            {Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072).limit(19), "R-3.1.5.6-01"},
            {Harness.negRequest(0x100, 0x100, 0, 1024, 1024, 131072), "R-3.1.5.6-06"},
            {Harness.negRequest(0x100, 0x100, 10, 1024, 127, 131072), "R-3.1.5.6-07"},
            {Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131071), "R-3.1.5.6-08"},
        };
        for (Object[] c : cases) {
            Harness hh = new Harness();
            FakeEndpoint e = hh.request(null).endpoint;
            e.establish();
            e.deliver((ByteBuffer) c[0]);
            assertTrue(e.sends.isEmpty(), "R-3.1.5.6-02 / -09: no response for " + c[1]);
            assertTrue(e.disconnectCalled);
            hh.provider.assertNoLeaks();
            assertTrue(hh.accepted.isEmpty());
            String last = hh.engine.getTransportDTO().lastNegotiationFailure;
            assertTrue(last.contains((String) c[1]), last);
        }
    }

    @Test
    void A_7_boundaryValuesAreAccepted() {
        FakeEndpoint e = arrive();
        e.deliver(Harness.negRequest(0x100, 0x100, 0xFFFF, 0xFFFFFFFFL, 128, 131072));
        ByteBuffer r = e.sends.get(0).message();
        assertEquals(0, NegotiateResponse.status(r, 0));
        assertEquals(255, NegotiateResponse.creditsGranted(r, 0), "A-20: capped to ReceiveCreditMax");
        assertEquals(128, NegotiateResponse.preferredSendSize(r, 0), "R-3.1.5.6-14: min(1364, 128)");
    }

    @SuppressWarnings("removal") // the deprecated lastNegotiationFailure still works
    @Test
    void R_3_1_7_2_03_passiveNegotiationTimerIs5Seconds() {
        FakeEndpoint e = arrive();
        h.scheduler.advance(Duration.ofMillis(4999));
        assertFalse(e.disconnectCalled);
        h.scheduler.advance(Duration.ofMillis(1));
        assertTrue(e.disconnectCalled, "R-3.1.6.1-01");
        h.provider.assertNoLeaks();
        assertTrue(h.engine.getTransportDTO().lastNegotiationFailure.contains("NEGOTIATION_TIMEOUT"));
    }

    @Test
    void negotiatingAfter4SecondsStillWorks() {
        FakeEndpoint e = arrive();
        h.scheduler.advance(Duration.ofSeconds(4));
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        assertEquals(1, h.accepted.size());
        h.scheduler.advance(Duration.ofSeconds(10));
        assertFalse(e.disconnectCalled, "the Negotiation Timer was cancelled (R-3.1.5.6-20)");
    }

    @Test
    void maxNegotiatingPerListenerRejectsBeyondTheCap() {
        Harness hh = new Harness(TransportSettings.builder().maxNegotiatingPerListener(2).build());
        hh.request(null);
        hh.request(null);
        FakeProvider.FakeRequest third = hh.request(null);
        assertTrue(third.rejected);
        assertEquals(1, hh.listener.getListenerDTO().refused);
        assertEquals(2, hh.listener.getListenerDTO().negotiating);
    }

    @Test
    void maxConnectionsPerListenerRejectsBeyondTheCap() {
        Harness hh = new Harness(TransportSettings.builder().maxConnectionsPerListener(1).build());
        hh.passive(10, 1024, 1024, 131072);
        FakeProvider.FakeRequest second = hh.request(null);
        assertTrue(second.rejected);
        assertEquals(1, hh.listener.getListenerDTO().connections);
    }

    @Test
    void receiveBufferBudgetRefusesCleanlyAndIsReleasedOnClose() {
        TransportSettings s = TransportSettings.builder().receiveCreditMax(10).maxReceiveSize(1024)
                .receiveBufferBudget(12 * 1024).build();
        Harness hh = new Harness(s);
        Connection c = hh.passive(10, 1024, 1024, 131072);
        FakeProvider.FakeRequest second = hh.request(null);
        assertTrue(second.rejected, "budget exhausted");
        assertTrue(hh.engine.connect(Harness.PEER, Duration.ofSeconds(1), hh.recorder).toCompletableFuture()
                .isCompletedExceptionally(), "the active side is refused too");
        c.close();
        assertEquals(0, hh.engine.budgetUsed());
        assertFalse(hh.request(null).rejected, "budget available again");
    }

    @Test
    void acceptHandlerReturningNullClosesLocally() throws Exception {
        h.listener = h.engine.listen(Harness.PEER, c -> null);
        FakeProvider.FakeRequest r = h.provider.new FakeRequest(Harness.PEER, null, 8, 8);
        h.provider.listeners.get(0).handler.onConnectRequest(r);
        r.endpoint.establish();
        r.endpoint.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        r.endpoint.completeSends();
        assertTrue(r.endpoint.disconnectCalled);
        h.provider.assertNoLeaks();
        assertEquals(CloseReason.Kind.LOCAL_CLOSE.name(),
                h.engine.getTransportDTO().recentlyClosed[0].closeReason.split(":")[0]);
    }

    @Test
    void R_6_2_01_iwarpHeaderIsReadAndEchoedWithTheMinimum() {
        h.provider.transportType = TransportType.IWARP;
        ByteBuffer pd = ByteBuffer.allocate(8);
        IrdOrdHeader.encode(pd, 0, 4, 2);
        FakeProvider.FakeRequest r = h.request(pd);
        ByteBuffer reply = r.endpoint.acceptParameters.privateData();
        assertEquals(8, reply.remaining());
        assertEquals(2, IrdOrdHeader.ird(reply, 0), "R-6.2-02: our IRD bounded by the requester's ORD");
        assertEquals(4, IrdOrdHeader.ord(reply, 0), "R-6.2-02: our ORD bounded by the requester's IRD");
        assertEquals(2, r.endpoint.acceptParameters.inboundReadDepth(), "R-6.2-04");
    }

    @Test
    @DisplayName("R-6-01: the depths the provider reports after establishment bound the passive side's RDMA Reads")
    void R_6_01_depthsTheProviderNegotiatedBoundThePassiveSide() {
        FakeProvider.FakeRequest r = h.request(null);
        FakeEndpoint e = r.endpoint;
        assertTrue(r.endpoint.acceptParameters.outboundReadDepth() > 3, "asked for more at accept");
        e.ord = 3;
        e.ird = 2;
        e.establish();
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        e.completeSends();
        Connection c = (Connection) h.accepted.get(0);
        assertEquals(3, c.parameters().outboundReadDepth(), "ORD as the provider negotiated it");
        assertEquals(2, c.parameters().inboundReadDepth(), "IRD as the provider negotiated it");
    }

    @Test
    @DisplayName("R-6.2-01 / A-45: cifs's little-endian header (IRD 32, ORD 1) bounds our depths; the echo is big-endian")
    void R_6_2_01_A_45_littleEndianHeaderOfLinuxCifsIsReadAndEchoedBigEndian() {
        h.provider.transportType = TransportType.IWARP;
        ByteBuffer pd = ByteBuffer.wrap(new byte[] {0x20, 0, 0, 0, 1, 0, 0, 0});
        FakeProvider.FakeRequest r = h.request(pd);
        assertFalse(r.rejected);
        ByteBuffer reply = r.endpoint.acceptParameters.privateData();
        assertEquals(8, reply.remaining());
        assertEquals(1, reply.getInt(0), "R-6.2-02: our IRD bounded by the requester's ORD 1, written big-endian");
        assertTrue(reply.getInt(4) >= 1 && reply.getInt(4) <= 32, "R-6.2-02: our ORD bounded by the requester's IRD 32");
        assertEquals(1, r.endpoint.acceptParameters.inboundReadDepth(), "R-6.2-04");
    }

    @Test
    void R_6_1_02_headerWithZeroDepthsIsNotTrusted() {
        h.provider.transportType = TransportType.IWARP;
        ByteBuffer pd = ByteBuffer.allocate(8);
        IrdOrdHeader.encode(pd, 0, 0, 0);
        FakeProvider.FakeRequest r = h.request(pd);
        assertFalse(r.rejected, "an invalid header (IRD/ORD must be > 0) is ignored: the CM values apply");
        assertEquals(0, r.endpoint.acceptParameters.privateData().remaining(), "no header echoed");
    }

    @Test
    void R_6_2_03_zeroResultingDepthRejects() {
        h.provider.capabilities = new smbdirect.api.rdma.RdmaCapabilities(1024, 1024, 4, 64, 1 << 30, 0, 16,
                1L << 32, true);
        FakeProvider.FakeRequest r = h.request(null);
        assertTrue(r.rejected);
        assertEquals(0, h.engine.connectionCount());
        assertEquals(0, h.engine.budgetUsed());
    }

    @Test
    void R_3_1_7_2_06_failedInitialReceiveRejects() {
        h.provider.failCreateEndpoint = true;
        FakeProvider.FakeRequest r = h.request(null);
        assertTrue(r.rejected);
        assertEquals(0, h.engine.connectionCount());
        assertEquals(0, h.engine.budgetUsed());
    }

    @Test
    void acceptHandlerThrowingClosesTheConnection() throws Exception {
        h.listener = h.engine.listen(Harness.PEER, c -> {
            throw new IllegalStateException("upper layer not ready");
        });
        FakeProvider.FakeRequest r = h.provider.new FakeRequest(Harness.PEER, null, 8, 8);
        h.provider.listeners.get(0).handler.onConnectRequest(r);
        r.endpoint.establish();
        r.endpoint.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        assertTrue(r.endpoint.disconnectCalled);
        h.provider.assertNoLeaks();
        assertEquals(0, h.engine.connectionCount());
    }

    @Test
    void listenFailureAndListenAfterShutdownAreReported() {
        h.provider.failListen = true;
        smbdirect.api.SmbDirectException x = org.junit.jupiter.api.Assertions.assertThrows(
                smbdirect.api.SmbDirectException.class, () -> h.engine.listen(Harness.PEER, c -> h.recorder));
        assertEquals(smbdirect.api.SmbDirectException.Kind.PROVIDER_ERROR, x.kind());
        assertTrue(x.getMessage().contains("address in use"));
        h.provider.failListen = false;
        h.engine.shutdown(CloseReason.of(CloseReason.Kind.PROVIDER_GONE, "gone"));
        smbdirect.api.SmbDirectException y = org.junit.jupiter.api.Assertions.assertThrows(
                smbdirect.api.SmbDirectException.class, () -> h.engine.listen(Harness.PEER, c -> h.recorder));
        assertEquals(CloseReason.Kind.PROVIDER_GONE, y.closeReason().kind());
    }

    @Test
    void listenerCloseStopsAcceptingAndKeepsConnections() {
        Connection c = h.passive(10, 1024, 1024, 131072);
        h.listener.close();
        assertFalse(h.listener.isOpen());
        assertTrue(h.provider.listeners.get(0).closed);
        FakeProvider.FakeRequest late = h.provider.new FakeRequest(Harness.PEER, null, 8, 8);
        h.provider.listeners.get(0).handler.onConnectRequest(late);
        assertTrue(late.rejected);
        assertTrue(c.isOpen(), "accepted connections are not affected");
        assertEquals("CLOSED", h.listener.getListenerDTO().state);
    }
}
