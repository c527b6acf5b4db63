package smbdirect.rdma.iwarp.internal.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.internal.ReceiveCounters;
import smbdirect.rdma.iwarp.internal.wire.Hex;

/**
 * The receiver's read ahead into posted receives (see {@code Receiver}), with staging off: a stream of Sends is read
 * with far fewer system calls than FPDUs, and whatever the peer actually sends (other lengths,
 * other segment sizes, tagged segments, Read Requests, bad CRCs, wrong MSNs after a run of good
 * Sends) is placed, completed and refused exactly as without it: RFC 5041 §5.3 and §7.2, RFC 5040
 * §4.3–§4.4, RFC 5044 §6.1.
 */
class ReadAheadTest {

    private Rig rig;
    private RawPeer peer;
    private Rig.Side side;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
        if (rig != null) {
            rig.close();
        }
        if (side != null) {
            assertEquals(0, side.events.callbacksAfterDisconnect(), "callbacks after onDisconnected");
        }
    }

    private void established(int receives, int size) throws Exception {
        rig = new Rig(IwarpSettings.defaults());
        peer = RawPeer.connect(rig.listen());
        peer.crc = true;
        peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, RawPeer.word(4, 4)));
        side = rig.accept(receives, size, Rig.params(4, 4));
        peer.readFrame();
        side.events.awaitEstablished();
        // the read-ahead is what a connection uses between staged reads and once the peer's FPDUs
        // are too large to stage; here it is tested alone (StagedReceiveTest tests staging)
        ReceiveCounters.stagingLimit(side.endpoint, 0);
    }

    /** Random bytes, never all zero (so a receive left unwritten cannot pass for one written). */
    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        if (n > 0) {
            b[0] = (byte) (b[0] | 1);
        }
        return b;
    }

    /** FPDUs of one Send message with MSN {@code msn}, cut into segments of at most {@code segment} bytes. */
    private void message(ByteArrayOutputStream wire, int msn, byte[] m, int segment) {
        int mo = 0;
        do {
            int n = Math.min(segment, m.length - mo);
            wire.writeBytes(peer.fpdu(RawPeer.send(msn, mo, mo + n == m.length, Arrays.copyOfRange(m, mo, mo + n))));
            mo += n;
        } while (mo < m.length);
    }

    private void assertDelivered(List<byte[]> messages) throws Exception {
        List<Events.Completion> cs = side.events.awaitCompletions(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            Events.Completion c = cs.get(i);
            assertEquals(i, c.wrId(), "completions in posting order");
            assertEquals(CompletionStatus.SUCCESS, c.status(), "message " + i);
            assertEquals(messages.get(i).length, c.bytes(), "length of message " + i);
            assertArrayEquals(messages.get(i), side.received(i, messages.get(i).length), "bytes of message " + i);
        }
    }

    @Test
    void aRunOfEqualSendsIsReadIntoItsReceivesWithFewReadsAndNoCopy() throws Exception {
        established(16, 1000);
        Random random = new Random(1);
        List<byte[]> messages = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 16; i++) {
            messages.add(bytes(random, 1000));
            message(wire, i + 1, messages.get(i), 1000);
        }
        peer.send(wire.toByteArray());
        assertDelivered(messages);
        ReceiveCounters c = ReceiveCounters.of(side.endpoint);
        assertEquals(16, c.fpdus, c.toString());
        // one read for the first header, one for the first payload and all that follows once it arrived
        assertTrue(c.socketReads <= 6, "16 FPDUs sent in one write took " + c);
        assertEquals(0, c.spilledBytes, "every prediction held: " + c);
    }

    @Test
    void aLongMessageInManySegmentsIsReadAheadAcrossItsSegments() throws Exception {
        established(2, 40_000);
        Random random = new Random(2);
        List<byte[]> messages = List.of(bytes(random, 40_000), bytes(random, 40_000));
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        message(wire, 1, messages.get(0), 1436);
        message(wire, 2, messages.get(1), 1436);
        peer.send(wire.toByteArray());
        assertDelivered(messages);
        ReceiveCounters c = ReceiveCounters.of(side.endpoint);
        assertEquals(2 * 28, c.fpdus, c.toString());
        assertTrue(c.socketReads <= 16, "56 FPDUs of 1,436 bytes took " + c);
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 17, 5041})
    void sendsOfOtherLengthsAndSegmentSizesThanPredictedArePlacedExactly(int seed) throws Exception {
        established(16, 3000);
        Random random = new Random(seed);
        List<byte[]> messages = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 16; i++) {
            byte[] m = bytes(random, random.nextInt(5) == 0 ? random.nextInt(8) : random.nextInt(3001));
            messages.add(m);
            message(wire, i + 1, m, 1 + random.nextInt(random.nextBoolean() ? 200 : 3000));
        }
        peer.send(wire.toByteArray());
        assertDelivered(messages);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 64})
    void sendsArrivingInPiecesOfAnySizeArePlacedExactly(int seed) throws Exception {
        established(16, 2000);
        Random random = new Random(seed);
        List<byte[]> messages = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 16; i++) {
            byte[] m = bytes(random, i % 4 == 3 ? random.nextInt(2001) : 2000);
            messages.add(m);
            message(wire, i + 1, m, i % 3 == 0 ? 700 : 2000);
        }
        peer.sendInPieces(wire.toByteArray(), random, seed == 1 ? 40 : 3000);
        assertDelivered(messages);
    }

    @Test
    void taggedSegmentsAndReadRequestsAfterARunOfSendsAreCheckedAndPlacedOnlyWhereTheyName() throws Exception {
        established(16, 1000);
        MemoryRegion target = side.endpoint.register(ByteBuffer.allocateDirect(8192),
                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        MemoryRegion source = side.endpoint.register(ByteBuffer.allocateDirect(4096), EnumSet.of(MemoryAccess.REMOTE_READ));
        for (int i = 0; i < 8192; i++) {
            target.buffer().put(i, (byte) 0x5A);
        }
        Random random = new Random(4);
        byte[] readable = bytes(random, 4096);
        source.buffer().put(0, readable);
        byte[] written = bytes(random, 3000);
        List<byte[]> messages = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        int msn = 1;
        for (int i = 0; i < 6; i++) {
            messages.add(bytes(random, 1000));
            message(wire, msn++, messages.get(messages.size() - 1), 1000);
        }
        long to = target.address() + 2000;
        wire.writeBytes(peer.fpdu(RawPeer.tagged(0x81, 0x40, target.token(), to, Arrays.copyOfRange(written, 0, 1500))));
        wire.writeBytes(peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(), to + 1500,
                Arrays.copyOfRange(written, 1500, 3000))));
        for (int i = 0; i < 4; i++) {
            messages.add(bytes(random, 1000));
            message(wire, msn++, messages.get(messages.size() - 1), 1000);
        }
        wire.writeBytes(peer.fpdu(RawPeer.readRequest(1, 0xbeef, 0x7000, 4096, source.token(), source.address())));
        for (int i = 0; i < 6; i++) {
            messages.add(bytes(random, 1000));
            message(wire, msn++, messages.get(messages.size() - 1), 1000);
        }
        peer.send(wire.toByteArray());
        assertDelivered(messages);
        byte[] placed = new byte[8192];
        target.buffer().get(0, placed);
        for (int i = 0; i < 8192; i++) {
            byte want = i >= 2000 && i < 5000 ? written[i - 2000] : 0x5A;
            assertEquals(want, placed[i], "target byte " + i + " (the Write covers [2000, 5000))");
        }
        ByteArrayOutputStream response = new ByteArrayOutputStream();
        while (response.size() < 4096) {
            byte[] f = peer.readFpdu();
            assertEquals(0x42, f[1] & 0xFF, "Read Response");
            response.write(f, 14, f.length - 14);
        }
        assertArrayEquals(readable, response.toByteArray());
        assertTrue(ReceiveCounters.of(side.endpoint).spilledBytes > 0, "the tagged segments were mispredicted");
    }

    @Test
    void aBadCrcOnAPredictedFpduIsAnLlpCrcErrorAfterTheGoodOnesCompleted() throws Exception {
        established(16, 500);
        Random random = new Random(5);
        List<byte[]> messages = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 10; i++) {
            byte[] m = bytes(random, 500);
            byte[] f = peer.fpdu(RawPeer.send(i + 1, 0, true, m));
            if (i == 7) {
                f[f.length - 1] ^= 1;
            } else if (i < 7) {
                messages.add(m);
            }
            wire.writeBytes(f);
        }
        peer.send(wire.toByteArray());
        byte[] t = terminate();
        assertEquals("20 02 00 00", Hex.of(ByteBuffer.wrap(t), 18, 4), "LLP / MPA / CRC error");
        List<Events.Completion> cs = side.events.completions();
        for (int i = 0; i < 7; i++) {
            assertEquals(CompletionStatus.SUCCESS, cs.get(i).status(), "message " + i);
            assertArrayEquals(messages.get(i), side.received(i, 500));
        }
        for (int i = 7; i < cs.size(); i++) {
            assertTrue(cs.get(i).status() != CompletionStatus.SUCCESS, "nothing completes after the bad FPDU: " + cs);
        }
    }

    @Test
    void aWrongMsnAfterARunOfPredictedSendsIsAnInvalidMsnRange() throws Exception {
        established(16, 500);
        Random random = new Random(6);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 5; i++) {
            wire.writeBytes(peer.fpdu(RawPeer.send(i + 1, 0, true, bytes(random, 500))));
        }
        wire.writeBytes(peer.fpdu(RawPeer.send(9, 0, true, bytes(random, 500))));
        peer.send(wire.toByteArray());
        byte[] t = terminate();
        assertEquals("12 03 c0 00", Hex.of(ByteBuffer.wrap(t), 18, 4), "DDP / untagged / invalid MSN range");
        assertEquals(5, side.events.completions().stream().filter(c -> c.status() == CompletionStatus.SUCCESS).count());
    }

    @Test
    void moreSendsThanPostedReceivesEndWithNoBufferAfterTheReceivesFilled() throws Exception {
        established(3, 500);
        Random random = new Random(7);
        List<byte[]> messages = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 5; i++) {
            byte[] m = bytes(random, 500);
            if (i < 3) {
                messages.add(m);
            }
            wire.writeBytes(peer.fpdu(RawPeer.send(i + 1, 0, true, m)));
        }
        peer.send(wire.toByteArray());
        byte[] t = terminate();
        assertEquals("12 02 c0 00", Hex.of(ByteBuffer.wrap(t), 18, 4), "DDP / untagged / no buffer available");
        assertDelivered(messages);
    }

    // ------------------------------------------------------------------ Read Responses (RFC 5040 §4.5)

    private static final byte SENTINEL = 0x5A;

    /** A sink of {@code size} bytes filled with {@link #SENTINEL}, after the peer's first FPDU opened the gate. */
    private MemoryRegion sinkAfterFirstSend(int size) throws Exception {
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        MemoryRegion sink = side.endpoint.register(ByteBuffer.allocateDirect(size), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < size; i++) {
            sink.buffer().put(i, SENTINEL);
        }
        return sink;
    }

    /**
     * Posts an RDMA Read of {@code length} bytes into {@code offset} of {@code sink} with
     * {@code wrId} and reads its Read Request at the peer.
     */
    private void postRead(MemoryRegion sink, int offset, int length, long wrId) throws Exception {
        side.endpoint.postRdmaRead(sink, offset, length, 0x1000L * (wrId + 1), 0x55aa00, wrId);
        ByteBuffer request = ByteBuffer.wrap(peer.readFpdu());
        assertEquals(0x41, request.get(1) & 0xFF, "Read Request");
        assertEquals(sink.address() + offset, request.getLong(22), "sink TO");
        assertEquals(length, request.getInt(30), "size");
    }

    /** The Read Response FPDUs for {@code data} at {@code offset} of {@code sink}, cut by {@code segments}. */
    private void readResponse(ByteArrayOutputStream wire, MemoryRegion sink, int offset, byte[] data,
            java.util.function.IntSupplier segments) {
        int at = 0;
        do {
            int n = Math.min(Math.max(1, segments.getAsInt()), data.length - at);
            boolean last = at + n == data.length;
            wire.writeBytes(peer.fpdu(RawPeer.tagged(last ? 0xC1 : 0x81, 0x42, sink.token(), sink.address() + offset + at,
                    Arrays.copyOfRange(data, at, at + n))));
            at += n;
        } while (at < data.length);
    }

    /**
     * The first {@code count} Read Response segments of 1436 bytes of {@code data} at the start of
     * {@code sink}, the {@code lastAt}-th with the L bit (FPDUs of 1456 bytes).
     */
    private byte[] segments(MemoryRegion sink, byte[] data, int count, int lastAt) {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            wire.writeBytes(peer.fpdu(RawPeer.tagged(i + 1 == lastAt ? 0xC1 : 0x81, 0x42, sink.token(),
                    sink.address() + i * 1436L, Arrays.copyOfRange(data, i * 1436, (i + 1) * 1436))));
        }
        return wire.toByteArray();
    }

    /** The sink holds {@code data} at each offset and {@link #SENTINEL} everywhere else. */
    private static void assertSink(MemoryRegion sink, int[] offsets, byte[][] data) {
        Rig.assertRegion(sink, SENTINEL, offsets, data);
    }

    @Test
    void rfc5040_4_5_aLongReadResponseIsReadAheadIntoItsSinkWithFewReadsAndNoCopy() throws Exception {
        established(1, 16);
        MemoryRegion sink = sinkAfterFirstSend(41_000);
        Random random = new Random(11);
        byte[] data = bytes(random, 40_000);
        postRead(sink, 100, data.length, 7);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        readResponse(wire, sink, 100, data, () -> 1436);
        ReceiveCounters before = ReceiveCounters.of(side.endpoint);
        peer.send(wire.toByteArray());
        side.events.await("the Read", () -> side.events.completions().size() == 2);
        assertEquals(new Events.Completion(7, WorkRequestType.RDMA_READ, CompletionStatus.SUCCESS, data.length, false, 0),
                side.events.completions().get(1));
        assertSink(sink, new int[] {100}, new byte[][] {data});
        ReceiveCounters after = ReceiveCounters.of(side.endpoint);
        assertEquals(28, after.fpdus - before.fpdus, after.toString());
        // a read for the first header, one for the first payload and the segments predicted after it
        assertTrue(after.socketReads - before.socketReads <= 8, "28 segments of 1,436 bytes took "
                + (after.socketReads - before.socketReads) + " reads");
        assertEquals(0, after.spilledBytes, "every prediction held: " + after);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 19, 5040})
    void rfc5040_4_5_readResponsesCutOtherwiseThanPredictedAndInterleavedWithSendsArePlacedExactly(int seed)
            throws Exception {
        established(8, 3000);
        MemoryRegion sink = sinkAfterFirstSend(30_000);
        Random random = new Random(seed);
        int[] offsets = {10, 9_000, 21_003};
        byte[][] data = {bytes(random, 8_000), bytes(random, 1 + random.nextInt(8_000)), bytes(random, 5_000)};
        for (int i = 0; i < 3; i++) {
            postRead(sink, offsets[i], data[i].length, 10 + i);
        }
        List<byte[]> messages = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        int msn = 2;
        for (int i = 0; i < 3; i++) {
            ByteArrayOutputStream segments = new ByteArrayOutputStream();
            // runs of equal segments (predicted), then a change of size, a short one, a tiny one
            int[] size = {1 + random.nextInt(3000)};
            readResponse(segments, sink, offsets[i], data[i], () -> {
                if (random.nextInt(4) == 0) {
                    size[0] = random.nextBoolean() ? 1 + random.nextInt(8) : 1 + random.nextInt(3000);
                }
                return size[0];
            });
            wire.writeBytes(segments.toByteArray());
            if (i < 2) {
                byte[] m = bytes(random, 1 + random.nextInt(3000));
                messages.add(m);
                message(wire, msn++, m, 3000);
            }
        }
        peer.sendInPieces(wire.toByteArray(), random, seed == 2 ? 50 : 20_000);
        side.events.await("the Reads and Sends", () -> side.events.completions().size() == 1 + 3 + 2);
        List<Events.Completion> cs = side.events.completions();
        for (Events.Completion c : cs) {
            assertEquals(CompletionStatus.SUCCESS, c.status(), cs.toString());
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(new Events.Completion(10 + i, WorkRequestType.RDMA_READ, CompletionStatus.SUCCESS,
                    data[i].length, false, 0), cs.stream().filter(c -> c.type() == WorkRequestType.RDMA_READ)
                    .toList().get(i), "Reads complete in order");
        }
        for (int i = 0; i < 2; i++) {
            assertArrayEquals(messages.get(i), side.received(1 + i, messages.get(i).length), "Send " + i);
        }
        assertSink(sink, offsets, data);
    }

    @Test
    void rfc5044_6_1_aBadCrcOnAPredictedReadResponseSegmentIsAnLlpCrcErrorAndTheReadFails() throws Exception {
        established(1, 16);
        MemoryRegion sink = sinkAfterFirstSend(20_000);
        byte[] data = bytes(new Random(12), 14_360);
        postRead(sink, 0, data.length, 7);
        byte[] wire = segments(sink, data, 10, 10);
        wire[7 * 1456 - 1] ^= 1; // the CRC of the seventh segment (FPDUs of 2 + 14 + 1436 + 4 bytes)
        peer.send(wire);
        byte[] t = terminate();
        assertEquals("20 02 00 00", Hex.of(ByteBuffer.wrap(t), 18, 4), "LLP / MPA / CRC error");
        Events.Completion read = side.events.completions().get(1);
        assertEquals(7, read.wrId());
        assertTrue(read.status() != CompletionStatus.SUCCESS, "the Read fails: " + read);
    }

    @Test
    void rfc5040_4_5_aReadResponseEndingBeforeTheRequestedLengthIsABoundsErrorAfterPredictedSegments() throws Exception {
        established(1, 16);
        MemoryRegion sink = sinkAfterFirstSend(20_000);
        byte[] data = bytes(new Random(13), 14_360);
        postRead(sink, 0, data.length, 7);
        peer.send(segments(sink, data, 6, 6));
        byte[] t = terminate();
        assertEquals("11 01", Hex.of(ByteBuffer.wrap(t), 18, 2), "DDP / tagged / base or bounds violation");
        Events.Completion read = side.events.completions().get(1);
        assertTrue(read.status() != CompletionStatus.SUCCESS, "the Read fails: " + read);
        byte[] placed = new byte[20_000];
        sink.buffer().get(0, placed);
        for (int i = 14_360; i < 20_000; i++) {
            assertEquals(SENTINEL, placed[i], "sink byte " + i + " past the Read is untouched");
        }
    }

    /** Reads the Terminate the provider sends and checks that the connection then ends. */
    private byte[] terminate() throws Exception {
        byte[] t = peer.readFpdu();
        assertEquals(0x47, t[1] & 0xFF, "Terminate: " + Hex.of(ByteBuffer.wrap(t), 0, t.length));
        assertTrue(peer.closedByPeer(), "the connection ends after the Terminate");
        assertEquals(DisconnectCause.QP_ERROR, side.events.awaitDisconnected());
        return t;
    }
}
