package smbdirect.interop.vm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A copy of a loopback capture in which every MPA frame and FPDU is one TCP segment of its own: the
 * same bytes in the same order, only packetised along the iWARP PDUs (a PDU is sent as the segment
 * that completed it arrived; segments of the other direction, acknowledgements and the ends of the
 * connections stay where they were).
 *
 * <p>Why: Wireshark 4.0's MPA dissector (a TCP heuristic that hands {@code tcp_dissect_pdus} a
 * minimum PDU length of 8 bytes) sometimes loses a stream's PDU alignment when fewer than 8 bytes
 * of an FPDU end a TCP segment, and then decodes payload bytes as FPDU headers until it happens to
 * realign (seen on loopback, where 65480-byte FPDUs straddle 65483-byte segments). In the copy no
 * PDU starts inside a segment, so Wireshark judges every PDU; the original capture is kept for
 * people.
 *
 * <p>Reads a classic pcap (as {@code dumpcap -P} writes) with Ethernet framing and IPv4, as the
 * captures on {@code lo} are. A connection is followed from its SYN: its first PDU in each direction
 * is the MPA Request or Reply (20 bytes + private data), then FPDUs (ULPDU_Length + 2, padded to 4,
 * + 4 bytes of CRC when the Request or the Reply asked for CRC; the Reply always comes before the
 * initiator's first FPDU). A PDU longer than fits one IPv4 packet is sent as two segments. The
 * bytes of each direction are taken in sequence order, as TCP delivers them: a segment that comes
 * ahead of a gap (loopback drops packets under load, and TCP sends them again) waits until the gap
 * is filled, and the bytes of a retransmission that were already taken are left out. Bytes still
 * waiting behind a gap at the end are sent as they are.
 * Static, thread-safe.
 */
public final class FpduAlignedCapture {

    private static final int ETHERNET = 14;
    /** The most TCP payload one IPv4 packet of these headers carries. */
    private static final int MAX_IP = 65535;

    private FpduAlignedCapture() {
    }

    /** One direction of a TCP connection. */
    private static final class Direction {
        final Connection connection;
        long isn = -1;
        /** The next byte offset expected (from the first data byte). */
        long expected;
        /** Bytes of the PDUs not yet sent, starting at offset {@link #pendingAt}. */
        final java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();
        long pendingAt;
        boolean mpaFrameDone;
        /** Segments that came ahead of a gap: their payload by offset. */
        final java.util.TreeMap<Long, byte[]> ahead = new java.util.TreeMap<>();
        /** The headers (Ethernet, IPv4, TCP) of the last segment of this direction. */
        byte[] headers;

        Direction(Connection connection) {
            this.connection = connection;
        }

        /** The length of the PDU at the start of {@code b}, or -1 while its header is incomplete. */
        long pduLength(byte[] b, int at, int available) {
            if (!mpaFrameDone) {
                if (available < 20) {
                    return -1;
                }
                int pd = (b[at + 18] & 0xFF) << 8 | b[at + 19] & 0xFF;
                return 20 + pd;
            }
            if (available < 2) {
                return -1;
            }
            int ulpdu = (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
            int pad = (4 - (2 + ulpdu) % 4) % 4;
            return 2 + ulpdu + pad + (connection.crc ? 4 : 0);
        }
    }

    private static final class Connection {
        boolean crc;
    }

    /** One record of the output. */
    private record Out(int sec, int frac, byte[] packet) {
    }

    /**
     * Writes the copy of {@code pcap} to {@code out}.
     *
     * @return how many PDUs were re-packetised
     */
    public static int write(Path pcap, Path out) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(pcap));
        int magic = in.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (magic == 0xD4C3B2A1 || magic == 0x4D3CB2A1) {
            in.order(ByteOrder.BIG_ENDIAN);
        } else if (magic != 0xA1B2C3D4 && magic != 0xA1B23C4D) {
            throw new IOException(pcap + " is not a classic pcap file (magic 0x" + Integer.toHexString(magic) + ")");
        }
        if (in.getInt(20) != 1) {
            throw new IOException(pcap + ": link type " + in.getInt(20) + ", expected 1 (Ethernet)");
        }
        Map<String, Direction> directions = new HashMap<>();
        List<Out> records = new ArrayList<>();
        int[] pdus = new int[1];
        int at = 24;
        int sec = 0;
        int frac = 0;
        while (at + 16 <= in.capacity()) {
            sec = in.getInt(at);
            frac = in.getInt(at + 4);
            int incl = in.getInt(at + 8);
            int orig = in.getInt(at + 12);
            byte[] packet = new byte[incl];
            in.get(at + 16, packet);
            at += 16 + incl;
            if (incl != orig) {
                records.add(new Out(sec, frac, packet));
                continue;
            }
            for (byte[] p : recut(packet, directions, pdus)) {
                records.add(new Out(sec, frac, p));
            }
        }
        for (Direction d : new java.util.LinkedHashSet<>(directions.values())) {
            for (byte[] p : flush(d)) {
                records.add(new Out(sec, frac, p));
            }
        }
        try (java.io.OutputStream o = new java.io.BufferedOutputStream(Files.newOutputStream(out))) {
            o.write(in.array(), 0, 24);
            ByteBuffer h = ByteBuffer.allocate(16).order(in.order());
            for (Out r : records) {
                h.clear();
                h.putInt(r.sec()).putInt(r.frac()).putInt(r.packet().length).putInt(r.packet().length);
                o.write(h.array());
                o.write(r.packet());
            }
        }
        return pdus[0];
    }

    /** What to write for {@code packet}: itself, or the PDUs it completed (none while they are incomplete). */
    private static List<byte[]> recut(byte[] packet, Map<String, Direction> directions, int[] pdus) {
        ByteBuffer b = ByteBuffer.wrap(packet);
        if (packet.length < ETHERNET + 20 || b.getShort(12) != 0x0800 || (packet[ETHERNET] >> 4) != 4
                || packet[ETHERNET + 9] != 6) {
            return List.of(packet);
        }
        int tcp = ETHERNET + (packet[ETHERNET] & 0x0F) * 4;
        int payload = tcp + ((packet[tcp + 12] & 0xFF) >> 4) * 4;
        int end = ETHERNET + (b.getShort(ETHERNET + 2) & 0xFFFF);
        int srcPort = b.getShort(tcp) & 0xFFFF;
        int dstPort = b.getShort(tcp + 2) & 0xFFFF;
        long seq = b.getInt(tcp + 4) & 0xFFFFFFFFL;
        int flags = packet[tcp + 13] & 0xFF;
        String key = srcPort + ">" + dstPort;
        if ((flags & 0x02) != 0) { // SYN: a new connection (SYN without ACK: from the initiator)
            if ((flags & 0x10) == 0) {
                Connection c = new Connection();
                directions.put(key, new Direction(c));
                directions.put(dstPort + ">" + srcPort, new Direction(c));
            }
            Direction d = directions.get(key);
            if (d != null) {
                d.isn = seq;
            }
            return List.of(packet);
        }
        Direction d = directions.get(key);
        int n = end - payload;
        if (d == null || d.isn < 0) {
            return List.of(packet); // not followed
        }
        if (n <= 0 && (flags & 0x05) == 0) {
            // an acknowledgement: its sequence number is where this direction's bytes sent so far end
            return List.of(segment(packet, payload, packet, 0, 0, d.isn + 1 + d.pendingAt, flags));
        }
        long r = (seq - d.isn - 1) & 0xFFFFFFFFL;
        List<byte[]> out = new ArrayList<>();
        d.headers = java.util.Arrays.copyOf(packet, payload);
        if (n > 0) {
            d.ahead.merge(r, java.util.Arrays.copyOfRange(packet, payload, end),
                    (a, b2) -> a.length >= b2.length ? a : b2);
        }
        // take what continues the direction in sequence; a retransmission's bytes taken before are left out
        while (!d.ahead.isEmpty() && d.ahead.firstKey() <= d.expected) {
            Map.Entry<Long, byte[]> e = d.ahead.pollFirstEntry();
            int skip = (int) Math.min(e.getValue().length, d.expected - e.getKey());
            if (d.pending.size() == 0) {
                d.pendingAt = d.expected;
            }
            d.pending.write(e.getValue(), skip, e.getValue().length - skip);
            d.expected += e.getValue().length - skip;
        }
        byte[] bytes = d.pending.toByteArray();
        int from = 0;
        while (true) {
            long length = d.pduLength(bytes, from, bytes.length - from);
            if (length < 0 || from + length > bytes.length) {
                break;
            }
            if (!d.mpaFrameDone) {
                d.connection.crc |= (bytes[from + 16] & 0x40) != 0;
                d.mpaFrameDone = true;
            }
            for (int done = 0; done < length; ) {
                int piece = (int) Math.min(length - done, MAX_IP - (payload - ETHERNET));
                out.add(segment(d.headers, payload, bytes, from + done, piece, d.isn + 1 + d.pendingAt + from + done,
                        0x18));
                done += piece;
            }
            pdus[0]++;
            from += (int) length;
        }
        d.pending.reset();
        d.pending.write(bytes, from, bytes.length - from);
        d.pendingAt += from;
        if ((flags & 0x05) != 0) { // FIN or RST: what is held back goes first, then the end itself
            out.addAll(flush(d));
            out.add(segment(packet, payload, bytes, 0, 0, d.isn + 1 + r + n, flags));
        }
        return out;
    }

    /** The bytes held back for {@code d}, then those waiting behind a gap, as they are. */
    private static List<byte[]> flush(Direction d) {
        List<byte[]> out = new ArrayList<>();
        if (d.headers == null) {
            return out;
        }
        out.addAll(segments(d, d.pending.toByteArray(), d.pendingAt));
        d.pendingAt += d.pending.size();
        d.pending.reset();
        for (Map.Entry<Long, byte[]> e : d.ahead.entrySet()) {
            out.addAll(segments(d, e.getValue(), e.getKey()));
        }
        d.ahead.clear();
        return out;
    }

    private static List<byte[]> segments(Direction d, byte[] bytes, long at) {
        int payload = d.headers.length;
        List<byte[]> out = new ArrayList<>();
        for (int done = 0; done < bytes.length; ) {
            int piece = Math.min(bytes.length - done, MAX_IP - (payload - ETHERNET));
            out.add(segment(d.headers, payload, bytes, done, piece, d.isn + 1 + at + done, 0x18));
            done += piece;
        }
        return out;
    }

    /**
     * A segment with {@code headers} (Ethernet, IPv4, TCP: {@code payload} bytes), {@code length}
     * bytes of {@code data} from {@code from}, sequence number {@code seq} and TCP flags {@code flags}.
     */
    private static byte[] segment(byte[] headers, int payload, byte[] data, int from, int length, long seq, int flags) {
        byte[] p = new byte[payload + length];
        System.arraycopy(headers, 0, p, 0, payload);
        System.arraycopy(data, from, p, payload, length);
        ByteBuffer b = ByteBuffer.wrap(p);
        int ipLength = (p[ETHERNET] & 0x0F) * 4;
        b.putShort(ETHERNET + 2, (short) (p.length - ETHERNET));
        b.putShort(ETHERNET + 10, (short) 0);
        int sum = 0;
        for (int i = 0; i < ipLength; i += 2) {
            sum += b.getShort(ETHERNET + i) & 0xFFFF;
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        b.putShort(ETHERNET + 10, (short) ~sum);
        b.putInt(ETHERNET + ipLength + 4, (int) seq);
        p[ETHERNET + ipLength + 13] = (byte) flags;
        return p;
    }
}
