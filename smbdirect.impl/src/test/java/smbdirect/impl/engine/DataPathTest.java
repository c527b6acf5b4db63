package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectException;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.impl.wire.DataTransfer;

/** Sending (3.1.4.2, 3.1.5.1, 3.1.5.4), receiving (3.1.5.8) and credits (3.1.5.9) on an established connection. */
class DataPathTest {

    final Harness h = new Harness();
    final List<Throwable> outcomes = new ArrayList<>();

    /** Active, 1 KiB messages, 10 credits each way (examples 4.1-4.3); the first grant already went out. */
    Connection established() {
        Connection c = h.active(10, 10, 1024, 1024, 131072);
        h.provider.last().completeSends();
        return c;
    }

    void send(Connection c, byte[] payload) {
        c.send(ByteBuffer.wrap(payload), (m, x) -> outcomes.add(x == null ? new Throwable("ok") : x));
    }

    static byte[] reassemble(List<FakeEndpoint.Wr> sends, int from) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = from; i < sends.size(); i++) {
            ByteBuffer m = sends.get(i).message();
            int off = (int) DataTransfer.dataOffset(m, 0);
            int len = (int) DataTransfer.dataLength(m, 0);
            out.write(m.array(), off, len);
        }
        return out.toByteArray();
    }

    @Test
    void example_4_2_fiveHundredBytesInOneMessage() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int before = e.sends.size();
        byte[] data = Harness.bytes(500, 7);
        send(c, data);
        assertEquals(before + 1, e.sends.size());
        ByteBuffer m = e.sends.get(before).message();
        assertEquals(524, m.remaining(), "24-byte header + 500");
        assertEquals(255, DataTransfer.creditsRequested(m, 0), "R-3.1.5.1-09: our SendCreditTarget");
        assertEquals(0, DataTransfer.flags(m, 0), "R-3.1.5.1-12, R-2.2.3-03");
        assertEquals(0, DataTransfer.reserved(m, 0), "R-2.2.3-05");
        assertEquals(0, DataTransfer.remainingDataLength(m, 0));
        assertEquals(24, DataTransfer.dataOffset(m, 0), "R-3.1.5.4-12");
        assertEquals(500, DataTransfer.dataLength(m, 0));
        assertEquals(0, m.getInt(20), "R-3.1.5.4-17: zero padding");
        assertArrayEquals(data, reassemble(e.sends, before));
        assertTrue(outcomes.isEmpty(), "completes only when the Send completed");
        e.completeSends();
        assertEquals(1, outcomes.size());
        assertEquals("ok", outcomes.get(0).getMessage());
    }

    @Test
    @DisplayName("R-3.1.5.1-08 R-3.1.5.4-13 R-3.1.5.4-15: example 4.3")
    void example_4_3_sixtyFourKiBFragmentedWithCreditStallsAndExactRemainingLengths() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int before = e.sends.size();
        byte[] data = Harness.bytes(65536, 3);
        send(c, data);
        // 10 credits minus the one spent on the grant: 9 fragments, the ninth grants (last-credit rule)
        assertEquals(before + 9, e.sends.size());
        ByteBuffer f0 = e.sends.get(before).message();
        assertEquals(1000, DataTransfer.dataLength(f0, 0), "R-3.1.5.4-13: MaxSendSize - 24");
        assertEquals(64536, DataTransfer.remainingDataLength(f0, 0), "R-3.1.5.4-15");
        assertEquals(63536, DataTransfer.remainingDataLength(e.sends.get(before + 1).message(), 0));
        assertEquals(0, c.credits.sendCredits());
        e.completeSends();
        // the peer grants in batches until all 66 fragments are out
        int guard = 0;
        while (e.sends.size() - before < 66 && guard++ < 20) {
            e.deliver(Harness.dt(10, 10, 0, 0, new byte[0]));
            e.completeSends();
        }
        assertEquals(66, e.sends.size() - before - emptyGrantsSince(e, before));
        ByteBuffer last = lastData(e);
        assertEquals(536, DataTransfer.dataLength(last, 0));
        assertEquals(0, DataTransfer.remainingDataLength(last, 0));
        assertArrayEquals(data, reassemble(dataOnly(e, before), 0), "byte-exact");
        assertEquals(1, outcomes.size(), "one completion per message");
        assertTrue(c.timers.creditStalls() > 0);
    }

    private static int emptyGrantsSince(FakeEndpoint e, int from) {
        int n = 0;
        for (int i = from; i < e.sends.size(); i++) {
            if (DataTransfer.dataLength(e.sends.get(i).message(), 0) == 0) {
                n++;
            }
        }
        return n;
    }

    private static List<FakeEndpoint.Wr> dataOnly(FakeEndpoint e, int from) {
        List<FakeEndpoint.Wr> out = new ArrayList<>();
        for (int i = from; i < e.sends.size(); i++) {
            if (DataTransfer.dataLength(e.sends.get(i).message(), 0) > 0) {
                out.add(e.sends.get(i));
            }
        }
        return out;
    }

    private static ByteBuffer lastData(FakeEndpoint e) {
        List<FakeEndpoint.Wr> d = dataOnly(e, 0);
        return d.get(d.size() - 1).message();
    }

    @Test
    void peerLesson4_noEmptyMessageBetweenFragments() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int before = e.sends.size();
        send(c, Harness.bytes(20000, 1));
        e.completeSends();
        // while the message is stalled on credits the peer asks for a keepalive reply and grants credits
        for (int i = 0; i < 5; i++) {
            e.deliver(Harness.dt(10, 3, 1, 0, new byte[0]));
            e.completeSends();
        }
        List<FakeEndpoint.Wr> all = e.sends.subList(before, e.sends.size());
        boolean inMessage = false;
        for (FakeEndpoint.Wr w : all) {
            ByteBuffer m = w.message();
            long len = DataTransfer.dataLength(m, 0);
            if (inMessage) {
                assertTrue(len > 0, "no empty message inside a fragmented message (R-3.1.5.4-21)");
            }
            inMessage = DataTransfer.remainingDataLength(m, 0) > 0;
        }
        assertFalse(inMessage, "the message finished");
        assertEquals(0, c.timers.keepalivesSent(), "the replies carried Flags 0 (A-8)");
    }

    @Test
    @DisplayName("R-3.1.4.2-01 R-3.1.4.2-02 R-3.1.4.2-03: too large")
    void R_3_1_4_2_03_tooLargeMessageRefusedWithNothingSent() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int before = e.sends.size();
        send(c, new byte[131073]);
        assertEquals(before, e.sends.size(), "R-3.1.5.4-02");
        SmbDirectException x = assertInstanceOf(SmbDirectException.class, outcomes.get(0));
        assertEquals(SmbDirectException.Kind.MESSAGE_TOO_LARGE, x.kind());
        send(c, new byte[0]);
        assertEquals(SmbDirectException.Kind.INVALID_ARGUMENT, ((SmbDirectException) outcomes.get(1)).kind());
        assertTrue(c.isOpen());
    }

    @Test
    void exactlyMaxFragmentedSendSizeIsSent() {
        Connection c = established();
        send(c, new byte[131072]);
        assertTrue(outcomes.isEmpty());
    }

    @Test
    @DisplayName("R-3.1.1.1-02 R-3.1.4.2-04 R-3.1.5.1-02 R-3.1.5.4-18 R-3.1.5.4-20: send order")
    void R_3_1_1_1_02_messagesLeaveInSendOrder() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        int before = e.sends.size();
        for (int i = 0; i < 5; i++) {
            send(c, Harness.bytes(1500, i));
        }
        for (int g = 0; g < 5; g++) {
            e.deliver(Harness.dt(10, 10, 0, 0, new byte[0]));
        }
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < 5; i++) {
            expected.writeBytes(Harness.bytes(1500, i));
        }
        assertArrayEquals(expected.toByteArray(), reassemble(dataOnly(e, before), 0));
        assertEquals(5, outcomes.size());
    }

    @Test
    void A_16_lastCreditMessageAlwaysGrants() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        // spend credits until one is left, with nothing to grant
        while (c.credits.sendCredits() > 1) {
            send(c, Harness.bytes(10, 1));
        }
        assertEquals(0, c.credits.ungranted());
        int before = e.sends.size();
        send(c, Harness.bytes(10, 2));
        ByteBuffer m = e.sends.get(before).message();
        assertTrue(DataTransfer.creditsGranted(m, 0) >= 1, "R-3.1.5.1-06 / R-3.1.5.9-04");
        assertEquals(11, c.credits.receiveCredits(), "one receive beyond the target for it");
    }

    @Test
    @DisplayName("R-3.1.5.8-13 R-3.1.5.8-14 R-3.1.5.1-07: grants resume the queue")
    void R_3_1_5_8_13_grantsResumeAQueuedMessage() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        while (c.credits.sendCredits() > 0) {
            send(c, Harness.bytes(10, 1));
        }
        int before = e.sends.size();
        send(c, Harness.bytes(10, 9));
        assertEquals(before, e.sends.size(), "R-3.1.5.1-04: queued");
        assertEquals(1, c.getConnectionDTO().sendQueueDepth);
        e.deliver(Harness.dt(10, 2, 0, 0, new byte[0]));
        assertEquals(before + 1, e.sends.size(), "R-3.1.5.8-14");
    }

    @Test
    void receivedSingleFragmentIsDeliveredZeroCopyAndReceiveReposted() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int posted = e.receives.size();
        byte[] data = Harness.bytes(900, 5);
        e.deliver(Harness.dt(10, 1, 0, 0, data));
        assertEquals(1, h.recorder.messages.size());
        assertArrayEquals(data, h.recorder.messages.get(0));
        assertTrue(h.recorder.zeroCopy.get(0), "a view of the registered receive buffer");
        assertEquals(posted, e.receives.size(), "reposted at once");
        assertEquals(1, c.receivePath.messagesReceived());
    }

    @Test
    void A_28_emptyMessagesNeverReachTheUpperLayer() {
        established();
        FakeEndpoint e = h.provider.last();
        e.deliver(Harness.dt(10, 1, 0, 0, new byte[0]));
        assertTrue(h.recorder.messages.isEmpty());
    }

    @Test
    @DisplayName("R-3.1.5.8-15 R-3.1.5.8-16 R-3.1.5.8-20 A-29: reassembly")
    void R_3_1_5_8_20_fragmentsReassembledWithZeroLengthFragments_A_29() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        byte[] data = Harness.bytes(2500, 11);
        // a first fragment with DataLength 0 and DataOffset 24
        ByteBuffer first = Harness.le(24);
        DataTransfer.encodeHeaderOnly(first, 0, 10, 0, 0, 2500, 24, 0);
        e.deliver(first);
        e.deliver(Harness.dt(10, 0, 0, 1500, java.util.Arrays.copyOfRange(data, 0, 1000)));
        e.deliver(Harness.dt(10, 0, 0, 1500, new byte[0]));
        e.deliver(Harness.dt(10, 0, 0, 500, java.util.Arrays.copyOfRange(data, 1000, 2000)));
        assertTrue(h.recorder.messages.isEmpty());
        e.deliver(Harness.dt(10, 0, 0, 0, java.util.Arrays.copyOfRange(data, 2000, 2500)));
        assertEquals(1, h.recorder.messages.size());
        assertArrayEquals(data, h.recorder.messages.get(0));
        assertTrue(c.isOpen());
    }

    @Test
    void R_3_1_5_8_18_prematureFinalFragmentTerminates() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.deliver(Harness.dt(10, 0, 0, 1000, Harness.bytes(500, 1)));
        e.deliver(Harness.dt(10, 0, 0, 0, Harness.bytes(500, 1)));
        assertFalse(c.isOpen());
        assertEquals("R-3.1.5.8-18", h.recorder.disconnects.get(0).rule());
        h.provider.assertNoLeaks();
    }

    @Test
    void A_30_inconsistentRemainingLengthTerminates() {
        established();
        FakeEndpoint e = h.provider.last();
        e.deliver(Harness.dt(10, 0, 0, 1000, Harness.bytes(500, 1)));
        e.deliver(Harness.dt(10, 0, 0, 1000, Harness.bytes(500, 1)));
        assertEquals("A-30", h.recorder.disconnects.get(0).rule());
    }

    @Test
    void R_3_1_5_8_06_everyDataTransferCheckTerminates() {
        ByteBuffer shortMsg = Harness.dt(10, 0, 0, 0, new byte[0]).limit(19);
        ByteBuffer noCredits = Harness.dt(0, 0, 0, 0, Harness.bytes(10, 1));
        ByteBuffer misaligned = Harness.le(40);
        DataTransfer.encodeHeaderOnly(misaligned, 0, 10, 0, 0, 0, 25, 10);
        ByteBuffer beyond = Harness.le(40);
        DataTransfer.encodeHeaderOnly(beyond, 0, 10, 0, 0, 0, 32, 10);
        ByteBuffer tooLong = Harness.dt(10, 0, 0, (1 << 20) + 1, new byte[0]);
        Object[][] cases = {{shortMsg, "R-3.1.5.8-01"}, {noCredits, "R-3.1.5.8-02"}, {misaligned, "R-3.1.5.8-03"},
            {beyond, "R-3.1.5.8-04"}, {tooLong, "R-3.1.5.8-05"}};
        for (Object[] cs : cases) {
            DataPathTest t = new DataPathTest();
            Connection c = t.established();
            FakeEndpoint e = t.h.provider.last();
            e.deliver((ByteBuffer) cs[0]);
            assertFalse(c.isOpen(), (String) cs[1]);
            CloseReason r = t.h.recorder.disconnects.get(0);
            assertEquals(CloseReason.Kind.PROTOCOL_VIOLATION, r.kind());
            assertEquals(cs[1], r.rule(), r.toString());
            t.h.provider.assertNoLeaks();
            assertEquals(1, t.h.recorder.disconnects.size(), "told once");
        }
    }

    @Test
    void A_11_trailingBytesAfterThePayloadAreIgnored() {
        established();
        FakeEndpoint e = h.provider.last();
        ByteBuffer m = Harness.le(100);
        DataTransfer.encodeHeader(m, 0, 10, 0, 0, 0, 24, 10);
        e.deliver(m);
        assertEquals(10, h.recorder.messages.get(0).length);
    }

    @Test
    void R_3_1_5_1_04_peerSendingWithoutACreditIsAViolation() {
        // passive: the response granted 10; we hold no Send Credit, so reposted receives stay ungranted
        Connection c = h.passive(10, 1024, 1024, 131072);
        FakeEndpoint e = h.provider.last();
        for (int i = 0; i < 10; i++) {
            e.deliver(Harness.dt(10, 0, 0, 0, Harness.bytes(5, i)));
        }
        assertTrue(c.isOpen());
        assertEquals(0, c.credits.peerCredits());
        e.deliver(Harness.dt(10, 0, 0, 0, Harness.bytes(5, 0)));
        assertFalse(c.isOpen());
        assertEquals("R-3.1.5.1-04", h.recorder.disconnects.get(0).rule());
    }

    @Test
    void A_22_messageLongerThanMaxReceiveSizeEndsWithProviderError() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.deliver(Harness.dt(10, 0, 0, 0, new byte[1024 - 24 + 1]));
        assertFalse(c.isOpen());
        CloseReason r = h.recorder.disconnects.get(0);
        assertEquals(CloseReason.Kind.PROVIDER_ERROR, r.kind());
        assertTrue(r.detail().contains("LOCAL_LENGTH_ERROR"), r.detail());
    }

    @Test
    void A_22_receiverNotReadyOnASendEndsWithProviderErrorAndFailsTheMessage() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        send(c, Harness.bytes(100, 1));
        e.complete(e.outstandingSends().get(0), CompletionStatus.RECEIVER_NOT_READY);
        assertFalse(c.isOpen());
        assertEquals(1, outcomes.size());
        SmbDirectException x = assertInstanceOf(SmbDirectException.class, outcomes.get(0));
        assertEquals(SmbDirectException.Kind.CONNECTION_CLOSED, x.kind());
        assertTrue(h.recorder.disconnects.get(0).detail().contains("RECEIVER_NOT_READY"));
        h.provider.assertNoLeaks();
    }

    @Test
    void R_3_1_5_8_17_invalidatedTokenReportedWithTheCompletedMessage_A_36() {
        established();
        FakeEndpoint e = h.provider.last();
        e.deliver(Harness.dt(10, 0, 0, 500, Harness.bytes(500, 1)), 0x1234);
        e.deliver(Harness.dt(10, 0, 0, 0, Harness.bytes(500, 2)));
        assertEquals(0x1234, h.recorder.tokens.get(0), "R-3.1.5.8-19");
        e.deliver(Harness.dt(10, 0, 0, 0, Harness.bytes(5, 2)));
        assertNull(h.recorder.tokens.get(1), "cleared after being handed up");
    }

    @Test
    @DisplayName("R-3.1.5.4-19 R-3.1.5.1-13: Send with Invalidate")
    void R_3_1_5_4_19_remoteTokenAttachedToExactlyOneFragment() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        int before = e.sends.size();
        c.sendWithInvalidate(ByteBuffer.wrap(Harness.bytes(2500, 1)), 0xBEEF, (m, x) -> outcomes.add(x));
        long withToken = e.sends.subList(before, e.sends.size()).stream().filter(w -> w.invalidateToken != null)
                .count();
        assertEquals(1, withToken);
        assertEquals(0xBEEF, e.sends.get(before).invalidateToken.intValue(), "A-36: the first fragment");
    }

    @Test
    void R_3_1_5_1_14_tokenDroppedWhenTheProviderCannotInvalidate() {
        h.provider.capabilities = new smbdirect.api.rdma.RdmaCapabilities(1024, 1024, 4, 64, 1 << 30, 16, 16,
                1L << 32, false);
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int before = e.sends.size();
        c.sendWithInvalidate(ByteBuffer.wrap(Harness.bytes(100, 1)), 0xBEEF, (m, x) -> outcomes.add(x));
        assertNull(e.sends.get(before).invalidateToken);
        assertFalse(c.parameters().sendWithInvalidate());
        assertFalse(c.parameters().remoteInvalidation());
    }

    @Test
    void theConnectionSaysWhetherAPeersSendWithInvalidateInvalidatesItsMemoryApartFromPostingOne() {
        // a device that posts Send with Invalidate but does not invalidate its own registrations on receipt
        h.provider.capabilities = new smbdirect.api.rdma.RdmaCapabilities(1024, 1024, 4, 64, 1 << 30, 16, 16,
                1L << 32, true, false);
        Connection c = established();
        assertTrue(c.parameters().sendWithInvalidate());
        assertFalse(c.parameters().remoteInvalidation(), "an SMB client must not ask for remote invalidation");
    }

    @Test
    void peerLesson2_grantsNeverExceedPostedReceives() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        long granted = 10;
        for (int i = 0; i < 200; i++) {
            int before = e.sends.size();
            if (i % 3 == 0) {
                send(c, Harness.bytes(1500, i));
            }
            e.deliver(Harness.dt(10, i % 2, 0, 0, Harness.bytes(i % 50, i)));
            for (int j = before; j < e.sends.size(); j++) {
                granted += DataTransfer.creditsGranted(e.sends.get(j).message(), 0);
            }
            long consumed = c.receivePath.fragmentsReceived();
            assertTrue(granted - consumed <= c.credits.receiveCredits(), "outstanding grants <= posted receives");
            assertEquals(c.credits.receiveCredits(), e.receives.size(), "ReceiveCredits = receives posted");
            assertTrue(c.credits.receiveCredits() <= c.credits.receiveCapacity());
        }
    }

    @Test
    @DisplayName("R-3.1.5.8-08 R-3.1.5.8-09 peer-lessons 3: refill")
    void peerLesson3_refillWhenThePeerFallsBelowTheFraction() {
        Connection c = h.active(100, 100, 1024, 1024, 131072);
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        e.completeSends();
        int before = e.sends.size();
        // the peer keeps a constant target of 100 and consumes credits with data; the default
        // creditRefillFraction 0.9 grants once it holds fewer than 90
        for (int i = 0; i < 10; i++) {
            e.deliver(Harness.dt(100, 0, 0, 0, Harness.bytes(10, i)));
        }
        assertEquals(before, e.sends.size(), "no grant while the peer holds >= 90 % of its target");
        e.deliver(Harness.dt(100, 0, 0, 0, Harness.bytes(10, 1)));
        assertEquals(before + 1, e.sends.size(), "refill below 90 %");
        assertEquals(11, DataTransfer.creditsGranted(e.sends.get(before).message(), 0), "in one batch");
        assertEquals(2, c.sendPath.creditGrantsSent(), "the grant after negotiation and the refill");
    }

    @Test
    @DisplayName("R-3.1.5.8-09 A-15: an empty message alone is not answered; the empty replies stay bounded")
    void A_15_noEmptyMessagePingPongWhenIdle() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.autoCompleteSends = true;
        int before = e.sends.size();
        e.deliver(Harness.dt(10, 1, 0, 0, new byte[0]));
        assertEquals(before, e.sends.size(), "an empty message alone (one credit missing) is not answered");
        for (int i = 1; i < 20; i++) {
            e.deliver(Harness.dt(10, 1, 0, 0, new byte[0]));
        }
        int replies = e.sends.size() - before;
        assertTrue(replies <= 10, "at most one empty reply per two empty messages: " + replies);
        assertTrue(c.isOpen());
    }
}
