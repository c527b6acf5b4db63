package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;

import smbdirect.rdma.iwarp.internal.wire.Ddp;
import smbdirect.rdma.iwarp.internal.wire.Fpdu;

/**
 * The read-ahead of one {@link Receiver}: predicts the FPDUs that follow the one being read, so
 * that one scattering read takes many, each payload straight to its place.
 *
 * <p><b>Into posted receives.</b> One read per FPDU makes the system call, not the copy, the cost of
 * small FPDUs. While a Send is being received, the same read therefore also reaches into the FPDUs
 * that most likely follow: further Sends into the next posted receives (or the rest of this one),
 * each predicted from what the stream did so far (a message continues with segments of the size its
 * first one had; a new message is as long as the longest first segment seen, at most the receive).
 * The read scatters each predicted FPDU's payload straight into its posted receive, its PAD and CRC
 * and the following header into small slots, up to {@link #MAX_FPDUS} FPDUs and {@link #MAX_BYTES}
 * bytes. Nothing is trusted for being predicted: {@link #replay} then hands every header to the
 * receiver's checks exactly as if it had been read alone, and a payload counts as placed only when
 * its checked header names that very receive, offset and length. At the first header that does
 * not, everything read past it is copied in stream order into a spill buffer and fed through the
 * same checks and placement from there (so a misprediction costs a copy of at most
 * {@link #MAX_BYTES}, never a wrong byte; the spill buffer is the loop's staging buffer, see
 * {@link IoLoop#staging()}). The bytes a misprediction left in a posted receive lie
 * beyond what the Send placed there, where a receive's content is undefined.
 *
 * <p><b>Into the sink of our RDMA Read.</b> A Read Response is read ahead the same way: its further
 * segments are predicted at the size of the current one, at the following sink offsets, up to the
 * requested length. Those bytes lie within the sink range of an outstanding Read, which the Read
 * Response must fill completely and in order before the Read completes successfully (so every byte
 * a misprediction left there is overwritten by a checked segment), and whose content is undefined
 * if it fails. RDMA Write payload is never read ahead: a Write's length is not announced, so a
 * predicted segment could reach memory past the end of what the peer wrote. RDMA Write targets
 * receive only bytes whose header was checked (they can pass through the spill buffer when they
 * followed a mispredicted FPDU).
 *
 * <p>I/O thread only; allocation-free after the first read ahead (which creates the slots and the
 * receive region's views).
 */
final class ReadAhead {

    /** Most FPDUs one read predicts past the current one. */
    static final int MAX_FPDUS = 32;
    /** Most bytes one read predicts past the current FPDU (what the spill buffer, the loop's staging buffer, holds). */
    static final int MAX_BYTES = IoLoop.STAGING_BYTES;
    /** Payload bytes of a tagged FPDU that {@link Receiver#PREFIX} reads together with its header. */
    private static final int TAGGED_CARRY = Receiver.PREFIX - Ddp.TAGGED_HEADER;
    /** PAD (at most 3) and CRC of a predicted FPDU. */
    private static final int TRAILER_SLOT = 8;

    private final IwarpEndpoint ep;
    private final Receiver rx;
    private final WorkRequestRing<RecvWr> rq;
    /** Per predicted FPDU j: its PAD and CRC, then the header of the FPDU after it. */
    private final ByteBuffer[] trailers = new ByteBuffer[MAX_FPDUS];
    private final ByteBuffer[] headers = new ByteBuffer[MAX_FPDUS];
    /** Per predicted FPDU j: the view of its posted receive the read fills, and where that is. */
    private final ByteBuffer[] payloads = new ByteBuffer[MAX_FPDUS];
    private final IwarpRegion[] regions = new IwarpRegion[MAX_FPDUS];
    private final int[] offsets = new int[MAX_FPDUS];
    private final int[] lengths = new int[MAX_FPDUS];
    /** FPDUs predicted by the read in progress. */
    private int count;
    /** Whether the slots exist (created on the first read ahead). */
    private boolean slotsCreated;
    /** The longest first segment of a Send message seen (bytes), 0 before the first. */
    private int longestFirst;
    /** The payload of the latest Send segment that was not its message's last, 0 before the first. */
    private int segmentSize;
    private long spilledBytes;

    ReadAhead(IwarpEndpoint ep, Receiver rx, WorkRequestRing<RecvWr> rq) {
        this.ep = ep;
        this.rx = rx;
        this.rq = rq;
    }

    /** Bytes read ahead that a misprediction sent through the spill buffer. */
    long spilledBytes() {
        return spilledBytes;
    }

    /** A Send segment of {@code payload} bytes at MO {@code mo} passed its checks: what the stream does so far. */
    void sendSegment(int mo, int payload, boolean last) {
        if (mo == 0 && payload > longestFirst) {
            longestFirst = payload;
        }
        if (!last) {
            segmentSize = payload;
        }
    }

    /** A new read starts: nothing predicted yet. */
    void reset() {
        count = 0;
    }

    /** The read in progress reached past the current FPDU. */
    boolean pending() {
        return count > 0;
    }

    /**
     * Appends to {@code iov[0, k)} (which ends with the 20 bytes after the current Send FPDU: the
     * header of a following Send) the FPDUs predicted to follow: each as its payload in the posted
     * receive, its PAD and CRC, and the header after it. {@code recv} is the receive of the current
     * Send, {@code mo} the message offset after it, {@code next} the sequence of the next posted
     * receive no Send took yet. Returns the new length.
     */
    int sends(ByteBuffer[] iov, int k, RecvWr recv, int mo, boolean endsMessage, long next) {
        RecvWr r = recv;
        int bytes = 0;
        int j = 0;
        while (j < MAX_FPDUS) {
            int length;
            if (endsMessage) {
                if (next >= rq.tail() || longestFirst == 0) {
                    break;
                }
                r = rq.at(next++);
                mo = 0;
                length = Math.min(r.length, longestFirst);
            } else {
                length = Math.min(r.length - mo, segmentSize);
            }
            if (length <= 0 || !r.region.registered || !r.region.valid) {
                break;
            }
            int pad = Fpdu.pad(Ddp.UNTAGGED_HEADER_ULPDU + length);
            int span = length + pad + Fpdu.CRC_SIZE + Receiver.PREFIX;
            if (bytes + span > MAX_BYTES) {
                break;
            }
            bytes += span;
            k = slot(iov, k, j, r.region, r.offset + mo, length, pad);
            mo += length;
            endsMessage = mo >= r.length || segmentSize == 0 || length < segmentSize;
            j++;
        }
        count = j;
        return k;
    }

    /**
     * Appends to {@code iov[0, k)} (which ends with the 20 bytes after the current Read Response FPDU:
     * the header of the next one and its first {@link #TAGGED_CARRY} payload bytes) the rest of the
     * Read Response predicted to follow: segments of the size {@code segment} the current one has, at
     * the sink offsets of {@code w} (its region {@code r}) that follow, up to the length of the Read
     * Request (RFC 5040 §4.5: a Read Response places the requested length at consecutive offsets of
     * the sink, which the receiver's checks enforce). Returns the new length.
     */
    int readResponse(ByteBuffer[] iov, int k, SendWr w, IwarpRegion r, int segment) {
        if (!r.registered || !r.valid || segment <= TAGGED_CARRY) {
            return k;
        }
        long rest = (long) w.length - w.received - segment;
        int offset = w.offset + w.received + segment;
        int bytes = 0;
        int j = 0;
        while (j < MAX_FPDUS && rest > TAGGED_CARRY) {
            int length = (int) Math.min(segment, rest);
            int pad = Fpdu.pad(Ddp.TAGGED_HEADER_ULPDU + length);
            int span = length - TAGGED_CARRY + pad + Fpdu.CRC_SIZE + Receiver.PREFIX;
            if (bytes + span > MAX_BYTES) {
                break;
            }
            bytes += span;
            // the header slot before this segment holds its first TAGGED_CARRY bytes
            k = slot(iov, k, j, r, offset + TAGGED_CARRY, length - TAGGED_CARRY, pad);
            offset += length;
            rest -= length;
            j++;
        }
        count = j;
        return k;
    }

    /**
     * Predicted FPDU {@code j}: its payload straight into {@code length} bytes at {@code offset} of
     * {@code region}, then slots for its PAD and CRC and for the header after it. Returns the new
     * length of {@code iov}.
     */
    private int slot(ByteBuffer[] iov, int k, int j, IwarpRegion region, int offset, int length, int pad) {
        if (!slotsCreated) {
            slotsCreated = true;
            ByteBuffer slots = ByteBuffer.allocateDirect(MAX_FPDUS * (TRAILER_SLOT + Receiver.PREFIX));
            for (int i = 0; i < MAX_FPDUS; i++) {
                trailers[i] = slots.slice(i * TRAILER_SLOT, TRAILER_SLOT);
                headers[i] = slots.slice(MAX_FPDUS * TRAILER_SLOT + i * Receiver.PREFIX, Receiver.PREFIX);
            }
        }
        regions[j] = region;
        offsets[j] = offset;
        lengths[j] = length;
        payloads[j] = region.ahead(j, offset, length);
        trailers[j].clear().limit(pad + Fpdu.CRC_SIZE);
        headers[j].clear();
        iov[k++] = payloads[j];
        iov[k++] = trailers[j];
        iov[k++] = headers[j];
        return k;
    }

    /**
     * The read reached into predicted FPDUs: hands their bytes to the receiver in stream order. A
     * payload whose checked header names exactly the predicted receive, offset and length is in
     * place already (for a tagged segment: past the bytes its header slot carried, which the checks
     * placed); at the first that is not, the rest goes through the spill buffer. Returns false once
     * the endpoint ended.
     */
    boolean replay() {
        for (int j = 0; j < count; j++) {
            ByteBuffer p = payloads[j];
            int filled = p.position() - offsets[j];
            if (filled == 0) {
                return true;
            }
            if (!rx.expects(regions[j], offsets[j], lengths[j])) {
                return spillFrom(j);
            }
            if (!rx.placed(filled) || filled < lengths[j]) {
                return ep.isReceiving();
            }
            ByteBuffer t = trailers[j];
            boolean whole = !t.hasRemaining();
            if (!rx.trailerRead(t.flip()) || !whole) {
                return ep.isReceiving();
            }
            ByteBuffer h = headers[j];
            whole = !h.hasRemaining();
            if (!rx.headerRead(h.flip()) || !whole) {
                return ep.isReceiving();
            }
        }
        return true;
    }

    /** Copies what was read from predicted FPDU {@code j} on into the spill buffer and processes it from there. */
    private boolean spillFrom(int j) {
        ByteBuffer s = ep.loop.staging();
        for (int i = j; i < count; i++) {
            ByteBuffer p = payloads[i];
            boolean whole = !p.hasRemaining();
            p.limit(p.position()).position(offsets[i]);
            s.put(p);
            if (!whole) {
                break;
            }
            ByteBuffer t = trailers[i];
            whole = !t.hasRemaining();
            s.put(t.flip());
            if (!whole) {
                break;
            }
            ByteBuffer h = headers[i];
            whole = !h.hasRemaining();
            s.put(h.flip());
            if (!whole) {
                break;
            }
        }
        s.flip();
        spilledBytes += s.remaining();
        return rx.feed(s);
    }
}
