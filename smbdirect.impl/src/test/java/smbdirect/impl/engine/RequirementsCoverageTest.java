package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;

/** Rules of ms-smbd.md section 4 checked one by one where the larger scenario tests do not name them. */
class RequirementsCoverageTest {

    final Harness h = new Harness();
    final List<Throwable> outcomes = new ArrayList<>();

    Connection established() {
        Connection c = h.active(10, 10, 1024, 1024, 131072);
        h.provider.last().completeSends();
        return c;
    }

    @Test
    void R_3_1_4_1_01_02_04_08_09_activeConnectionStartsWithTheInitialAdm() {
        h.connect();
        Connection c = h.engine.connection(1);
        assertEquals(Role.ACTIVE, c.negotiation.role(), "R-3.1.4.1-02, R-3.1.1.1-01");
        assertEquals(255, c.credits.receiveCreditMax(), "R-3.1.4.1-04");
        assertEquals(255, c.credits.sendCreditTarget(), "R-3.1.4.1-04");
        assertEquals(1364, c.negotiation.maxSendSize(), "R-3.1.4.1-04");
        assertEquals(8192, c.negotiation.maxReceiveSize(), "R-3.1.4.1-04");
        assertEquals(1048576, c.negotiation.maxFragmentedRecvSize(), "R-3.1.4.1-04");
        assertEquals(Duration.ofSeconds(120), c.parameters().keepaliveInterval(), "R-3.1.4.1-04");
        assertEquals(0, c.negotiation.maxReadWriteSize(), "R-3.1.4.1-05");
        assertEquals(KeepaliveRequested.NONE, c.timers.keepaliveRequested(), "R-3.1.4.1-06, R-3.1.1.1-03");
        assertEquals(0, c.credits.sendCredits(), "R-3.1.4.1-07");
        assertEquals(0, c.credits.receiveCredits(), "R-3.1.4.1-07: the 512-byte receive is not a credit");
        assertTrue(c.sendPath.queueDepth() == 0, "R-3.1.4.1-08");
        assertFalse(c.sendPath.sendImmediate(), "R-3.1.4.1-09");
        assertTrue(h.provider.last().events.contains("connect"), "R-3.1.4.1-12");
    }

    @Test
    void R_3_1_4_1_15_successReturnsTheConnectionHandle() {
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        e.establish();
        e.deliver(Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072));
        assertSame(h.engine.connection(1), f.join(), "R-3.1.5.7-23");
        assertTrue(f.join().isOpen());
    }

    @Test
    void R_3_1_7_2_01_02_04_07_to_10_passiveConnectionStartsWithTheInitialAdm() {
        FakeProvider.FakeRequest r = h.request(null);
        Connection c = h.engine.connection(1);
        assertEquals(Role.PASSIVE, c.negotiation.role(), "R-3.1.7.2-02");
        assertTrue(r.endpoint.events.contains("accept"), "R-3.1.7.2-04");
        assertEquals(8 << 20, c.negotiation.maxReadWriteSize(), "R-3.1.7.2-07");
        assertEquals(255, c.credits.receiveCreditMax(), "R-3.1.7.2-07");
        assertEquals(KeepaliveRequested.NONE, c.timers.keepaliveRequested(), "R-3.1.7.2-08");
        assertEquals(0, c.negotiation.protocol(), "R-3.1.7.2-09");
        assertEquals(0, c.credits.sendCredits() + c.credits.receiveCredits(), "R-3.1.7.2-09");
        assertTrue(c.sendPath.queueDepth() == 0, "R-3.1.7.2-10");
        assertEquals(1, h.engine.connectionCount(), "R-3.1.7.2-01");
    }

    @Test
    void R_2_2_01_negotiationOnceThenOnlyDataTransfer_R_3_1_5_5_05() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        // a second negotiate-looking message is processed as Data Transfer (3.1.5.5): it fails R-3.1.5.8-04
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.PROTOCOL_VIOLATION, h.recorder.disconnects.get(0).kind());
    }

    @Test
    void R_3_1_5_4_01_everyMessageAfterNegotiationIsDataTransfer() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        c.send(ByteBuffer.wrap(Harness.bytes(3000, 1)), (m, x) -> { });
        e.deliver(Harness.dt(10, 5, 1, 0, new byte[0]));
        h.scheduler.advance(Duration.ofSeconds(121));
        assertTrue(e.sends.size() > 4);
        for (int i = 1; i < e.sends.size(); i++) {
            ByteBuffer m = e.sends.get(i).message();
            assertNull(DataTransfer.check(m, 0, m.remaining(), 1 << 20), "a valid Data Transfer message");
        }
    }

    @Test
    @DisplayName("R-2.2-04 R-2.2-06 R-2.2-07: reserved and padding written as zero")
    void R_2_2_04_06_07_reservedAndPaddingWrittenAsZero() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        c.send(ByteBuffer.wrap(Harness.bytes(100, 1)), (m, x) -> { });
        ByteBuffer req = e.sends.get(0).message();
        assertEquals(0, NegotiateRequest.reserved(req, 0), "R-2.2.1-05, R-3.1.5.2-04");
        for (int i = 1; i < e.sends.size(); i++) {
            ByteBuffer m = e.sends.get(i).message();
            assertEquals(0, DataTransfer.reserved(m, 0), "R-2.2.3-05: no private signalling (R-2.2-06)");
            if (DataTransfer.dataLength(m, 0) > 0) {
                assertEquals(0, m.getInt(20), "R-2.2.3-11 padding");
            }
        }
        FakeEndpoint p = h.request(null).endpoint;
        p.establish();
        p.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        assertEquals(0, NegotiateResponse.reserved(p.sends.get(0).message(), 0), "R-2.2.2-06");
    }

    @Test
    @DisplayName("R-2.2-05 R-2.2-08: reserved and padding ignored")
    void R_2_2_05_08_reservedAndPaddingIgnoredOnReceipt() {
        established();
        FakeEndpoint e = h.provider.last();
        ByteBuffer m = Harness.dt(10, 1, 0, 0, Harness.bytes(50, 1));
        m.putShort(6, (short) 0x7777); // Reserved (R-2.2.3-06)
        m.putInt(20, 0xDEADBEEF); // padding (R-2.2.3-12)
        e.deliver(m);
        assertArrayEquals(Harness.bytes(50, 1), h.recorder.messages.get(0));
        Harness p = new Harness();
        FakeEndpoint pe = p.request(null).endpoint;
        pe.establish();
        ByteBuffer req = Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072);
        req.putShort(4, (short) 0x5555); // R-2.2.1-06
        pe.deliver(req);
        assertEquals(0, NegotiateResponse.status(pe.sends.get(0).message(), 0));
        Harness a = new Harness();
        CompletableFuture<SmbDirectConnection> f = a.connect().toCompletableFuture();
        FakeEndpoint ae = a.provider.last();
        ae.establish();
        ByteBuffer resp = Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072);
        resp.putShort(6, (short) 0x4444); // R-2.2.2-07
        ae.deliver(resp);
        assertTrue(f.join().isOpen());
    }

    @Test
    void R_2_2_03_unsignedFieldsAboveTwoToThe31() {
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        e.deliver(Harness.negRequest(0x100, 0x100, 0xFFFF, 0xFFFFFFFFL, 0xFFFFFFFFL, 0xFFFFFFFFL));
        ByteBuffer r = e.sends.get(0).message();
        assertEquals(0, NegotiateResponse.status(r, 0));
        assertEquals(8192, NegotiateResponse.maxReceiveSize(r, 0), "min(8192, 0xFFFFFFFF) read unsigned");
        assertEquals(1364, NegotiateResponse.preferredSendSize(r, 0));
        assertEquals(0xFFFFFFFFL, ((Connection) h.accepted.get(0)).parameters().maxFragmentedSendSize());
    }

    @Test
    void R_2_2_3_01_creditsRequestedIsTheTotalTarget_R_2_2_3_07_08_09_10_fieldsOfEachFragment() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        int before = e.sends.size();
        c.send(ByteBuffer.wrap(Harness.bytes(2500, 1)), (m, x) -> outcomes.add(x));
        e.deliver(Harness.dt(10, 0, 0, 0, new byte[0]));
        long remaining = 2500;
        for (int i = before; i < e.sends.size(); i++) {
            ByteBuffer m = e.sends.get(i).message();
            assertEquals(255, DataTransfer.creditsRequested(m, 0), "the target, whatever we hold");
            long len = DataTransfer.dataLength(m, 0);
            if (len == 0) {
                assertEquals(0, DataTransfer.dataOffset(m, 0), "R-2.2.3-08, R-3.1.5.4-05");
                assertEquals(0, DataTransfer.remainingDataLength(m, 0), "R-3.1.5.4-04");
                assertEquals(20, m.remaining(), "R-3.1.5.4-07");
                continue;
            }
            assertEquals(0, DataTransfer.dataOffset(m, 0) % 8, "R-2.2.3-09, R-3.1.5.4-10");
            assertTrue(DataTransfer.dataOffset(m, 0) + len <= 1024, "R-3.1.5.4-11");
            remaining -= len;
            assertEquals(remaining, DataTransfer.remainingDataLength(m, 0), "R-2.2.3-07, R-3.1.5.4-16, -20");
        }
        assertEquals(0, remaining, "R-3.1.5.4-09, -18: every byte in exactly one segment");
        assertNull(outcomes.get(0), "R-3.1.5.4-23, R-3.1.4.2-06");
    }

    @Test
    @DisplayName("R-2.2.3-02 R-2.2.3-03: only defined flags")
    void R_2_2_3_02_03_onlyDefinedFlags() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        h.scheduler.advance(Duration.ofSeconds(120));
        for (int i = 1; i < e.sends.size(); i++) {
            int flags = DataTransfer.flags(e.sends.get(i).message(), 0);
            assertTrue(flags == 0 || flags == 1, "flags " + flags);
        }
        assertEquals(1, DataTransfer.flags(e.sends.get(e.sends.size() - 1).message(), 0), "R-2.2.3-04 keepalive");
    }

    @Test
    void R_3_1_5_8_10_receiveCreditTargetFollowsThePeer_R_3_1_5_8_08_09_grantsAfterRun() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        e.deliver(Harness.dt(4, 0, 0, 0, new byte[0]));
        assertEquals(4, c.credits.receiveCreditTarget());
        e.deliver(Harness.dt(20, 0, 0, 0, new byte[0]));
        assertEquals(20, c.credits.receiveCreditTarget());
        assertEquals(Math.min(20, 255), c.credits.receiveCredits(), "R-3.1.5.9-07: posted up to the new target");
        int before = e.sends.size();
        for (int i = 0; i < 16; i++) {
            e.deliver(Harness.dt(20, 0, 0, 0, Harness.bytes(5, i)));
        }
        assertTrue(e.sends.size() > before, "R-3.1.5.8-09: a grant went out once the peer ran low");
        assertTrue(DataTransfer.creditsGranted(e.sends.get(before).message(), 0) > 0, "R-2.2.3-13, R-3.1.5.9-09");
    }

    @Test
    @DisplayName("R-3.1.4.2-06: a send whose (last) fragment the provider refuses to post is reported failed")
    void R_3_1_4_2_06_refusedPostOfTheLastFragmentFailsTheSend() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        List<Throwable> single = new ArrayList<>();
        List<Throwable> fragmented = new ArrayList<>();
        e.failSendPost = true;
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> single.add(x));
        c.send(ByteBuffer.wrap(Harness.bytes(3000, 2)), (m, x) -> fragmented.add(x));
        assertFalse(c.isOpen(), "a refused post ends the connection");
        assertEquals(1, single.size(), "the refused message is reported exactly once");
        assertInstanceOf(SmbDirectException.class, single.get(0));
        assertEquals(1, fragmented.size(), "the queued message behind it is reported too");
        assertInstanceOf(SmbDirectException.class, fragmented.get(0));
        h.provider.assertNoLeaks();
    }

    @Test
    @DisplayName("R-3.1.4.2-06: a message whose last fragment is refused is reported failed, not sent, when its first fragments complete")
    void R_3_1_4_2_06_refusedLaterFragmentIsNotReportedSent() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        List<Throwable> outcome = new ArrayList<>();
        e.failSendPostsAfter = 2; // of the three fragments, the last one is refused
        e.deferDisconnect = true; // the provider still completes the first fragments' Sends successfully
        c.send(ByteBuffer.wrap(Harness.bytes(3000, 3)), (m, x) -> outcome.add(x == null ? new AssertionError("sent") : x));
        assertFalse(c.isOpen(), "the refused post ends the connection");
        e.completeSends();
        assertTrue(outcome.stream().noneMatch(AssertionError.class::isInstance),
                "not reported sent when its first fragments complete: " + outcome);
        e.flushAndDisconnect(smbdirect.api.rdma.DisconnectCause.LOCAL, "");
        assertEquals(1, outcome.size(), "reported exactly once: " + outcome);
        assertInstanceOf(SmbDirectException.class, outcome.get(0), "a message not sent completely is a failure");
        h.provider.assertNoLeaks();
    }

    @Test
    void R_3_1_5_9_06_noSendWhenNoReceiveCanBePosted() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        while (c.credits.sendCredits() > 1) {
            c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        }
        int before = e.sends.size();
        e.failReceivePost = true;
        c.send(ByteBuffer.wrap(Harness.bytes(10, 2)), (m, x) -> outcomes.add(x));
        assertEquals(before, e.sends.size(), "the last credit is not spent without the receive it grants");
        assertFalse(c.isOpen());
        assertInstanceOf(SmbDirectException.class, outcomes.get(0), "the failed post ends the connection");
    }

    @Test
    @DisplayName("R-3.1.5.2-09 R-3.1.5.2-10: the provider result goes back")
    void R_3_1_5_2_09_10_negotiateRequestPostFailureFailsTheConnect() {
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        e.failSendPost = true;
        e.establish();
        assertTrue(f.isCompletedExceptionally());
        CompletionException x = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, f::join);
        assertTrue(((SmbDirectException) x.getCause()).closeReason().detail().contains("Negotiate Request"));
    }

    @Test
    @DisplayName("R-3.1.5.3-16 R-3.1.5.3-17: the provider result of the response")
    void R_3_1_5_3_16_17_responsePostFailureCloses() {
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        e.failSendPost = true;
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        assertTrue(e.disconnectCalled);
        assertTrue(h.accepted.isEmpty());
        h.provider.assertNoLeaks();
    }

    @Test
    void R_3_1_5_7_19_noReceiveForThePeerFailsTheConnect() {
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        e.establish();
        e.failReceivePost = true;
        e.deliver(Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072));
        assertTrue(f.isCompletedExceptionally());
        SmbDirectException x = (SmbDirectException) org.junit.jupiter.api.Assertions
                .assertThrows(CompletionException.class, f::join).getCause();
        assertEquals("R-3.1.5.7-19", x.closeReason().rule());
        h.provider.assertNoLeaks();
    }

    @Test
    void R_3_1_5_6_17_noReceiveForThePeerGetsAnErrorStatus() {
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        e.failReceivePost = true;
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        assertEquals(1, e.sends.size(), "a failure response");
        int status = NegotiateResponse.status(e.sends.get(0).message(), 0);
        assertEquals(0xC0000000, status & 0xC0000000, "an error-severity NTSTATUS");
        assertEquals(0, NegotiateResponse.creditsGranted(e.sends.get(0).message(), 0), "R-3.1.5.3-06");
        e.completeSends();
        assertTrue(e.disconnectCalled, "then closed");
        assertTrue(h.accepted.isEmpty());
    }

    @Test
    void R_3_1_5_7_20_21_timersAfterActiveNegotiation() {
        Connection c = established();
        h.scheduler.advance(Duration.ofSeconds(119));
        assertTrue(c.isOpen(), "R-3.1.5.7-20: the Negotiation Timer no longer fires");
        assertEquals(0, c.timers.keepalivesSent());
        h.scheduler.advance(Duration.ofSeconds(1));
        assertEquals(1, c.timers.keepalivesSent(), "R-3.1.5.7-21: Idle Connection Timer at KeepaliveInterval");
    }

    @Test
    void R_3_1_4_3_06_partialRegistrationFailureLeavesNothingAccessible() {
        h.provider.capabilities = new RdmaCapabilities(1024, 1024, 4, 64, 1 << 30, 16, 16, 4096, true);
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int regions = e.regions.size();
        e.failRegisterAfter = 1;
        CompletableFuture<RegisteredBuffer> f = c.register(ByteBuffer.allocateDirect(10000), RemoteAccess.WRITE)
                .toCompletableFuture();
        assertTrue(f.isCompletedExceptionally(), "R-3.1.4.3-05");
        assertEquals(regions, e.regions.size(), "the first region was deregistered again");
        assertTrue(c.isOpen());
    }

    @Test
    void R_3_1_4_3_02_registeredOnTheConnectionsEndpoint_R_3_1_4_4_03_deregistrationErrorReturned() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        RegisteredBuffer rb = c.register(ByteBuffer.allocateDirect(4096), RemoteAccess.LOCAL_ONLY).toCompletableFuture()
                .join();
        assertEquals(3, e.regions.size(), "receive and send regions and this one (the initial one is released)");
        e.failDeregister = true;
        CompletableFuture<Void> f = rb.deregister().toCompletableFuture();
        assertTrue(f.isCompletedExceptionally());
        SmbDirectException x = assertInstanceOf(SmbDirectException.class,
                org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, f::join).getCause());
        assertEquals(SmbDirectException.Kind.PROVIDER_ERROR, x.kind());
        e.failDeregister = false;
    }

    @Test
    void R_3_1_4_6_07_readFailureReportedToTheCaller() {
        Connection c = established();
        RegisteredBuffer local = c.register(ByteBuffer.allocateDirect(4096), RemoteAccess.LOCAL_ONLY)
                .toCompletableFuture().join();
        c.rdmaRead(local, 0, 4096, List.of(new smbdirect.api.BufferDescriptor(0, 1, 4096)), 0,
                (n, x) -> outcomes.add(x));
        FakeEndpoint e = h.provider.last();
        e.complete(e.rdma.get(0), CompletionStatus.REMOTE_ACCESS_ERROR);
        assertInstanceOf(SmbDirectException.class, outcomes.get(0));
        assertFalse(c.isOpen(), "R-3.1.4.2-05: a failed operation ends the connection");
    }

    @Test
    void R_3_1_6_1_02_negotiationTimeoutIsAConnectionLoss() {
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        h.scheduler.advance(Duration.ofSeconds(5));
        assertTrue(e.closed, "R-3.1.7.1-02: endpoint destroyed");
        assertEquals(0, h.engine.connectionCount());
        assertEquals("NEGOTIATION_TIMEOUT", h.engine.getTransportDTO().recentlyClosed[0].closeReason.split(" ")[0]);
    }

    @Test
    void peerLesson17_queuesSizedWithinTheDeviceLimits() {
        h.provider.capabilities = new RdmaCapabilities(40, 12, 4, 64, 1 << 30, 16, 16, 1L << 32, true);
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        assertTrue(e.config.receiveQueueDepth() <= 12);
        assertTrue(e.config.sendQueueDepth() <= 40);
        e.establish();
        e.completeSends();
        e.deliver(Harness.negResponse(255, 255, 0, 1 << 20, 1364, 8192, 1 << 20));
        Connection c = (Connection) f.join();
        assertEquals(10, c.credits.receiveCreditMax(), "ReceiveCreditMax lowered to the receive queue");
        assertTrue(c.credits.receiveCredits() + 1 <= 12);
        e.autoCompleteSends = true;
        for (int i = 0; i < 50; i++) {
            c.send(ByteBuffer.wrap(Harness.bytes(1000, i)), (m, x) -> outcomes.add(x));
        }
        assertTrue(c.isOpen());
        assertTrue(e.outstandingSends().size() <= e.config.sendQueueDepth());
    }
}
