package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockProvider;

/**
 * Send buffers sized by need: a connection starts with {@link SendBuffers#FIRST_CHUNK} registered
 * send slots, grows by registered chunks under a burst up to its usable send credits + 1, loses
 * nothing when a growth registration is refused, and holds no region after close. The initial
 * negotiation region is released once negotiation succeeded, on both sides.
 */
class SendBufferGrowthTest {

    /** 32 credits each way: up to 33 send slots. */
    static final TransportSettings SETTINGS = TransportSettings.builder().sendCreditTarget(32).receiveCreditMax(32)
            .maxSendSize(1024).maxReceiveSize(1024).maxFragmentedRecvSize(1 << 20).build();

    MockPair pair;

    @AfterEach
    void noLeaks() {
        if (pair != null) {
            pair.close();
            pair.fabric.assertNoLeaks();
            assertEquals(0, pair.fabric.stats().registeredRegions(), "every region released with its endpoint");
        }
    }

    private MockEndpoint endpointOf(MockProvider provider) {
        for (MockEndpoint e : pair.fabric.endpoints()) {
            if (e.provider() == provider) {
                return e;
            }
        }
        throw new AssertionError("no endpoint on " + provider);
    }

    /** A burst of messages, some several fragments long, each with its own content. */
    private static List<byte[]> burst(int count) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(Harness.bytes(i % 5 == 0 ? 3000 + i : 100 + i * 7, i));
        }
        return out;
    }

    /** Sends {@code messages} in one go (nothing delivered meanwhile); returns the completions' outcomes. */
    private List<Throwable> sendAll(Connection c, List<byte[]> messages) {
        List<Throwable> outcomes = Collections.synchronizedList(new ArrayList<>());
        for (byte[] m : messages) {
            c.send(ByteBuffer.wrap(m), (b, x) -> outcomes.add(x));
        }
        return outcomes;
    }

    private void assertDeliveredInOrder(List<byte[]> sent, List<byte[]> received) {
        assertEquals(sent.size(), received.size(), "every message delivered");
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), received.get(i), "message " + i + " byte-exact and in order");
        }
    }

    @Test
    void negotiationLeavesTheFirstSendChunkAndReleasesTheInitialRegionOnBothSides() {
        pair = new MockPair(SETTINGS);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        for (Connection x : List.of(c, s)) {
            assertFalse(x.negotiation.holdsInitialRegion(), "initial region released after negotiation");
            assertEquals(SendBuffers.FIRST_CHUNK, x.sendPath.slotCapacity(), "a few send slots to start with");
            assertEquals(1, x.sendPath.bufferChunks());
        }
        // the receive region and the first send chunk, nothing else
        assertEquals(2, endpointOf(pair.clientProvider).registeredRegions());
        assertEquals(2, endpointOf(pair.serverProvider).registeredRegions());
    }

    @Test
    void sendBuffersGrowUnderABurstUpToTheCreditLimitWithMessagesByteExactAndInOrder() {
        pair = new MockPair(SETTINGS);
        Connection c = pair.connect();
        pair.run();
        int credits = c.credits.sendCredits();
        assertTrue(credits > SendBuffers.FIRST_CHUNK, "the peer granted more credits than there are slots: " + credits);

        List<byte[]> messages = burst(120);
        List<Throwable> outcomes = sendAll(c, messages);
        // nothing completed yet: every credit went out, each in a slot of its own
        int capacity = c.sendPath.slotCapacity();
        assertTrue(capacity >= credits, "grew to cover the credits in flight: " + capacity + " slots, " + credits
                + " credits");
        assertTrue(capacity <= 33, "never beyond the usable send credits + 1: " + capacity);
        assertTrue(c.sendPath.bufferChunks() > 1, "grew by registered chunks");
        assertEquals(1 + c.sendPath.bufferChunks(), endpointOf(pair.clientProvider).registeredRegions(),
                "the receive region and every send chunk");

        pair.run();
        assertDeliveredInOrder(messages, pair.serverSide.messages);
        assertEquals(messages.size(), outcomes.size());
        for (Throwable x : outcomes) {
            assertNull(x, "every send completed successfully");
        }
        assertTrue(c.sendPath.slotCapacity() <= 33);
        assertEquals(0, c.sendPath.growthFailures());

        // the grown buffers stay: a second burst registers nothing more
        int chunks = c.sendPath.bufferChunks();
        List<byte[]> again = burst(60);
        pair.serverSide.messages.clear();
        sendAll(c, again);
        pair.run();
        assertDeliveredInOrder(again, pair.serverSide.messages);
        assertEquals(chunks, c.sendPath.bufferChunks(), "steady state: no further registration");
        assertTrue(c.isOpen());
    }

    @Test
    void aRefusedGrowthLosesNothingTheMessagesWaitForSlotsAndGrowthIsRetried() {
        pair = new MockPair(SETTINGS);
        Connection c = pair.connect();
        pair.run();
        pair.clientProvider.failNextRegistrations(1);

        List<byte[]> messages = burst(120);
        List<Throwable> outcomes = sendAll(c, messages);
        assertEquals(1, c.sendPath.growthFailures(), "the refused registration is counted (and logged)");
        assertEquals(SendBuffers.FIRST_CHUNK, c.sendPath.slotCapacity(), "nothing registered by the failed growth");
        assertTrue(outcomes.isEmpty(), "no message failed or completed yet: they wait for a slot");
        assertTrue(c.isOpen(), "a refused growth does not end the connection");

        pair.run();
        assertDeliveredInOrder(messages, pair.serverSide.messages);
        assertEquals(messages.size(), outcomes.size());
        for (Throwable x : outcomes) {
            assertNull(x, "every send completed successfully");
        }
        assertTrue(c.sendPath.slotCapacity() > SendBuffers.FIRST_CHUNK, "growth was tried again after completions");
        assertEquals(1 + c.sendPath.bufferChunks(), endpointOf(pair.clientProvider).registeredRegions());
    }

    @Test
    void sendBuffersThatCannotGrowAtAllStillDeliverEveryMessage() {
        pair = new MockPair(SETTINGS);
        Connection c = pair.connect();
        pair.run();
        pair.clientProvider.failNextRegistrations(Integer.MAX_VALUE);

        List<byte[]> messages = burst(80);
        List<Throwable> outcomes = sendAll(c, messages);
        pair.run();
        pair.clientProvider.failNextRegistrations(0);
        assertDeliveredInOrder(messages, pair.serverSide.messages);
        assertEquals(messages.size(), outcomes.size());
        for (Throwable x : outcomes) {
            assertNull(x);
        }
        assertEquals(SendBuffers.FIRST_CHUNK, c.sendPath.slotCapacity(), "every growth was refused");
        assertTrue(c.sendPath.growthFailures() >= 1);
        assertTrue(c.isOpen());
    }

    @Test
    void closeReleasesEverySendChunk() {
        pair = new MockPair(SETTINGS);
        Connection c = pair.connect();
        pair.run();
        sendAll(c, burst(120));
        pair.run();
        assertTrue(c.sendPath.bufferChunks() > 1);
        MockEndpoint e = endpointOf(pair.clientProvider);
        assertEquals(1 + c.sendPath.bufferChunks(), e.registeredRegions());
        c.close();
        pair.run();
        assertFalse(c.isOpen());
        assertEquals(0, e.registeredRegions(), "no send chunk, receive or initial region left");
        assertEquals(MockEndpoint.State.CLOSED, e.state());
    }

    /** Slot numbers stay unique across chunks and each names its own bytes in one registered region. */
    @Test
    void slotsOfAllChunksAreDistinctAndAddressDisjointBytes() throws RdmaException {
        Harness h = new Harness();
        h.active();
        FakeEndpoint e = h.provider.last();
        int before = e.regions.size();
        SendBuffers b = SendBuffers.register(e, 2, 37, 100);
        int growths = 0;
        while (b.grow(e)) {
            growths++;
        }
        assertEquals(37, b.capacity());
        assertEquals(5, growths, "2 -> 4 -> 8 -> 16 -> 32 -> 37");
        assertEquals(6, b.chunks());
        assertEquals(before + 6, e.regions.size(), "one registration per chunk");
        assertFalse(b.grow(e), "never beyond the maximum");
        assertSlotsDistinct(e, b);
        for (int[] firstAndMax : new int[][] {{1, 1}, {1, 9}, {2, 2}, {4, 100}, {2, 256}}) {
            SendBuffers o = SendBuffers.register(e, firstAndMax[0], firstAndMax[1], 64);
            while (o.grow(e)) {
                // up to the maximum
            }
            assertEquals(firstAndMax[1], o.capacity());
            assertSlotsDistinct(e, o);
        }
        assertThrows(IllegalArgumentException.class, () -> SendBuffers.register(e, 3, 10, 64),
                "the first chunk is a power of two");
    }

    private static void assertSlotsDistinct(FakeEndpoint e, SendBuffers b) {
        Set<Integer> slots = new HashSet<>();
        Set<String> places = new HashSet<>();
        int n = b.capacity();
        while (b.available() > 0) {
            int slot = b.take();
            assertTrue(slot >= 0 && slot < n, "slot " + slot + " within the capacity");
            assertTrue(slots.add(slot), "slot " + slot + " taken once");
            ByteBuffer buf = b.buffer(slot);
            MemoryRegion r = b.region(slot);
            int off = b.offset(slot);
            assertTrue(off >= 0 && off + b.slotSize <= buf.capacity(), "slot " + slot + " inside its chunk");
            assertTrue(e.regions.contains(r));
            assertEquals(buf.capacity(), ((FakeEndpoint.Region) r).buffer.capacity(), "the chunk's own region");
            assertTrue(places.add(System.identityHashCode(buf) + "@" + off), "slot " + slot + " has bytes of its own");
        }
        assertEquals(n, slots.size());
        for (int s : slots) {
            b.give(s);
        }
        assertEquals(n, b.available());
    }

    @Test
    void aRefusedChunkRegistrationChangesNothing() throws RdmaException {
        Harness h = new Harness();
        h.active();
        FakeEndpoint e = h.provider.last();
        SendBuffers b = SendBuffers.register(e, 2, 17, 100);
        e.failRegisterAfter = 0;
        assertThrows(RdmaException.class, () -> b.grow(e));
        assertEquals(2, b.capacity());
        assertEquals(1, b.chunks());
        assertEquals(2, b.available());
        e.failRegisterAfter = -1;
        assertTrue(b.grow(e));
        assertEquals(4, b.capacity());
        assertEquals(4, b.available());
    }

    /**
     * The serial ring sized for 32 credits holds every completion a full credit window produces when
     * all of them arrive while the connection's serial context is busy.
     */
    @Test
    void aFullWindowOfCompletionsOnABusyContextFitsTheSizedSerialRing() {
        pair = new MockPair(smbdirect.rdma.mock.DeliveryMode.INLINE, SETTINGS, SETTINGS);
        Connection c = pair.connect();
        MockEndpoint e = endpointOf(pair.clientProvider);
        e.holdCompletions();
        List<byte[]> messages = burst(200);
        List<Throwable> outcomes = sendAll(c, messages);
        int held = e.pendingCallbacks();
        assertTrue(held >= 32, "a credit window of completions held: " + held);
        // delivered from inside a task of the connection: every one finds the context busy
        c.serial.execute(e::releaseCompletions);
        assertDeliveredInOrder(messages, pair.serverSide.messages);
        assertEquals(messages.size(), outcomes.size());
        assertEquals(0, c.serial.overflowed(), "no task beyond the ring");
        assertEquals(0, pair.serverConnection().serial.overflowed(), "server: no task beyond the ring");
    }

    /**
     * Completions the provider delivers while the send loop runs (inline, from the loop's own posts)
     * are taken by the loop when it runs out of slots or credits: a one-way stream of fragmented
     * messages reuses the first send slots, which stay hot in the cache, and never stalls on a credit
     * grant that has already arrived.
     */
    @Test
    @DisplayName("R-3.1.5.1-04: the send loop reuses slots and credits whose completions arrived while it ran")
    void theSendLoopReusesSlotsAndCreditsWhoseCompletionsArrivedWhileItRan() {
        TransportSettings settings = TransportSettings.builder().maxSendSize(8192).maxReceiveSize(8192).build();
        pair = new MockPair(smbdirect.rdma.mock.DeliveryMode.INLINE, settings, settings);
        Connection c = pair.connect();
        List<byte[]> messages = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            messages.add(Harness.bytes(64 * 1024 + i, i)); // 9 fragments each, 360 in all: beyond 255 credits
        }
        List<Throwable> outcomes = sendAll(c, messages);
        assertDeliveredInOrder(messages, pair.serverSide.messages);
        assertEquals(messages.size(), outcomes.size());
        for (Throwable x : outcomes) {
            assertNull(x, "every send completed successfully");
        }
        assertEquals(SendBuffers.FIRST_CHUNK, c.sendPath.slotCapacity(), "the first send slots serve the whole stream");
        assertEquals(0, c.timers.creditStalls(), "the grants that arrived during the loop were taken: no stall");
        assertTrue(c.isOpen());
        assertTrue(pair.serverConnection().isOpen(), "R-3.1.5.1-04: no fragment went out without a Send Credit");
    }
}
