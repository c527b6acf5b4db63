package smbdirect.impl.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.impl.trace.WiresharkOracle.Msg;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.impl.wire.SmbdWire;
import smbdirect.testsupport.SmbDirectTrace;

class PcapTraceWriterTest {

    static final long T0_MICROS = WiresharkOracle.T0_MICROS;

    @TempDir
    Path tmp;

    /** One parsed pcap record. */
    record Rec(long tsSec, long tsUsec, int inclLen, int origLen, byte[] data) {
        int dlid() { return ((data[20] & 0xFF) << 8) | (data[21] & 0xFF); }
        int pktLen() { return ((data[22] & 0xFF) << 8) | (data[23] & 0xFF); }
        int slid() { return ((data[24] & 0xFF) << 8) | (data[25] & 0xFF); }
        int destQp() { return ((data[31] & 0xFF) << 16) | ((data[32] & 0xFF) << 8) | (data[33] & 0xFF); }
        int psn() { return ((data[35] & 0xFF) << 16) | ((data[36] & 0xFF) << 8) | (data[37] & 0xFF); }
        byte[] message() {
            byte[] m = new byte[data.length - 44];
            System.arraycopy(data, 38, m, 0, m.length);
            return m;
        }
    }

    static List<Rec> parse(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0xA1B2C3D4, b.getInt(0));
        assertEquals(PcapTraceWriter.LINKTYPE_WIRESHARK_UPPER_PDU, b.getInt(20));
        List<Rec> out = new ArrayList<>();
        int at = PcapTraceWriter.FILE_HEADER_SIZE;
        while (at < file.length) {
            int incl = b.getInt(at + 8);
            byte[] data = new byte[incl];
            b.get(at + 16, data);
            out.add(new Rec(Integer.toUnsignedLong(b.getInt(at)), Integer.toUnsignedLong(b.getInt(at + 4)), incl,
                    b.getInt(at + 12), data));
            at += 16 + incl;
        }
        assertEquals(file.length, at, "file ends on a record boundary");
        return out;
    }

    /** A session built with the wire encoders, covering every message length mod 4. */
    static List<Msg> session() {
        List<Msg> msgs = new ArrayList<>();
        ByteBuffer req = ByteBuffer.allocate(20);
        NegotiateRequest.encode(req, 0, 0x0100, 0x0100, 255, 1364, 8192, 1048576);
        msgs.add(new Msg(true, req.array()));
        ByteBuffer rsp = ByteBuffer.allocate(32);
        NegotiateResponse.encode(rsp, 0, 0x0100, 0x0100, 0x0100, 255, 255, 0, 1048576, 1364, 8192, 1048576);
        msgs.add(new Msg(false, rsp.array()));
        byte[] smb2 = Smb2Negotiate.small(0);
        msgs.add(new Msg(true, data(255, 255, 0, 0, smb2)));
        byte[] big = Smb2Negotiate.big(1);
        for (int pos = 0; pos < big.length; pos += 128) {
            int len = Math.min(128, big.length - pos);
            byte[] chunk = new byte[len];
            System.arraycopy(big, pos, chunk, 0, len);
            msgs.add(new Msg(true, data(10, 1, 0, big.length - pos - len, chunk)));
        }
        for (int extra = 1; extra <= 3; extra++) {
            msgs.add(new Msg(false, data(255, 1, 0, 0, new byte[extra])));
        }
        msgs.add(new Msg(false, data(255, 3, SmbdWire.FLAG_RESPONSE_REQUESTED, 0, new byte[0])));
        return msgs;
    }

    static byte[] data(int requested, int granted, int flags, long remaining, byte[] payload) {
        int offset = payload.length == 0 ? 0 : SmbdWire.DATA_OFFSET;
        ByteBuffer b = ByteBuffer.allocate(payload.length == 0 ? 20 : offset + payload.length);
        int n = DataTransfer.encodeHeader(b, 0, requested, granted, flags, remaining, offset, payload.length);
        b.put(n, payload);
        return b.array();
    }

    static byte[] writeInMemory(List<Msg> msgs, long max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PcapTraceWriter w = PcapTraceWriter.open(Channels.newChannel(out), max)) {
            for (int i = 0; i < msgs.size(); i++) {
                w.record(msgs.get(i).fromInitiator(), ByteBuffer.wrap(msgs.get(i).bytes()), T0_MICROS + i * 1000L);
            }
        }
        return out.toByteArray();
    }

    @Test
    @DisplayName("wireshark-trace.md 4: the worked Negotiate Request example, byte for byte")
    void workedExampleOfTheTraceSpec() throws IOException {
        byte[] msg = HexFormat.of().parseHex("000100010000ff00540500000020000000001000");
        byte[] file = writeInMemory(List.of(new Msg(true, msg)), 10);
        String expected = "d4c3b2a1020004000000000000000000"
                + "00000400fc00000000f1536500000000"
                + "4000000040000000000c000a696e6669"
                + "6e6962616e6400000000000200020" + "00b"
                + "00010400ffff00000102000000000001"
                + "00010000ff0054050000002000000000"
                + "1000000000000000";
        assertEquals(expected, HexFormat.of().formatHex(file));
    }

    @Test
    @DisplayName("LIDs, QPs, per-direction PSNs, PktLen rounded down and timestamps as wireshark-trace.md 4")
    void headersPerDirection() throws IOException {
        List<Msg> msgs = session();
        List<Rec> recs = parse(writeInMemory(msgs, 100));
        assertEquals(msgs.size(), recs.size());
        int c2s = 0;
        int s2c = 0;
        for (int i = 0; i < recs.size(); i++) {
            Rec r = recs.get(i);
            Msg m = msgs.get(i);
            assertArrayEquals(m.bytes(), r.message(), "record " + i);
            assertEquals(44 + m.bytes().length, r.inclLen());
            assertEquals(r.inclLen(), r.origLen());
            assertEquals(1_700_000_000L, r.tsSec());
            assertEquals(i * 1000L, r.tsUsec());
            assertEquals((24 + m.bytes().length) / 4, r.pktLen());
            assertEquals(m.fromInitiator() ? 2 : 1, r.dlid());
            assertEquals(m.fromInitiator() ? 1 : 2, r.slid());
            assertEquals(m.fromInitiator() ? 0x000102 : 0x000101, r.destQp());
            assertEquals(m.fromInitiator() ? c2s++ : s2c++, r.psn());
        }
    }

    @Test
    @DisplayName("tshark's smb_direct dissector decodes every record of a written file, reassembly included")
    void tsharkDecodesTheWrittenFile() throws Exception {
        List<Msg> msgs = session();
        List<SmbDirectTrace.Frame> fr = WiresharkOracle.check(msgs, tmp, "trace");
        assertEquals(msgs.size(), fr.size());
        assertEquals("NegotiateRequest", fr.get(0).type());
        assertEquals("c2s", fr.get(0).direction());
        assertEquals("NegotiateResponse", fr.get(1).type());
        assertEquals("s2c", fr.get(1).direction());
        assertEquals("smb2", fr.get(2).payloadProtocols().get(0));
        assertEquals(340L, fr.get(5).number("smb_direct.reassembled.length"));
        assertEquals(120L, fr.get(5).number("smb2.dialect_count"));
        SmbDirectTrace.Frame keepalive = fr.get(fr.size() - 1);
        assertEquals(1L, keepalive.number("smb_direct.flags.response_requested"));
        assertEquals(3L, keepalive.number("smb_direct.credits.granted"));
        for (int i = 0; i < fr.size(); i++) {
            SmbDirectTrace.Frame f = fr.get(i);
            assertTrue(f.smbDirect(), () -> "not SMB Direct: " + f);
            assertNotNull(f.type(), () -> "no message type: " + f);
            assertEquals(msgs.get(i).fromInitiator() ? "c2s" : "s2c", f.direction(), () -> "direction of " + f);
            assertEquals(List.of(), f.expert(), () -> "expert info: " + f);
            assertFalse(f.malformed(), () -> "malformed: " + f);
        }
    }

    @Test
    @DisplayName("after the message limit further records are counted as dropped, not written")
    void limitDropsAndCounts() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PcapTraceWriter w = PcapTraceWriter.open(Channels.newChannel(out), 3);
        byte[] msg = data(255, 1, 0, 0, new byte[0]);
        for (int i = 0; i < 5; i++) {
            w.record(i % 2 == 0, ByteBuffer.wrap(msg), T0_MICROS);
        }
        assertEquals(3, w.written());
        assertEquals(2, w.dropped());
        assertEquals(3, w.maxMessages());
        w.close();
        w.record(true, ByteBuffer.wrap(msg), T0_MICROS);
        assertEquals(3, w.dropped(), "a record after close is counted");
        w.close();
        assertEquals(3, parse(out.toByteArray()).size());
        assertEquals(24 + 3 * (16 + 44 + 20), out.size());
    }

    @Test
    void defaultLimitIs100000() throws IOException {
        try (PcapTraceWriter w = PcapTraceWriter.open(tmp.resolve("d.pcap"))) {
            assertEquals(100_000, w.maxMessages());
        }
        assertThrows(IllegalArgumentException.class,
                () -> PcapTraceWriter.open(Channels.newChannel(new ByteArrayOutputStream()), -1));
    }

    @Test
    @DisplayName("record reads position..limit of any buffer and leaves position and limit alone")
    void recordLeavesTheMessageBufferUntouched() throws IOException {
        byte[] msg = data(255, 7, 0, 0, new byte[] {1, 2, 3, 4, 5});
        for (ByteBuffer b : List.of(ByteBuffer.allocate(100), ByteBuffer.allocateDirect(100).order(ByteOrder.LITTLE_ENDIAN))) {
            b.put(11, msg).position(11).limit(11 + msg.length);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (PcapTraceWriter w = PcapTraceWriter.open(Channels.newChannel(out), 5)) {
                w.record(false, b, T0_MICROS);
            }
            assertEquals(11, b.position());
            assertEquals(11 + msg.length, b.limit());
            assertArrayEquals(msg, parse(out.toByteArray()).get(0).message());
        }
    }

    @Test
    @DisplayName("a record longer than the snap length is truncated to it, orig_len keeps the full length")
    void oversizedMessageIsTruncatedToSnaplen() throws IOException {
        byte[] msg = new byte[300_000];
        msg[0] = 1;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PcapTraceWriter w = PcapTraceWriter.open(Channels.newChannel(out), 5)) {
            w.record(true, ByteBuffer.wrap(msg), T0_MICROS);
            w.record(true, ByteBuffer.wrap(new byte[20]), T0_MICROS);
        }
        List<Rec> recs = parse(out.toByteArray());
        assertEquals(PcapTraceWriter.SNAPLEN, recs.get(0).inclLen());
        assertEquals(300_044, recs.get(0).origLen());
        assertEquals(64, recs.get(1).inclLen());
        assertEquals(1, recs.get(1).psn());
    }

    @Test
    @DisplayName("a write failure stops the trace without throwing; later records are counted as dropped")
    void writeFailureIsCountedNotThrown() throws IOException {
        WritableByteChannel failing = new WritableByteChannel() {
            private int writes;
            private boolean open = true;

            @Override
            public int write(ByteBuffer src) throws IOException {
                if (++writes > 2) {
                    throw new IOException("disk full");
                }
                int n = src.remaining();
                src.position(src.limit());
                return n;
            }

            @Override
            public boolean isOpen() {
                return open;
            }

            @Override
            public void close() {
                open = false;
            }
        };
        PcapTraceWriter w = PcapTraceWriter.open(failing, 10);
        byte[] msg = new byte[20];
        w.record(true, ByteBuffer.wrap(msg), T0_MICROS);
        assertNull(w.failure());
        w.record(true, ByteBuffer.wrap(msg), T0_MICROS);
        assertNotNull(w.failure());
        assertEquals("disk full", w.failure().getMessage());
        w.record(false, ByteBuffer.wrap(msg), T0_MICROS);
        assertEquals(1, w.written());
        assertEquals(2, w.dropped());
        w.close();
        assertFalse(failing.isOpen());
    }

    @Test
    @DisplayName("concurrent recorders produce whole records and gap-free per-direction PSNs")
    void concurrentRecordsStayWhole() throws Exception {
        int threads = 4;
        int perThread = 500;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PcapTraceWriter w = PcapTraceWriter.open(Channels.newChannel(out), 1_000_000);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        byte[] payload = new byte[1 + (i % 7)];
                        payload[0] = (byte) id;
                        w.record(id % 2 == 0, ByteBuffer.wrap(data(255, i & 0xFF, 0, 0, payload)), T0_MICROS + i);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        w.close();
        List<Rec> recs = parse(out.toByteArray());
        assertEquals(threads * perThread, recs.size());
        BitSet c2s = new BitSet();
        BitSet s2c = new BitSet();
        for (Rec r : recs) {
            byte[] m = r.message();
            int id = m[24];
            boolean fromInitiator = id % 2 == 0;
            assertEquals(fromInitiator ? 1 : 2, r.slid());
            assertEquals(24 + DataTransfer.dataLength(ByteBuffer.wrap(m), 0), m.length);
            (fromInitiator ? c2s : s2c).set(r.psn());
        }
        assertEquals(threads / 2 * perThread, c2s.cardinality());
        assertEquals(threads / 2 * perThread - 1, c2s.length() - 1);
        assertEquals(threads / 2 * perThread, s2c.cardinality());
        assertEquals(threads / 2 * perThread - 1, s2c.length() - 1);
    }

    @Test
    void noneRecordsNothingAndIsDisabled() {
        assertFalse(TraceSink.NONE.enabled());
        ByteBuffer b = ByteBuffer.wrap(new byte[20]).position(3);
        TraceSink.NONE.record(true, b, 0);
        assertEquals(3, b.position());
        assertSame(TraceSink.NONE, TraceSink.NONE);
        assertEquals("TraceSink.NONE", TraceSink.NONE.toString());
    }

    @Test
    void writerIsEnabled() throws IOException {
        try (PcapTraceWriter w = PcapTraceWriter.open(Channels.newChannel(new ByteArrayOutputStream()))) {
            assertTrue(w.enabled());
            assertTrue(w.toString().contains("written=0"), w.toString());
        }
    }
}
