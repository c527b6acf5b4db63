package smbdirect.impl.trace;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes SMB Direct messages as a classic pcap file that Wireshark/tshark decodes with its
 * SMB Direct dissector without options: linktype 252 (exported PDU) naming the
 * {@code infiniband} dissector, then an InfiniBand LRH and BTH (RC SEND ONLY), the message, and
 * a zero ICRC and VCRC; one record per message (wireshark-trace.md section 4).
 *
 * <p>Endpoints: the initiator is LID 1 / QP 0x000101, the passive side LID 2 / QP 0x000102;
 * each direction has its own PSN counter (24 bits, wrapping). The pcap header and record headers
 * are little-endian with microsecond timestamps; records larger than the 262144-byte snap length
 * are truncated to it (orig_len keeps the full length).
 *
 * <p>At most {@code maxMessages} messages are written (default {@value #DEFAULT_MAX_MESSAGES});
 * later ones, ones recorded after {@link #close()} and ones that meet a write failure are
 * counted in {@link #dropped()} rather than written, so a long run cannot fill the disk. A write
 * failure is logged once and stops the trace; it is never thrown to the caller.
 *
 * <p>Thread-safe: every method is synchronized (tracing is off the hot path). The writer owns
 * the channel it was opened on and closes it in {@link #close()}. Messages handed to
 * {@link #record} are copied during the call; see {@link TraceSink}.
 */
public final class PcapTraceWriter implements TraceSink, Closeable {

    /** Default limit on the number of messages written. */
    public static final long DEFAULT_MAX_MESSAGES = 100_000;
    /** Snap length written in the file header. */
    public static final int SNAPLEN = 262_144;
    /** LINKTYPE_WIRESHARK_UPPER_PDU. */
    public static final int LINKTYPE_WIRESHARK_UPPER_PDU = 252;
    /** Bytes a record adds around the message: TLVs 18, LRH 8, BTH 12, ICRC 4, VCRC 2. */
    public static final int RECORD_OVERHEAD = 44;
    /** Size of the pcap file header. */
    public static final int FILE_HEADER_SIZE = 24;
    /** Size of a pcap record header. */
    public static final int RECORD_HEADER_SIZE = 16;

    /** LID of the initiator (active side). */
    public static final int INITIATOR_LID = 1;
    /** LID of the passive side. */
    public static final int PASSIVE_LID = 2;
    /** QP number of the initiator (not 0 or 1, which are the management QPs). */
    public static final int INITIATOR_QP = 0x000101;
    /** QP number of the passive side. */
    public static final int PASSIVE_QP = 0x000102;

    private static final Logger LOG = LoggerFactory.getLogger(PcapTraceWriter.class);
    private static final byte[] DISSECTOR = {'i', 'n', 'f', 'i', 'n', 'i', 'b', 'a', 'n', 'd'};
    private static final int TLV_DISSECTOR_NAME = 12;
    private static final int IB_OPCODE_RC_SEND_ONLY = 0x04;
    private static final int PSN_MASK = 0xFF_FFFF;
    private static final int LRH_AND_AFTER_OVERHEAD = 8 + 12 + 4; // LRH, BTH, ICRC: what PktLen counts

    private final WritableByteChannel channel;
    private final String name;
    private final long maxMessages;
    private ByteBuffer record = ByteBuffer.allocate(RECORD_HEADER_SIZE + RECORD_OVERHEAD + 8192);
    private int psnFromInitiator;
    private int psnFromPassive;
    private long written;
    private long dropped;
    private IOException failure;
    private boolean closed;
    private boolean limitLogged;

    private PcapTraceWriter(WritableByteChannel channel, String name, long maxMessages) throws IOException {
        if (maxMessages < 0) {
            throw new IllegalArgumentException("maxMessages=" + maxMessages + " must not be negative");
        }
        this.channel = channel;
        this.name = name;
        this.maxMessages = maxMessages;
        ByteBuffer h = ByteBuffer.allocate(FILE_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(SNAPLEN)
                .putInt(LINKTYPE_WIRESHARK_UPPER_PDU).flip();
        writeFully(h);
    }

    /** Creates (or truncates) {@code file} and writes the pcap header; default message limit. */
    public static PcapTraceWriter open(Path file) throws IOException {
        return open(file, DEFAULT_MAX_MESSAGES);
    }

    /** Creates (or truncates) {@code file} and writes the pcap header. */
    public static PcapTraceWriter open(Path file, long maxMessages) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        try {
            return new PcapTraceWriter(ch, file.toString(), maxMessages);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Writes the pcap header to {@code channel}, which the writer owns from now on. */
    public static PcapTraceWriter open(WritableByteChannel channel, long maxMessages) throws IOException {
        return new PcapTraceWriter(channel, channel.toString(), maxMessages);
    }

    /** Writes the pcap header to {@code channel} (owned by the writer from now on); default limit. */
    public static PcapTraceWriter open(WritableByteChannel channel) throws IOException {
        return open(channel, DEFAULT_MAX_MESSAGES);
    }

    @Override
    public synchronized void record(boolean fromInitiator, ByteBuffer message, long timestampMicros) {
        if (closed || failure != null) {
            dropped++;
            return;
        }
        if (written >= maxMessages) {
            dropped++;
            if (!limitLogged) {
                limitLogged = true;
                LOG.warn("trace {}: limit of {} messages reached; further messages are counted, not written", name,
                        maxMessages);
            }
            return;
        }
        int n = message.remaining();
        long full = (long) RECORD_OVERHEAD + n;
        int captured = (int) Math.min(full, SNAPLEN);
        ensureCapacity(RECORD_HEADER_SIZE + captured);
        ByteBuffer r = record;
        r.clear().limit(RECORD_HEADER_SIZE + captured);
        r.order(ByteOrder.LITTLE_ENDIAN);
        r.putInt((int) Math.floorDiv(timestampMicros, 1_000_000L));
        r.putInt((int) Math.floorMod(timestampMicros, 1_000_000L));
        r.putInt(captured);
        r.putInt((int) full);
        r.order(ByteOrder.BIG_ENDIAN);
        r.putShort((short) TLV_DISSECTOR_NAME).putShort((short) DISSECTOR.length).put(DISSECTOR);
        r.putShort((short) 0).putShort((short) 0);
        int psn;
        if (fromInitiator) {
            psn = psnFromInitiator;
            psnFromInitiator = (psnFromInitiator + 1) & PSN_MASK;
        } else {
            psn = psnFromPassive;
            psnFromPassive = (psnFromPassive + 1) & PSN_MASK;
        }
        // LRH: VL/LVer, SL/LNH=2 (BTH follows), DLID, PktLen (11 bits, rounded down), SLID
        r.put((byte) 0).put((byte) 0x02);
        r.putShort((short) (fromInitiator ? PASSIVE_LID : INITIATOR_LID));
        r.putShort((short) (((LRH_AND_AFTER_OVERHEAD + (long) n) / 4) & 0x7FF));
        r.putShort((short) (fromInitiator ? INITIATOR_LID : PASSIVE_LID));
        // BTH: opcode, SE/M/PadCnt/TVer, P_Key, reserved, DestQP(24), AckReq/reserved, PSN(24)
        r.put((byte) IB_OPCODE_RC_SEND_ONLY).put((byte) 0).putShort((short) 0xFFFF);
        r.putInt(fromInitiator ? PASSIVE_QP : INITIATOR_QP);
        r.putInt(psn);
        int body = Math.min(n, r.remaining());
        r.put(r.position(), message, message.position(), body);
        r.position(r.position() + body);
        while (r.hasRemaining()) {
            r.put((byte) 0); // ICRC and VCRC (not validated by Wireshark), cut off when truncated
        }
        r.flip();
        try {
            writeFully(r);
            written++;
        } catch (IOException e) {
            failure = e;
            dropped++;
            LOG.warn("trace {}: write failed after {} messages, tracing stops: {}", name, written, e.toString());
        }
    }

    /** Messages written so far. */
    public synchronized long written() {
        return written;
    }

    /** Messages not written: over the limit, after close, or after a write failure. */
    public synchronized long dropped() {
        return dropped;
    }

    /** The write failure that stopped the trace, or null. */
    public synchronized IOException failure() {
        return failure;
    }

    /** The message limit. */
    public long maxMessages() {
        return maxMessages;
    }

    /** Closes the channel; later records are counted as dropped. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        LOG.info("trace {} closed: {} messages written, {} dropped", name, written, dropped);
        channel.close();
    }

    private void ensureCapacity(int size) {
        if (record.capacity() < size) {
            record = ByteBuffer.allocate(Math.max(size, record.capacity() * 2));
        }
    }

    private void writeFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }

    @Override
    public synchronized String toString() {
        return "PcapTraceWriter[" + name + ", written=" + written + ", dropped=" + dropped + ", limit=" + maxMessages
                + (closed ? ", closed" : "") + "]";
    }
}
