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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
 * The receiver's staged reads (see {@code Receiver}): while the peer's FPDUs are small, one read
 * takes a chunk of the stream into the loop's staging buffer and every FPDU in it is framed, checked
 * and copied to its place. RDMA Writes, whose length is not announced, are then read with far fewer
 * system calls than FPDUs, and everything else holds exactly as with a read per FPDU: every check on
 * every FPDU (CRC, MSN, MO, STag, bounds; RFC 5044 §6.1, RFC 5041 §5.3 and §7.2, RFC 5040 §4.3 and
 * §4.5), the same Terminate for a bad FPDU in the middle of a chunk and nothing processed after it,
 * byte-exact placement whatever the chunk boundaries cut, and no byte outside a target written.
 */
class StagedReceiveTest {

    private static final byte SENTINEL = 0x5A;
    /** A Write or Read Response segment of an FPDU of 1,448 bytes (1500-byte Ethernet): 2 + 14 + 1428 + 4. */
    private static final int SEGMENT = 1428;

    private Rig rig;
    private RawPeer peer;
    private Rig.Side side;
    private MemoryRegion target;

    @AfterEach
    void close() throws Exception {
        closeConnection();
    }

    private void closeConnection() throws Exception {
        if (peer != null) {
            peer.close();
            peer = null;
        }
        if (rig != null) {
            rig.close();
            rig = null;
        }
        if (side != null) {
            assertEquals(0, side.events.callbacksAfterDisconnect(), "callbacks after onDisconnected");
            side = null;
        }
    }

    /**
     * A connection in RDMA mode with {@code receives} receives of {@code size} bytes posted, CRC on,
     * the receiver staging peer FPDUs up to {@code stagingLimit} bytes (0: every read direct, the way
     * a connection with large peer FPDUs reads), and a target of {@code targetSize} bytes filled with
     * {@link #SENTINEL} that the peer may RDMA Write.
     */
    private void established(int receives, int size, int stagingLimit, int targetSize) throws Exception {
        rig = new Rig(IwarpSettings.defaults());
        peer = RawPeer.connect(rig.listen());
        peer.crc = true;
        peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, RawPeer.word(4, 4)));
        side = rig.accept(receives, size, Rig.params(4, 4));
        peer.readFrame();
        side.events.awaitEstablished();
        ReceiveCounters.stagingLimit(side.endpoint, stagingLimit);
        target = side.endpoint.register(ByteBuffer.allocateDirect(targetSize),
                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        for (int i = 0; i < targetSize; i++) {
            target.buffer().put(i, SENTINEL);
        }
    }

    private void established(int receives, int size, int targetSize) throws Exception {
        established(receives, size, 16 * 1024, targetSize);
    }

    /** Random bytes, never {@link #SENTINEL} at the ends (so an edge left unwritten cannot pass for one written). */
    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        if (n > 0) {
            b[0] = (byte) (SENTINEL + 1);
            b[n - 1] = (byte) (SENTINEL + 2);
        }
        return b;
    }

    /** The FPDUs of one RDMA Write of {@code data} to {@code offset} of the target, in segments of at most {@code segment}. */
    private void write(ByteArrayOutputStream wire, int offset, byte[] data, int segment) {
        tagged(wire, 0x40, target, offset, data, segment);
    }

    /** Tagged segments (RDMA Write 0x40, Read Response 0x42) of {@code data} at {@code offset} of {@code region}. */
    private void tagged(ByteArrayOutputStream wire, int rdmap, MemoryRegion region, int offset, byte[] data, int segment) {
        int at = 0;
        do {
            int n = Math.min(segment, data.length - at);
            boolean last = at + n == data.length;
            wire.writeBytes(peer.fpdu(RawPeer.tagged(last ? 0xC1 : 0x81, rdmap, region.token(),
                    region.address() + offset + at, Arrays.copyOfRange(data, at, at + n))));
            at += n;
        } while (at < data.length);
    }

    /** The FPDUs of one Send message with MSN {@code msn}, in segments of at most {@code segment} bytes. */
    private void send(ByteArrayOutputStream wire, int msn, byte[] m, int segment) {
        int mo = 0;
        do {
            int n = Math.min(segment, m.length - mo);
            wire.writeBytes(peer.fpdu(RawPeer.send(msn, mo, mo + n == m.length, Arrays.copyOfRange(m, mo, mo + n))));
            mo += n;
        } while (mo < m.length);
    }

    /** The target holds each of {@code data} at its offset and {@link #SENTINEL} everywhere else. */
    private static void assertRegion(MemoryRegion region, int[] offsets, byte[][] data) {
        Rig.assertRegion(region, SENTINEL, offsets, data);
    }

    /** Polls (bounded) until the receiver has read {@code bytes} bytes in RDMA mode. */
    private void awaitRead(long bytes) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RawPeer.TIMEOUT_MILLIS);
        ReceiveCounters c;
        while ((c = ReceiveCounters.of(side.endpoint)).bytesRead < bytes) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the receiver read " + c + ", not " + bytes + " bytes");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    @Test
    void aRunOfSmallRdmaWritesIsReadInFewSystemCallsAndCopiedExactlyIntoItsTarget() throws Exception {
        established(1, 64, 200_000);
        Random random = new Random(1);
        int[] offsets = {1000, 60_001, 120_003};
        byte[][] data = {bytes(random, 50_000), bytes(random, 50_000), bytes(random, 50_000)};
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 3; i++) {
            write(wire, offsets[i], data[i], SEGMENT);
        }
        byte[] after = bytes(random, 40);
        send(wire, 1, after, 40);
        peer.send(wire.toByteArray());
        side.events.awaitCompletions(1);
        assertRegion(target, offsets, data);
        assertArrayEquals(after, side.received(0, after.length), "the Send after the Writes");
        ReceiveCounters c = ReceiveCounters.of(side.endpoint);
        assertEquals(3 * 36 + 1, c.fpdus, c.toString());
        assertEquals(c.bytesRead, c.stagedBytes, "every byte of 1,448-byte FPDUs is staged: " + c);
        assertEquals(1448, c.peerFpdu, c.toString());
        // a read per FPDU without staging; a read of up to 128 KiB (or what TCP has) with it
        assertTrue(c.socketReads * 8 <= c.fpdus, "109 FPDUs took " + c);
    }

    @Test
    void withoutStagingTheSameWritesTakeAReadPerFpdu() throws Exception {
        established(1, 64, 0, 200_000);
        byte[] data = bytes(new Random(2), 50_000);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        write(wire, 100, data, SEGMENT);
        send(wire, 1, new byte[8], 8);
        peer.send(wire.toByteArray());
        side.events.awaitCompletions(1);
        assertRegion(target, new int[] {100}, new byte[][] {data});
        ReceiveCounters c = ReceiveCounters.of(side.endpoint);
        assertEquals(0, c.stagedBytes, c.toString());
        assertTrue(c.socketReads >= 36, "a Write's length is not announced: one read per FPDU, " + c);
    }

    /**
     * A bad FPDU in the middle of a run of good ones, all sent in one write (so that a staged read
     * takes them in one chunk), ends the connection with the same Terminate, the same completions and
     * the same target content as reading one FPDU per system call: the good FPDUs before it placed and
     * completed, nothing after it processed, no byte outside a target written.
     */
    @ParameterizedTest
    @ValueSource(strings = {"CRC", "STag key", "bounds", "Send MSN", "Send MO", "ULPDU_Length", "DDP version"})
    void aBadFpduInTheMiddleOfAStagedChunkEndsTheConnectionAsWithAReadPerFpdu(String fault) throws Exception {
        Outcome staged = faultyStream(fault, 16 * 1024);
        closeConnection();
        Outcome direct = faultyStream(fault, 0);
        assertTrue(staged.counters.stagedBytes > 0 && direct.counters.stagedBytes == 0,
                "staged: " + staged.counters + "; direct: " + direct.counters);
        assertEquals(direct.terminate, staged.terminate, "the Terminate (its ULPDU; a copied STag and TO masked)");
        assertEquals(direct.completions, staged.completions, "completions");
        assertArrayEquals(direct.target, staged.target, "target content");
        // the three Sends before the bad FPDU (what a failed receive holds is undefined, RFC 5040 §6.1)
        assertArrayEquals(Arrays.copyOf(direct.receives, 300), Arrays.copyOf(staged.receives, 300), "the Sends");
        String control = staged.terminate.substring(18 * 3, 18 * 3 + 11);
        String want = switch (fault) {
            case "CRC" -> "20 02 00 00"; // LLP / MPA / CRC error
            case "STag key" -> "11 00 c0 00"; // DDP / tagged / invalid STag, M D
            case "bounds" -> "11 01 c0 00"; // DDP / tagged / base or bounds violation, M D
            case "Send MSN" -> "12 03 c0 00"; // DDP / untagged / invalid MSN range, M D
            case "Send MO" -> "12 04 c0 00"; // DDP / untagged / invalid MO, M D
            case "ULPDU_Length" -> "10 00 00 00"; // DDP / local catastrophic, no copy
            default -> "11 04 00 00"; // DDP / tagged / invalid DDP version (RFC 5041 §7.2), no copy
        };
        assertEquals(want, control, fault + ": " + staged.terminate);
        List<Events.Completion> cs = staged.completions;
        for (int i = 0; i < 3; i++) {
            assertEquals(CompletionStatus.SUCCESS, cs.get(i).status(), "the Sends before the bad FPDU: " + cs);
        }
        for (int i = 3; i < cs.size(); i++) {
            assertTrue(cs.get(i).status() != CompletionStatus.SUCCESS, "nothing after the bad FPDU completes: " + cs);
        }
    }

    /** What one connection saw of a faulty stream. */
    private record Outcome(String terminate, List<Events.Completion> completions, byte[] target, byte[] receives,
            ReceiveCounters counters) {
    }

    /**
     * Three Sends, 20 Writes of one segment each to consecutive places of the target, the 11th bad in
     * the way {@code fault} names (a Send in its place for the Send faults), then 9 good Writes and
     * a fourth Send; all in one write.
     */
    private Outcome faultyStream(String fault, int stagingLimit) throws Exception {
        established(8, 100, stagingLimit, 40_000);
        Random random = new Random(fault.hashCode());
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 3; i++) {
            send(wire, i + 1, bytes(random, 100), 100);
        }
        byte[] bad = null;
        for (int i = 0; i < 20; i++) {
            byte[] data = bytes(random, SEGMENT);
            long to = target.address() + 10 + (long) i * SEGMENT;
            byte[] fpdu;
            if (i != 10) {
                fpdu = peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(), to, data));
            } else {
                fpdu = switch (fault) {
                    case "CRC" -> {
                        byte[] f = peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(), to, data));
                        f[f.length - 2] ^= 0x10;
                        yield f;
                    }
                    case "STag key" -> peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token() ^ 0x01, to, data));
                    case "bounds" -> peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(),
                            target.address() + target.length() - 100, data));
                    case "Send MSN" -> peer.fpdu(RawPeer.send(9, 0, true, data));
                    case "Send MO" -> peer.fpdu(RawPeer.send(4, 8, true, data));
                    case "ULPDU_Length" -> {
                        byte[] f = peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(), to, data));
                        f[0] = 0;
                        f[1] = 10; // shorter than the tagged header it precedes
                        yield f;
                    }
                    default -> peer.fpdu(RawPeer.tagged(0xC2, 0x40, target.token(), to, data));
                };
                bad = fpdu;
            }
            wire.writeBytes(fpdu);
        }
        send(wire, 4, bytes(random, 100), 100);
        peer.send(wire.toByteArray());
        byte[] t = peer.readFpdu();
        assertEquals(0x47, t[1] & 0xFF, "Terminate: " + Hex.of(ByteBuffer.wrap(t), 0, t.length));
        assertTrue(peer.closedByPeer(), "the connection ends after the Terminate");
        assertEquals(DisconnectCause.QP_ERROR, side.events.awaitDisconnected());
        if ((t[20] & 0x80) != 0) { // M: the Terminate copies the bad segment's DDP header (RFC 5040 §4.8)
            int copied = (t[24] & 0x80) != 0 ? 14 : 16;
            assertArrayEquals(Arrays.copyOfRange(bad, 2, 2 + copied), Arrays.copyOfRange(t, 24, 24 + copied),
                    "the copied header is the bad FPDU's");
            if (copied == 14) {
                Arrays.fill(t, 26, 38, (byte) 0); // STag and TO differ between connections
            }
        }
        byte[] placed = new byte[target.length()];
        target.buffer().get(0, placed);
        byte[] receives = new byte[side.receives.length()];
        side.receives.buffer().get(0, receives);
        return new Outcome(Hex.of(ByteBuffer.wrap(t), 0, t.length), side.events.completions(), placed, receives,
                ReceiveCounters.of(side.endpoint));
    }

    /**
     * A Write, a Send and a Read Response, again and again, each time with the stream cut into two
     * reads at the next offset: every boundary inside a header, a payload, a PAD and a CRC, and
     * between FPDUs. Each time every byte lands exactly and nothing else is touched.
     */
    @Test
    void chunkBoundariesAtEveryOffsetOfWritesSendsAndReadResponsesPlaceEveryByteExactly() throws Exception {
        established(16, 64, 8_000);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0]))); // the initiator's first FPDU opens our gate
        side.events.awaitCompletions(1);
        side.endpoint.postReceive(side.receives, 0, 64, 16);
        MemoryRegion sink = side.endpoint.register(ByteBuffer.allocateDirect(8_000), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < 8_000; i++) {
            sink.buffer().put(i, SENTINEL);
        }
        Random random = new Random(3);
        List<Integer> writeOffsets = new ArrayList<>();
        List<byte[]> writes = new ArrayList<>();
        List<Integer> readOffsets = new ArrayList<>();
        List<byte[]> reads = new ArrayList<>();
        int length = -1;
        long read = ReceiveCounters.of(side.endpoint).bytesRead;
        for (int cut = 0; length < 0 || cut <= length; cut++) {
            int round = cut;
            byte[] w = bytes(random, 37);
            byte[] m = bytes(random, 5);
            byte[] r = bytes(random, 30);
            writeOffsets.add(round * 40);
            writes.add(w);
            readOffsets.add(round * 40);
            reads.add(r);
            side.endpoint.postRdmaRead(sink, round * 40, r.length, 0x1000, 0x55aa00, 1000 + round);
            assertEquals(0x41, peer.readFpdu()[1] & 0xFF, "Read Request");
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            write(wire, round * 40, w, 37);
            send(wire, round + 2, m, 5);
            tagged(wire, 0x42, sink, round * 40, r, 30);
            byte[] all = wire.toByteArray();
            length = all.length;
            peer.send(Arrays.copyOfRange(all, 0, cut));
            awaitRead(read + cut);
            peer.send(Arrays.copyOfRange(all, cut, all.length));
            read += all.length;
            awaitRead(read);
            side.events.await("round " + round, () -> side.events.completions().size() == 1 + 2 * (round + 1));
            List<Events.Completion> cs = side.events.completions();
            Events.Completion recv = cs.get(cs.size() - 2);
            Events.Completion rdma = cs.get(cs.size() - 1);
            if (recv.type() != WorkRequestType.RECEIVE) {
                Events.Completion swap = recv;
                recv = rdma;
                rdma = swap;
            }
            assertEquals(CompletionStatus.SUCCESS, recv.status(), "cut " + cut + ": " + cs);
            assertEquals(5, recv.bytes(), "cut " + cut);
            int slot = (int) (recv.wrId() % 16);
            assertArrayEquals(m, side.received(slot, 5), "cut " + cut + ": the Send");
            assertEquals(new Events.Completion(1000 + round, WorkRequestType.RDMA_READ, CompletionStatus.SUCCESS, 30,
                    false, 0), rdma, "cut " + cut);
            side.endpoint.postReceive(side.receives, slot * 64, 64, recv.wrId() + 16);
            assertRegion(target, writeOffsets.stream().mapToInt(Integer::intValue).toArray(), writes.toArray(byte[][]::new));
            assertRegion(sink, readOffsets.stream().mapToInt(Integer::intValue).toArray(), reads.toArray(byte[][]::new));
        }
        ReceiveCounters c = ReceiveCounters.of(side.endpoint);
        assertEquals(c.bytesRead, c.stagedBytes, "small FPDUs only: every read staged, " + c);
        assertEquals(0, c.spilledBytes, "nothing read ahead: " + c);
    }

    /**
     * More than a staging buffer's worth of Writes, Sends of several segments and Read Responses,
     * interleaved, arriving in pieces of random size: every byte lands exactly, in targets, posted
     * receives and the sink, and no byte around them changes.
     */
    @ParameterizedTest
    @ValueSource(ints = {4, 40, 4000})
    void interleavedWritesSendsAndReadResponsesInPiecesOfAnySizeArePlacedExactly(int seed) throws Exception {
        established(16, 3000, 400_000);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        MemoryRegion sink = side.endpoint.register(ByteBuffer.allocateDirect(100_000), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < 100_000; i++) {
            sink.buffer().put(i, SENTINEL);
        }
        Random random = new Random(seed);
        int[] readOffsets = {7, 33_333, 66_001};
        byte[][] readData = {bytes(random, 30_000), bytes(random, 1 + random.nextInt(30_000)), bytes(random, 20_000)};
        for (int i = 0; i < 3; i++) {
            side.endpoint.postRdmaRead(sink, readOffsets[i], readData[i].length, 0x1000, 0x55aa00, 100 + i);
            assertEquals(0x41, peer.readFpdu()[1] & 0xFF, "Read Request");
        }
        int[] writeOffsets = new int[9];
        byte[][] writeData = new byte[9][];
        List<byte[]> messages = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        int msn = 2;
        int at = 3;
        for (int i = 0; i < 9; i++) {
            writeOffsets[i] = at;
            writeData[i] = bytes(random, 1 + random.nextInt(40_000));
            at += writeData[i].length + 1 + random.nextInt(100);
            write(wire, writeOffsets[i], writeData[i], random.nextInt(3) == 0 ? 1 + random.nextInt(SEGMENT) : SEGMENT);
            byte[] m = bytes(random, 1 + random.nextInt(3000));
            messages.add(m);
            send(wire, msn++, m, random.nextBoolean() ? 1340 : 1 + random.nextInt(3000));
            if (i % 3 == 2) {
                int r = i / 3;
                tagged(wire, 0x42, sink, readOffsets[r], readData[r], random.nextBoolean() ? SEGMENT : 1 + random.nextInt(9000));
            }
        }
        byte[] all = wire.toByteArray();
        assertTrue(all.length > 150_000, "more than a staging buffer: " + all.length);
        peer.sendInPieces(all, random, seed == 4 ? 300 : 70_000);
        side.events.await("the Sends and Reads", () -> side.events.completions().size() == 1 + 9 + 3);
        List<Events.Completion> cs = side.events.completions();
        for (Events.Completion c : cs) {
            assertEquals(CompletionStatus.SUCCESS, c.status(), cs.toString());
        }
        for (int i = 0; i < 9; i++) {
            int slot = 1 + i;
            assertArrayEquals(messages.get(i), side.received(slot, messages.get(i).length), "Send " + i);
        }
        assertRegion(target, writeOffsets, writeData);
        assertRegion(sink, readOffsets, readData);
        ReceiveCounters c = ReceiveCounters.of(side.endpoint);
        assertTrue(c.stagedBytes > 0, c.toString());
    }

    @Test
    void aPeerThatSendsLargeFpdusIsReadDirectlyFromItsFirstLargeFpduOn() throws Exception {
        established(1, 64, 200_000);
        Random random = new Random(5);
        byte[] small = bytes(random, 10 * SEGMENT);
        byte[] large = bytes(random, 60_000);
        byte[] more = bytes(random, 100_000);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        write(wire, 0, small, SEGMENT);
        write(wire, 20_000, large, 60_000); // one FPDU of 60,020 bytes
        write(wire, 90_000, more, SEGMENT);
        send(wire, 1, new byte[8], 8);
        peer.send(wire.toByteArray());
        side.events.awaitCompletions(1);
        assertRegion(target, new int[] {0, 20_000, 90_000}, new byte[][] {small, large, more});
        ReceiveCounters c = ReceiveCounters.of(side.endpoint);
        assertEquals(60_020, c.peerFpdu, c.toString());
        // at most the staged read that met the large FPDU's header; every read after it direct
        assertTrue(c.stagedBytes <= 128 * 1024, "reads are direct once the peer sent a large FPDU: " + c);
        assertTrue(c.socketReads >= 100_000 / SEGMENT, "the small Writes after it one read per FPDU: " + c);
    }
}
