package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.SmbDirectException;

/** The small parts: serial context, descriptor slicing, credit arithmetic, reassembly. */
class UnitsTest {

    @Test
    void serialContextRunsNestedSubmissionsAfterTheCurrentTask() {
        SerialExecutor s = new SerialExecutor();
        List<String> order = new ArrayList<>();
        s.execute(() -> {
            order.add("a-start");
            s.execute(() -> order.add("b"));
            order.add("a-end");
        });
        assertEquals(List.of("a-start", "a-end", "b"), order);
    }

    @Test
    void serialContextIsSerialUnderConcurrentSubmitters() throws Exception {
        SerialExecutor s = new SerialExecutor();
        int[] counter = new int[1];
        boolean[] overlap = new boolean[1];
        int[] inside = new int[1];
        List<Integer> perThread = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 10000; i++) {
                    int v = i;
                    s.execute(() -> {
                        if (++inside[0] != 1) {
                            overlap[0] = true;
                        }
                        counter[0]++;
                        if (id == 0) {
                            perThread.add(v);
                        }
                        inside[0]--;
                    });
                }
            });
            threads.add(th);
            th.start();
        }
        go.countDown();
        for (Thread th : threads) {
            th.join(TimeUnit.SECONDS.toMillis(30));
        }
        CountDownLatch drained = new CountDownLatch(1);
        s.execute(drained::countDown);
        assertTrue(drained.await(10, TimeUnit.SECONDS));
        assertEquals(40000, counter[0]);
        assertTrue(!overlap[0], "never two tasks at once");
        for (int i = 0; i < perThread.size(); i++) {
            assertEquals(i, perThread.get(i), "one submitter's tasks run in its order");
        }
    }

    @Test
    void tryEnterIdleRefusesWhenWorkIsQueuedOrRunning() {
        SerialExecutor s = new SerialExecutor();
        assertTrue(s.tryEnterIdle());
        List<String> order = new ArrayList<>();
        s.execute(() -> order.add("queued while inside"));
        assertTrue(order.isEmpty());
        s.exit();
        assertEquals(1, order.size());
    }

    @Test
    void R_3_1_4_6_02_sliceFindsFirstDescriptorAndTrimsBothEnds() throws Exception {
        List<BufferDescriptor> d = List.of(new BufferDescriptor(100, 1, 10), new BufferDescriptor(200, 2, 10),
                new BufferDescriptor(300, 3, 10));
        List<DescriptorSlicer.Segment> s = DescriptorSlicer.slice(d, 15, 12, Integer.MAX_VALUE);
        assertEquals(2, s.size());
        assertEquals(new DescriptorSlicer.Segment(205, 2, 5, 0), s.get(0)); // R-3.1.4.6-04
        assertEquals(new DescriptorSlicer.Segment(300, 3, 7, 5), s.get(1)); // R-3.1.4.6-05
        List<DescriptorSlicer.Segment> one = DescriptorSlicer.slice(d, 21, 3, Integer.MAX_VALUE);
        assertEquals(List.of(new DescriptorSlicer.Segment(301, 3, 3, 0)), one, "first == last: both trims");
        // R-3.1.4.6-03: exactly the extent
        assertEquals(3, DescriptorSlicer.slice(d, 0, 30, Integer.MAX_VALUE).size());
        SmbDirectException x = assertThrows(SmbDirectException.class, () -> DescriptorSlicer.slice(d, 0, 31, 64));
        assertEquals(SmbDirectException.Kind.TRANSFER_TOO_LARGE, x.kind());
        assertEquals(3, DescriptorSlicer.slice(List.of(new BufferDescriptor(0, 1, 10)), 0, 10, 4).size(),
                "split by the provider's message size");
    }

    @Test
    void zeroLengthDescriptorsAreSkipped() throws Exception {
        List<BufferDescriptor> d = List.of(new BufferDescriptor(100, 1, 0), new BufferDescriptor(200, 2, 10));
        assertEquals(List.of(new DescriptorSlicer.Segment(200, 2, 10, 0)), DescriptorSlicer.slice(d, 0, 10, 64));
    }

    @Test
    @DisplayName("R-3.1.5.9-01 R-3.1.5.9-02 R-3.1.5.9-05 R-3.1.5.9-08: credit arithmetic")
    void R_3_1_5_9_creditArithmetic() {
        CreditManager m = new CreditManager(255, 255);
        m.onCreditsRequested(300);
        assertEquals(255, m.postTarget(), "A-18: bounded by ReceiveCreditMax");
        m.onCreditsRequested(0);
        assertEquals(1, m.postTarget());
        m.onCreditsRequested(10);
        assertEquals(10, m.receivesWanted());
        for (int i = 0; i < 10; i++) {
            m.onReceivePosted(); // R-3.1.5.9-08
        }
        assertEquals(0, m.receivesWanted(), "R-3.1.5.9-02");
        assertEquals(10, m.takeGrant());
        assertEquals(0, m.takeGrant(), "never granted twice");
        assertEquals(10, m.peerCredits());
        assertTrue(m.onMessageReceived());
        assertEquals(9, m.receiveCredits(), "R-3.1.5.8-07");
        m.addSendCredits(70000);
        assertEquals(0xFFFF, m.sendCredits());
    }

    /** A manager whose peer holds {@code target} credits of a target of {@code target}, then spent {@code spent}. */
    private static CreditManager peerHolding(int target, int spent) {
        CreditManager m = new CreditManager(255, 255);
        m.onCreditsRequested(target);
        for (int i = 0; i < target; i++) {
            m.onReceivePosted();
        }
        m.takeGrant();
        for (int i = 0; i < spent; i++) {
            m.onMessageReceived(); // the peer spent a credit
            m.onReceivePosted(); // and the receive was posted again, not yet granted
        }
        return m;
    }

    @Test
    @DisplayName("R-3.1.5.8-09 A-15: an empty grant goes out below the fraction of the target, never for one"
            + " missing credit")
    void A_15_anEmptyGrantIsDueBelowTheFractionButNeverForOneMissingCredit() {
        assertFalse(peerHolding(255, 25).grantDue(0.9), "230 of 255 held: not below 0.9 x 255");
        assertTrue(peerHolding(255, 26).grantDue(0.9), "229 of 255 held");
        assertFalse(peerHolding(255, 191).grantDue(0.25), "64 of 255 held: not below 0.25 x 255");
        assertTrue(peerHolding(255, 192).grantDue(0.25));
        assertFalse(peerHolding(255, 1).grantDue(1.0), "254 of 255: one missing credit is not enough");
        assertTrue(peerHolding(255, 2).grantDue(1.0));
        assertFalse(peerHolding(2, 1).grantDue(0.9), "1 of 2: an empty message answers no empty message");
        assertTrue(peerHolding(2, 2).grantDue(0.9), "a peer without credits always gets a grant");
        assertFalse(peerHolding(10, 1).grantDue(0.9), "9 of 10");
        assertTrue(peerHolding(10, 2).grantDue(0.9), "8 of 10");
        assertTrue(peerHolding(1, 1).grantDue(0.9), "target 1: the peer holds none");
        assertFalse(peerHolding(255, 0).grantDue(0.9), "nothing to grant: every receive is granted");
    }

    @Test
    @DisplayName("R-3.1.5.1-04 R-3.1.5.1-05 R-3.1.5.1-08 R-3.1.5.9-04 R-3.1.5.9-06: the credit gate")
    void creditGate() {
        CreditManager m = new CreditManager(255, 4);
        m.onCreditsRequested(2);
        assertFalse(m.hasSendCredit(), "R-3.1.5.1-04: nothing is sent before the peer granted a credit");
        m.onReceivePosted();
        m.onReceivePosted();
        m.addSendCredits(2);
        assertTrue(m.hasSendCredit());
        assertFalse(m.spendsLastCredit());
        assertEquals(2, m.onSend(), "R-3.1.5.1-05: a message grants every receive posted and not yet granted");
        assertEquals(1, m.sendCredits(), "R-3.1.5.1-08: and spends a credit");
        assertTrue(m.spendsLastCredit(), "the next message spends the last credit");
        assertTrue(m.lastCreditWaits(), "R-3.1.5.9-06: it would grant nothing");
        assertTrue(m.mayPostExtra(), "R-3.1.5.9-04: one more receive may be posted for its grant");
        m.onReceivePosted();
        assertFalse(m.lastCreditWaits());
        assertEquals(1, m.onSend());
        assertFalse(m.hasSendCredit());
        assertEquals(3, m.peerCredits());
    }

    @Test
    void freeSlotsAreTakenLastGivenFirstAndHoldEverySlotAfterGrowingWhileTaken() {
        FreeSlots f = new FreeSlots(2);
        f.addFree(0, 2);
        assertEquals(0, f.take(), "the lowest new slot first");
        assertEquals(1, f.take());
        assertEquals(0, f.available());
        f.addFree(2, 4); // more slots while the first two are taken
        assertEquals(2, f.take());
        f.give(1);
        f.give(0);
        f.give(2);
        assertEquals(4, f.available(), "every slot back");
        assertEquals(2, f.take(), "the slot given back last is taken first");
        assertEquals(0, f.take());
    }

    @Test
    void reassemblerSingleAndEmpty() {
        Reassembler r = new Reassembler(131072);
        ByteBuffer src = ByteBuffer.allocate(100);
        assertEquals(Reassembler.Outcome.SINGLE, r.onFragment(src, 0, 10, 0));
        assertEquals(Reassembler.Outcome.NONE, r.onFragment(src, 0, 0, 0), "A-28");
        assertEquals(Reassembler.Outcome.VIOLATION, r.onFragment(src, 0, 10, 131072));
        assertEquals("R-3.1.5.8-05", r.violationRule());
    }

    @Test
    void serialRingSizedByTheWorkRequestsThatCanCompleteAtOnce() {
        // defaults (255 credits each way): the full ring
        assertEquals(SerialExecutor.DEFAULT_CAPACITY, Connection.serialRingCapacity(TransportSettings.DEFAULTS));
        // 16 credits each way (the scale test): send queue 17 + 1 + 8 + 16 + 16, receive queue 18, 16 spare
        TransportSettings small = TransportSettings.builder().sendCreditTarget(16).receiveCreditMax(16).build();
        assertEquals(128, Connection.serialRingCapacity(small));
        assertTrue(Connection.serialRingCapacity(small) >= (17 + 1 + 8 + 16 + 16) + 18 + 16);
        TransportSettings tiny = TransportSettings.builder().sendCreditTarget(1).receiveCreditMax(1)
                .outboundReadDepth(1).build();
        assertEquals(64, Connection.serialRingCapacity(tiny), "never below 64");
    }
}
