package smbdirect.interop.vm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FpduAlignedCapture} on pcaps built here, byte by byte. */
class FpduAlignedCaptureTest {

    private static final int INITIATOR = 40000;
    private static final int RESPONDER = 5445;
    private static final long ISN = 0xFFFFFF00L; // wraps within the stream

    /** A TCP segment of the test connection as it goes into or comes out of a pcap. */
    record Segment(int srcPort, long seq, int flags, byte[] payload) {
    }

    @TempDir
    Path dir;

    /** An MPA frame with {@code pd} bytes of private data and the CRC flag. */
    private static byte[] mpaFrame(String key, int pd) {
        ByteBuffer b = ByteBuffer.allocate(20 + pd);
        b.put(key.getBytes(java.nio.charset.StandardCharsets.US_ASCII)).put((byte) 0x50).put((byte) 2)
                .putShort((short) pd);
        return b.array();
    }

    /** An FPDU with CRC: ULPDU_Length, {@code ulpdu} bytes of {@code fill}, pad, 4 CRC bytes (not checked here). */
    private static byte[] fpdu(int ulpdu, int fill) {
        int pad = (4 - (2 + ulpdu) % 4) % 4;
        byte[] b = new byte[2 + ulpdu + pad + 4];
        Arrays.fill(b, (byte) fill);
        b[0] = (byte) (ulpdu >> 8);
        b[1] = (byte) ulpdu;
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    @Test
    void everyPduBecomesOneSegmentWithTheSameBytesInOrder() throws Exception {
        byte[] request = mpaFrame("MPA ID Req Frame", 4);
        byte[] reply = mpaFrame("MPA ID Rep Frame", 4);
        byte[] f1 = fpdu(30, 0x11);
        byte[] f2 = fpdu(101, 0x22);
        byte[] f3 = fpdu(7, 0x33);
        byte[] out = concat(request, f1, f2, f3); // the initiator's bytes
        // cuts: inside the Request's header, 3 bytes into f2 (the case Wireshark 4.0 stumbles on), inside f3
        int c1 = 10;
        int c2 = request.length + f1.length + 3;
        int c3 = out.length - 5;
        List<Segment> in = new ArrayList<>();
        in.add(new Segment(INITIATOR, ISN, 0x02, new byte[0]));
        in.add(new Segment(RESPONDER, 7, 0x12, new byte[0]));
        in.add(seg(INITIATOR, out, 0, c1));
        in.add(seg(INITIATOR, out, c1, c2));
        in.add(new Segment(RESPONDER, 8, 0x18, reply));
        in.add(seg(INITIATOR, out, c3, out.length)); // ahead of a gap: waits for it
        in.add(seg(INITIATOR, out, c2, c3));
        in.add(seg(INITIATOR, out, c1, c2)); // a retransmission: its bytes are taken already
        in.add(new Segment(RESPONDER, 8 + reply.length, 0x10, new byte[0]));
        in.add(new Segment(INITIATOR, ISN + 1 + out.length, 0x11, new byte[0]));

        List<Segment> copy = roundTrip(in);

        List<Segment> data = copy.stream().filter(s -> s.srcPort() == INITIATOR && s.payload().length > 0).toList();
        assertEquals(4, data.size(), "one segment per PDU: " + data);
        assertArrayEquals(request, data.get(0).payload());
        assertArrayEquals(f1, data.get(1).payload());
        assertArrayEquals(f2, data.get(2).payload());
        assertArrayEquals(f3, data.get(3).payload());
        long at = ISN + 1;
        for (Segment s : data) {
            assertEquals(at & 0xFFFFFFFFL, s.seq(), "consecutive sequence numbers");
            at += s.payload().length;
        }
        Segment fin = copy.get(copy.size() - 1);
        assertEquals(0x11, fin.flags(), "the FIN comes last");
        assertEquals((ISN + 1 + out.length) & 0xFFFFFFFFL, fin.seq());
        // the responder's Reply is one PDU already: unchanged
        assertArrayEquals(reply, copy.stream().filter(s -> s.srcPort() == RESPONDER && s.payload().length > 0)
                .findFirst().orElseThrow().payload());
    }

    @Test
    void anAcknowledgementCarriesTheSequenceNumberOfTheBytesSentSoFar() throws Exception {
        byte[] request = mpaFrame("MPA ID Req Frame", 0);
        byte[] f1 = fpdu(40, 0x44);
        byte[] out = concat(request, f1);
        int cut = request.length + 10;
        List<Segment> in = List.of(
                new Segment(INITIATOR, ISN, 0x02, new byte[0]),
                new Segment(RESPONDER, 7, 0x12, new byte[0]),
                seg(INITIATOR, out, 0, cut),
                new Segment(INITIATOR, ISN + 1 + cut, 0x10, new byte[0]), // an ACK while f1 is incomplete
                seg(INITIATOR, out, cut, out.length));
        List<Segment> copy = roundTrip(in);
        Segment ack = copy.stream().filter(s -> s.srcPort() == INITIATOR && s.flags() == 0x10 && s.payload().length == 0)
                .findFirst().orElseThrow();
        assertEquals((ISN + 1 + request.length) & 0xFFFFFFFFL, ack.seq(),
                "the ACK's sequence number is where the copy's bytes of that direction end");
    }

    private static Segment seg(int port, byte[] stream, int from, int to) {
        return new Segment(port, (ISN + 1 + from) & 0xFFFFFFFFL, 0x18, Arrays.copyOfRange(stream, from, to));
    }

    private List<Segment> roundTrip(List<Segment> segments) throws Exception {
        Path in = dir.resolve("in.pcap");
        Path out = dir.resolve("out.pcap");
        Files.write(in, pcap(segments));
        FpduAlignedCapture.write(in, out);
        return read(Files.readAllBytes(out));
    }

    /** A classic little-endian pcap with Ethernet, IPv4 127.0.0.1 and TCP. */
    private static byte[] pcap(List<Segment> segments) {
        ByteBuffer b = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262144).putInt(1);
        int t = 0;
        for (Segment s : segments) {
            int len = 14 + 20 + 20 + s.payload().length;
            b.putInt(1).putInt(t++).putInt(len).putInt(len);
            ByteBuffer p = ByteBuffer.allocate(len);
            p.put(new byte[12]).putShort((short) 0x0800);
            p.put((byte) 0x45).put((byte) 0).putShort((short) (len - 14)).putShort((short) 1).putShort((short) 0)
                    .put((byte) 64).put((byte) 6).putShort((short) 0).putInt(0x7F000001).putInt(0x7F000001);
            int dst = s.srcPort() == INITIATOR ? RESPONDER : INITIATOR;
            p.putShort((short) s.srcPort()).putShort((short) dst).putInt((int) s.seq()).putInt(0)
                    .put((byte) 0x50).put((byte) s.flags()).putShort((short) 1024).putInt(0).put(s.payload());
            b.put(p.array());
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    private static List<Segment> read(byte[] pcap) {
        ByteBuffer b = ByteBuffer.wrap(pcap).order(ByteOrder.LITTLE_ENDIAN);
        List<Segment> out = new ArrayList<>();
        int at = 24;
        while (at < pcap.length) {
            int len = b.getInt(at + 8);
            ByteBuffer p = ByteBuffer.wrap(pcap, at + 16, len).slice();
            int ip = 14;
            int tcp = ip + (p.get(ip) & 0x0F) * 4;
            int payload = tcp + ((p.get(tcp + 12) & 0xFF) >> 4) * 4;
            int end = ip + (p.getShort(ip + 2) & 0xFFFF);
            byte[] data = new byte[end - payload];
            p.get(payload, data);
            out.add(new Segment(p.getShort(tcp) & 0xFFFF, p.getInt(tcp + 4) & 0xFFFFFFFFL, p.get(tcp + 13) & 0xFF, data));
            at += 16 + len;
        }
        return out;
    }
}
