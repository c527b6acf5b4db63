package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.TransportType;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.IrdOrdHeader;
import smbdirect.impl.wire.NegotiateRequest;

/** The active side: 3.1.4.1, 3.1.5.2, 3.1.5.7 and the first Data Transfer message. */
class ActiveEstablishmentTest {

    final Harness h = new Harness();

    private static CloseReason failure(CompletableFuture<SmbDirectConnection> f) {
        assertTrue(f.isCompletedExceptionally(), "connect failed");
        try {
            f.join();
            throw new AssertionError("not failed");
        } catch (CompletionException e) {
            SmbDirectException x = assertInstanceOf(SmbDirectException.class, e.getCause());
            assertEquals(SmbDirectException.Kind.CONNECT_FAILED, x.kind());
            return x.closeReason();
        }
    }

    @Test
    @DisplayName("R-3.1.4.1-01 R-3.1.4.1-11: initial receive before connecting")
    void R_3_1_4_1_11_initialReceiveOf512PostedBeforeConnect() {
        h.connect();
        FakeEndpoint e = h.provider.last();
        int recv = e.events.indexOf("postReceive:512");
        int connect = e.events.indexOf("connect");
        assertTrue(recv >= 0 && connect > recv, e.events.toString());
        assertEquals(1, e.receives.size(), "R-3.1.4.1-11: exactly one receive before negotiation");
    }

    @Test
    @DisplayName("R-2.2.1-01 R-2.2.1-02 R-2.2.1-03 R-2.2.1-04 R-2.2.1-07 R-3.1.5.2-09 R-3.1.4.1-14: the Negotiate Request")
    void R_3_1_5_2_negotiateRequestCarriesTheConnectionValues() {
        h.connect();
        FakeEndpoint e = h.provider.last();
        assertTrue(e.sends.isEmpty(), "nothing before the connection is established");
        e.establish();
        assertEquals(1, e.sends.size(), "R-3.1.4.1-14 / R-3.1.5.2-01: the Negotiate Request goes first");
        ByteBuffer m = e.sends.get(0).message();
        assertEquals(20, m.remaining());
        assertEquals(0x100, NegotiateRequest.minVersion(m, 0)); // R-3.1.5.2-02
        assertEquals(0x100, NegotiateRequest.maxVersion(m, 0)); // R-3.1.5.2-03
        assertEquals(0, NegotiateRequest.reserved(m, 0)); // R-3.1.5.2-04
        assertEquals(255, NegotiateRequest.creditsRequested(m, 0)); // R-3.1.5.2-05
        assertEquals(1364, NegotiateRequest.preferredSendSize(m, 0)); // R-3.1.5.2-06
        assertEquals(8192, NegotiateRequest.maxReceiveSize(m, 0)); // R-3.1.5.2-07
        assertEquals(1048576, NegotiateRequest.maxFragmentedSize(m, 0)); // R-3.1.5.2-08
    }

    @Test
    @DisplayName("R-3.1.5.5-02 R-3.1.5.7-12..17: values from the Negotiate Response")
    void R_3_1_5_7_12_to_17_negotiatedValuesFollowTheResponse() {
        Connection c = h.active(10, 10, 1024, 1024, 131072);
        assertEquals(1024, c.negotiation.maxReceiveSize(), "R-3.1.5.7-12 min(8192, PreferredSendSize)");
        assertEquals(1024, c.negotiation.maxSendSize(), "R-3.1.5.7-14 min(1364, MaxReceiveSize)");
        assertEquals(8 << 20, c.negotiation.maxReadWriteSize(), "R-3.1.5.7-15 min(cap, response)");
        assertEquals(131072, c.negotiation.maxFragmentedSendSize(), "R-3.1.5.7-17");
        assertEquals(10, c.credits.receiveCreditTarget(), "R-3.1.5.7-11");
        assertEquals(Role.ESTABLISHED, c.negotiation.role(), "R-3.1.5.7-22");
        assertEquals(0x100, c.negotiation.protocol(), "R-3.1.5.7-10");
        assertEquals(10, c.credits.receiveCredits(), "R-3.1.5.7-18: receives for the peer's target");
        assertEquals(1024, c.parameters().maxReceiveSize(), "R-3.1.4.7-01");
        assertEquals(131072, c.parameters().maxFragmentedSendSize(), "R-3.1.4.7-01");
        assertEquals(Duration.ofSeconds(120), c.parameters().keepaliveInterval(), "R-3.1.4.7-01");
    }

    @Test
    void R_3_1_5_7_13_maxReceiveSizeFloorIs128() {
        Connection c = h.active(10, 10, 100, 1024, 131072);
        assertEquals(128, c.negotiation.maxReceiveSize());
    }

    @Test
    @DisplayName("R-3.1.5.7-16 R-3.1.5.1-05 A-13: first Data Transfer grants")
    void R_3_1_5_7_16_sendCreditsFromResponseAnd_A_13_firstDataTransferGrantsPostedReceives() {
        Connection c = h.active(10, 7, 1024, 1024, 131072);
        FakeEndpoint e = h.provider.last();
        // 7 granted by the response, one spent on the first Data Transfer (the grant below)
        assertEquals(6, c.credits.sendCredits(), "R-3.1.5.7-16");
        // the first Data Transfer (here an empty grant, as the upper layer sent nothing) grants 10
        assertEquals(2, e.sends.size(), "the passive peer holds no credit: a grant goes out at once (A-14)");
        ByteBuffer first = e.sends.get(1).message();
        assertEquals(10, DataTransfer.creditsGranted(first, 0), "A-13: the receives posted during negotiation");
        assertEquals(255, DataTransfer.creditsRequested(first, 0), "R-3.1.5.1-09");
    }

    @Test
    void A_13_firstUpperLayerMessageCarriesTheGrantWhenSentFromTheConnectStage() {
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        f.thenAccept(c -> c.send(ByteBuffer.wrap(Harness.bytes(100, 1)), (m, x) -> { }));
        FakeEndpoint e = h.provider.last();
        e.establish();
        e.completeSends();
        e.deliver(Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072));
        assertEquals(2, e.sends.size());
        ByteBuffer first = e.sends.get(1).message();
        assertEquals(100, DataTransfer.dataLength(first, 0));
        assertEquals(10, DataTransfer.creditsGranted(first, 0));
    }

    @Test
    void R_3_1_5_7_09_everyResponseCheckFailsTheConnect() {
        Object[][] cases = {
            {Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072).limit(31), "R-3.1.5.7-01"},
            {Harness.negResponse(10, 10, 0, 1 << 20, 1024, 127, 131072), "R-3.1.5.7-03"},
            {Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131071), "R-3.1.5.7-04"},
            {Harness.negResponse(10, 0, 0, 1 << 20, 1024, 1024, 131072), "R-3.1.5.7-05"},
            {Harness.negResponse(0, 10, 0, 1 << 20, 1024, 1024, 131072), "R-3.1.5.7-06"},
            {Harness.negResponse(10, 10, 0, 1 << 20, 8193, 1024, 131072), "R-3.1.5.7-07"},
            {Harness.negResponse(10, 10, 0xC00000BB, 1 << 20, 1024, 1024, 131072), "R-3.1.5.7-08"},
        };
        for (Object[] c : cases) {
            Harness hh = new Harness();
            CompletableFuture<SmbDirectConnection> f = hh.connect().toCompletableFuture();
            FakeEndpoint e = hh.provider.last();
            e.establish();
            e.deliver((ByteBuffer) c[0]);
            CloseReason r = failure(f);
            assertEquals(CloseReason.Kind.NEGOTIATION_FAILED, r.kind());
            assertEquals(c[1], r.rule(), r.toString());
            assertTrue(e.disconnectCalled, "terminated");
            hh.provider.assertNoLeaks();
        }
    }

    @Test
    void R_3_1_5_7_02_negotiatedVersionMustBe0100() {
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        e.establish();
        ByteBuffer b = Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072);
        b.putShort(4, (short) 0x200);
        e.deliver(b);
        assertEquals("R-3.1.5.7-02", failure(f).rule());
    }

    @Test
    @DisplayName("R-3.1.2.1-01 R-3.1.4.1-10: Negotiation Timer")
    void R_3_1_4_1_10_negotiationTimerCoversConnectAndNegotiation() {
        CompletableFuture<SmbDirectConnection> f = h.engine.connect(Harness.PEER, Duration.ofSeconds(7), h.recorder)
                .toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        h.scheduler.advance(Duration.ofSeconds(4));
        e.establish();
        h.scheduler.advance(Duration.ofMillis(2999));
        assertFalse(f.isDone());
        h.scheduler.advance(Duration.ofMillis(1));
        CloseReason r = failure(f);
        assertEquals(CloseReason.Kind.NEGOTIATION_TIMEOUT, r.kind(), "R-3.1.6.1-01");
        h.provider.assertNoLeaks();
        assertTrue(h.recorder.disconnects.isEmpty(), "the connect stage fails instead");
    }

    @Test
    void R_3_1_4_1_13_connectFailureGoesBackToTheUpperLayer() {
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        h.provider.last().flushAndDisconnect(DisconnectCause.REJECTED, "no listener");
        CloseReason r = failure(f);
        assertEquals(CloseReason.Kind.CONNECT_FAILED, r.kind());
        assertTrue(r.detail().contains("REJECTED"));
        h.provider.assertNoLeaks();
        assertEquals(0, h.engine.budgetUsed());
    }

    @Test
    void R_3_1_4_1_03_endpointCreationFailureFailsTheConnect() {
        h.provider.failCreateEndpoint = true;
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        assertEquals(CloseReason.Kind.CONNECT_FAILED, failure(f).kind());
        assertEquals(0, h.engine.connectionCount());
    }

    @Test
    void R_6_1_01_iwarpConnectCarriesTheIrdOrdHeaderAndTheAcceptedValuesApply() {
        h.provider.transportType = TransportType.IWARP;
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        ByteBuffer pd = e.connectParameters.privateData();
        assertEquals(8, pd.remaining());
        assertEquals(8, IrdOrdHeader.ird(pd, 0));
        assertEquals(8, IrdOrdHeader.ord(pd, 0));
        ByteBuffer reply = ByteBuffer.allocate(8);
        IrdOrdHeader.encode(reply, 0, 2, 3);
        e.ird = 0; // a provider that cannot tell the IRD in effect
        e.establish(reply);
        e.completeSends();
        e.deliver(Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072));
        Connection c = (Connection) f.join();
        assertEquals(2, c.parameters().outboundReadDepth(), "R-6.2-05: our ORD bounded by the acceptor's IRD");
        assertEquals(3, c.parameters().inboundReadDepth(), "R-6.2-05: our IRD bounded by the acceptor's ORD");
    }

    @Test
    void R_6_2_05_theIrdTheDevicePutInEffectIsTheConnectionsAlsoAboveWhatWasAsked() {
        h.provider.transportType = TransportType.IWARP;
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        ByteBuffer reply = ByteBuffer.allocate(8);
        IrdOrdHeader.encode(reply, 0, 8, 8);
        e.ird = 16; // siw sets the IRD it chooses, above the 8 asked for
        e.ord = 8;
        e.establish(reply);
        e.completeSends();
        e.deliver(Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072));
        Connection c = (Connection) f.join();
        assertEquals(16, c.parameters().inboundReadDepth(),
                "R-6.2-05 / A-45: the IRD in effect, as the provider reports it, above the 8 programmed");
        assertEquals(8, c.parameters().outboundReadDepth(), "R-6.2-05: the ORD programmed from the acceptor's IRD");
    }

    @Test
    void infinibandConnectHasNoPrivateData() {
        h.connect();
        assertEquals(0, h.provider.last().connectParameters.privateData().remaining());
    }

    @Test
    void R_3_1_4_1_07_initialStateBeforeNegotiation() {
        h.connect();
        assertEquals("CONNECTING", h.engine.getTransportDTO().connections[0].state);
        assertEquals(0, h.engine.getTransportDTO().connections[0].sendCredits);
        assertEquals(0, h.engine.getTransportDTO().connections[0].maxReadWriteSize, "R-3.1.4.1-05");
        assertEquals("NONE", h.engine.getTransportDTO().connections[0].keepaliveRequested, "R-3.1.4.1-06");
        assertEquals(0, h.engine.getTransportDTO().connections[0].protocol, "R-3.1.4.1-07");
    }
}
