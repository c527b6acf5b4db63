package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.SmbdWire;

/** Idle Connection Timer and keepalive (3.1.2.2, 3.1.5.1, 3.1.5.8, 3.1.6.2), credit-grant timer, live settings. */
class KeepaliveAndTimerTest {

    final Harness h = new Harness();

    Connection established() {
        Connection c = h.active(10, 10, 1024, 1024, 131072);
        FakeEndpoint e = h.provider.last();
        e.completeSends();
        e.autoCompleteSends = true;
        return c;
    }

    @Test
    @DisplayName("R-3.1.6.2-03 R-2.2.3-10 R-3.1.5.4-06 R-3.1.5.1-15: keepalive")
    void R_3_1_6_2_03_keepaliveAfterKeepaliveIntervalWithResponseRequested() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int before = e.sends.size();
        h.scheduler.advance(Duration.ofSeconds(119));
        assertEquals(before, e.sends.size());
        h.scheduler.advance(Duration.ofSeconds(1));
        assertEquals(before + 1, e.sends.size(), "R-3.1.2.2-01");
        ByteBuffer k = e.sends.get(before).message();
        assertEquals(20, k.remaining(), "R-3.1.6.2-04: an empty message");
        assertEquals(SmbdWire.FLAG_RESPONSE_REQUESTED, DataTransfer.flags(k, 0), "R-3.1.5.1-10");
        assertEquals(0, DataTransfer.dataOffset(k, 0), "R-3.1.5.4-05");
        assertEquals(0, DataTransfer.dataLength(k, 0), "R-2.2.3-10, R-3.1.5.4-06");
        assertEquals(KeepaliveRequested.SENT, c.timers.keepaliveRequested());
        assertEquals(1, c.timers.keepalivesSent());
    }

    @Test
    void R_3_1_6_2_01_noAnswerWithinTheResponseTimeoutCloses() {
        Connection c = established();
        h.scheduler.advance(Duration.ofSeconds(120));
        h.scheduler.advance(Duration.ofMillis(4999));
        assertTrue(c.isOpen(), "R-3.1.5.1-11: 5 s after the keepalive");
        h.scheduler.advance(Duration.ofMillis(1));
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.KEEPALIVE_TIMEOUT, h.recorder.disconnects.get(0).kind());
        h.provider.assertNoLeaks();
    }

    @Test
    void R_3_1_5_5_04_anyMessageAnswersTheKeepalive() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        h.scheduler.advance(Duration.ofSeconds(120));
        h.scheduler.advance(Duration.ofSeconds(3));
        e.deliver(Harness.dt(10, 1, 0, 0, Harness.bytes(10, 1)));
        assertEquals(KeepaliveRequested.NONE, c.timers.keepaliveRequested());
        h.scheduler.advance(Duration.ofSeconds(119));
        assertTrue(c.isOpen(), "R-3.1.5.5-03: timer restarted at KeepaliveInterval");
        assertEquals(1, c.timers.keepalivesSent());
        h.scheduler.advance(Duration.ofSeconds(1));
        assertEquals(2, c.timers.keepalivesSent(), "the next keepalive after another interval");
    }

    @Test
    void R_3_1_5_5_03_receivedMessagesPostponeTheKeepalive() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        for (int i = 0; i < 5; i++) {
            h.scheduler.advance(Duration.ofSeconds(100));
            e.deliver(Harness.dt(10, 1, 0, 0, new byte[0]));
        }
        assertEquals(0, c.timers.keepalivesSent());
    }

    @Test
    @DisplayName("R-3.1.5.1-03 R-3.1.5.8-12 A-8: keepalive reply")
    void A_8_keepaliveReplyHasFlagsZeroAndIsPrompt() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int before = e.sends.size();
        e.deliver(Harness.dt(10, 1, SmbdWire.FLAG_RESPONSE_REQUESTED, 0, new byte[0]));
        assertEquals(before + 1, e.sends.size(), "R-3.1.5.8-12: a message goes out at once");
        ByteBuffer reply = e.sends.get(before).message();
        assertEquals(0, DataTransfer.flags(reply, 0), "A-8: Flags 0");
        assertEquals(20, reply.remaining());
        assertEquals(KeepaliveRequested.NONE, c.timers.keepaliveRequested(), "no keepalive echo loop");
        assertFalse(c.sendPath.sendImmediate(), "R-3.1.5.1-16");
        assertEquals(1, c.receivePath.keepalivesReceived());
    }

    @Test
    void keepaliveExchangeBetweenTwoQuietPeersDoesNotPingPong() {
        established();
        FakeEndpoint e = h.provider.last();
        int before = e.sends.size();
        for (int i = 0; i < 10; i++) {
            e.deliver(Harness.dt(10, 1, SmbdWire.FLAG_RESPONSE_REQUESTED, 0, new byte[0]));
        }
        assertEquals(before + 10, e.sends.size(), "one reply per keepalive");
        for (int i = before; i < e.sends.size(); i++) {
            assertEquals(0, DataTransfer.flags(e.sends.get(i).message(), 0));
        }
    }

    @Test
    @DisplayName("R-3.1.6.2-02 R-3.1.5.4-08: a pending keepalive waits for a credit")
    void keepaliveWithoutSendCreditsStillTimesOut() {
        Connection c = h.passive(10, 1024, 1024, 131072);
        assertEquals(0, c.credits.sendCredits());
        h.scheduler.advance(Duration.ofSeconds(120));
        assertEquals(KeepaliveRequested.PENDING, c.timers.keepaliveRequested(), "A-24: no credit to send it");
        h.scheduler.advance(Duration.ofSeconds(5));
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.KEEPALIVE_TIMEOUT, h.recorder.disconnects.get(0).kind());
    }

    @Test
    void creditGrantTimerClosesWhenThePeerNeverGrants() {
        Connection c = established();
        while (c.credits.sendCredits() > 0) {
            c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        }
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        h.scheduler.advance(Duration.ofMillis(4999));
        assertTrue(c.isOpen());
        h.scheduler.advance(Duration.ofMillis(1));
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.CREDIT_GRANT_TIMEOUT, h.recorder.disconnects.get(0).kind());
    }

    @Test
    void creditGrantInTimeResumes() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        while (c.credits.sendCredits() > 0) {
            c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        }
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        h.scheduler.advance(Duration.ofSeconds(4));
        e.deliver(Harness.dt(10, 5, 0, 0, new byte[0]));
        h.scheduler.advance(Duration.ofSeconds(10));
        assertTrue(c.isOpen());
        assertEquals(0, c.sendPath.queueDepth());
    }

    @Test
    void aSecondStallGetsTheWholeCreditGrantTimeoutAndOneTimerServesManyStalls() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        while (c.credits.sendCredits() > 0) {
            c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        }
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { }); // stall 1 at t=0
        int timers = h.scheduler.scheduledCount();
        h.scheduler.advance(Duration.ofSeconds(3));
        e.deliver(Harness.dt(10, 1, 0, 0, new byte[0])); // one credit: the waiting message goes
        assertEquals(0, c.sendPath.queueDepth());
        for (int i = 0; i < 50; i++) { // many short stalls, each ended by a grant
            c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
            e.deliver(Harness.dt(10, 1, 0, 0, new byte[0]));
        }
        assertEquals(timers, h.scheduler.scheduledCount(), "no timer scheduled per stall while one is pending");
        h.scheduler.advance(Duration.ofSeconds(1));
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { }); // stall 2 at t=4 s: deadline t=9 s
        h.scheduler.advance(Duration.ofSeconds(4)); // t=8 s: the first timer (t=5 s) re-armed for the rest
        assertTrue(c.isOpen(), "the second stall has its own 5 s");
        h.scheduler.advance(Duration.ofMillis(999));
        assertTrue(c.isOpen());
        h.scheduler.advance(Duration.ofMillis(1));
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.CREDIT_GRANT_TIMEOUT, h.recorder.disconnects.get(0).kind());
    }

    @Test
    void creditGrantTimeoutZeroDisables() {
        Harness hh = new Harness(TransportSettings.builder().creditGrantTimeout(Duration.ZERO).build());
        Connection c = hh.active(10, 10, 1024, 1024, 131072);
        hh.provider.last().autoCompleteSends = true;
        hh.provider.last().completeSends();
        while (c.credits.sendCredits() > 0) {
            c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        }
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> { });
        hh.scheduler.advance(Duration.ofSeconds(60));
        assertTrue(c.isOpen());
    }

    @Test
    void updateSettingsAppliesTimersToLiveConnectionsAtOnce() {
        Connection c = established();
        h.scheduler.advance(Duration.ofSeconds(10));
        h.engine.updateSettings(TransportSettings.builder().keepaliveInterval(Duration.ofSeconds(30))
                .maxReceiveSize(4096).build());
        h.scheduler.advance(Duration.ofSeconds(19));
        assertEquals(0, c.timers.keepalivesSent());
        h.scheduler.advance(Duration.ofSeconds(1));
        assertEquals(1, c.timers.keepalivesSent(), "30 s from the last receive");
        assertEquals(1024, c.negotiation.maxReceiveSize(), "negotiated values stay");
        assertEquals(Duration.ofSeconds(30), c.parameters().keepaliveInterval());
        // a new connection negotiates with the new values
        h.connect();
        FakeEndpoint e2 = h.provider.last();
        e2.establish();
        assertEquals(4096, smbdirect.impl.wire.NegotiateRequest.maxReceiveSize(e2.sends.get(0).message(), 0));
    }
}
