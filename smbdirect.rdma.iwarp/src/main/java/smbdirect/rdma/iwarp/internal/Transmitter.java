package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.zip.CRC32C;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.internal.wire.Be;
import smbdirect.rdma.iwarp.internal.wire.Ddp;
import smbdirect.rdma.iwarp.internal.wire.Fpdu;
import smbdirect.rdma.iwarp.internal.wire.Rdmap;
import smbdirect.rdma.iwarp.internal.wire.TerminateError;

/**
 * The transmit side of one endpoint in RDMA mode: turns send-queue work requests and the peer's
 * RDMA Read Requests into FPDUs and writes them with gathering writes.
 *
 * <p>Each FPDU is three buffers: its header from a preallocated arena, a view of the registered
 * memory (never copied), and the PAD plus CRC from a second arena; the CRC32C runs over the bytes in
 * place (RFC 5044 §6.1). Up to {@link #MAX_BATCH} FPDUs or about {@link #MAX_BATCH_BYTES} go into
 * one {@code write(ByteBuffer[])}.
 * Messages are segmented to at most the configured FPDU size (RFC 5044 §4, RFC 5041 §5.1); each
 * message is sent whole before the next (no interleaving, as siw). A Send or RDMA Write completes
 * when its last FPDU was handed to TCP (iWARP has no acknowledgement); an RDMA Read when its Read
 * Response arrived. Read Responses are served between send-queue messages, at most 4 in a row while
 * send-queue work waits (siw's {@code SIW_IRQ_MAXBURST_SQ_ACTIVE}). When TCP takes no more, the rest
 * of the batch waits for OP_WRITE: nothing is buffered beyond one batch, and the send queue depth
 * bounds the work. A batch starts with room for {@link #FIRST_BATCH} FPDUs and grows to
 * {@link #MAX_BATCH} when one fills it. I/O thread only; allocation-free once grown.
 */
final class Transmitter {

    /**
     * FPDUs in one gathering write at most (3 buffers each, within Linux's IOV_MAX of 1,024): 256
     * Ethernet-sized FPDUs are 370 KB a system call, where 64 were 93 KB
     * (docs/benchmarks/2026-11-28-gathering-writes-and-sending-thread.md: RDMA Write at MTU 1500 between
     * two network stacks 0.97 → 1.7 of {@code iperf3}).
     */
    static final int MAX_BATCH = 256;
    /**
     * Bytes a batch stops growing at (it ends with the FPDU that reaches them). Larger writes cost the
     * kernel more per byte: 256 FPDUs of 8,944 bytes (2.3 MB a call) halved RDMA Write at MTU 9000
     * against 64 of them (570 KB), with the sending thread as busy.
     */
    static final int MAX_BATCH_BYTES = 512 * 1024;
    /**
     * FPDU slots (a header and a trailer each) an endpoint starts with: a connection that never fills
     * them keeps these 64 (2.3 KB of direct memory); the first batch that fills them grows them to
     * {@link #MAX_BATCH} at once (6.9 KB more), so that growing happens once.
     */
    static final int FIRST_BATCH = 64;
    /**
     * Send messages one batch starts at most. Each one takes a receive the peer posted, and the peer
     * posts them again as its upper layer grants credits: a batch that carried a whole window of Sends
     * would leave the sender waiting for the grant with nothing in flight
     * (docs/benchmarks/2026-11-28-gathering-writes-and-sending-thread.md: with up to 256 in a batch,
     * 1,364-byte Sends at MTU 9000 fell to 0.50-0.58 of {@code iperf3}, against
     * 0.61-0.67 with 64).
     */
    static final int MAX_BATCH_SENDS = 64;
    /** Batches one call of {@link #pump()} writes at most, then the other endpoints of the I/O thread have their turn. */
    private static final int BATCHES_PER_PUMP = 4;
    private static final int HEADER_SLOT = Rdmap.READ_REQUEST_HEADER;
    private static final int TRAILER_SLOT = 8;
    private static final int IRD_BURST = 4;

    private final IwarpEndpoint ep;
    private final Termination termination;
    private final Invalidation invalidation;
    private final SocketChannel socket;
    private final CRC32C crc;
    private final int maxFpdu;
    private final WorkRequestRing<SendWr> sq;
    private final InboundReads ird;
    private final OutboundReads orq;
    /** The batch's buffers (3 per FPDU and a Terminate) and its per-FPDU slots: sized by {@link #grow}. */
    private ByteBuffer[] iov = new ByteBuffer[0];
    private ByteBuffer[] headers = new ByteBuffer[0];
    private ByteBuffer[] trailers = new ByteBuffer[0];
    private SendWr[] fpduCompletes = new SendWr[0];
    private long[] fpduBytesEnd = new long[0];
    private int[] fpduIovEnd = new int[0];
    /** The next send-queue request to transmit. */
    private long txNext;
    private int fpdus;
    /** Send messages started in the batch. */
    private int batchSends;
    private int accounted;
    private int iovCount;
    private int iovStart;
    private long batchBytes;
    private long batchWritten;
    private SendWr current;
    private InboundRead currentRead;
    private int irdBurst;
    private int sendMsn;
    private int readMsn;
    private boolean gateOpen;
    private boolean aborted;
    private long fpdusSent;

    Transmitter(IwarpEndpoint ep, SocketChannel socket, boolean crcOn, int maxFpdu, WorkRequestRing<SendWr> sq, InboundReads ird,
            OutboundReads orq) {
        this.ep = ep;
        this.termination = ep.termination;
        this.invalidation = ep.invalidation;
        this.socket = socket;
        this.crc = crcOn ? new CRC32C() : null;
        this.maxFpdu = maxFpdu;
        this.sq = sq;
        this.ird = ird;
        this.orq = orq;
        grow();
    }

    /**
     * Adds FPDU slots, a header and a trailer each, in a new arena: the first {@link #FIRST_BATCH},
     * then the rest up to {@link #MAX_BATCH}. Only while a batch is filled, before any of it is written
     * (the arrays it is in are copied).
     */
    private void grow() {
        int from = headers.length;
        int to = from == 0 ? FIRST_BATCH : MAX_BATCH;
        int added = to - from;
        ByteBuffer arena = ByteBuffer.allocateDirect(added * (HEADER_SLOT + TRAILER_SLOT));
        headers = Arrays.copyOf(headers, to);
        trailers = Arrays.copyOf(trailers, to);
        for (int i = 0; i < added; i++) {
            headers[from + i] = arena.slice(i * HEADER_SLOT, HEADER_SLOT);
            trailers[from + i] = arena.slice(added * HEADER_SLOT + i * TRAILER_SLOT, TRAILER_SLOT);
        }
        iov = Arrays.copyOf(iov, 3 * to + 1);
        fpduCompletes = Arrays.copyOf(fpduCompletes, to);
        fpduBytesEnd = Arrays.copyOf(fpduBytesEnd, to);
        fpduIovEnd = Arrays.copyOf(fpduIovEnd, to);
    }

    /** The responder may send once the initiator's first FPDU arrived (RFC 5044 §7.1.2); the initiator at once. */
    void openGate() {
        gateOpen = true;
    }

    /** Puts a zero-length RDMA Write RTR (STag 1, TO 0, as siw builds it; RFC 6581 §5) before everything else. */
    void queueWriteRtr() {
        ByteBuffer h = headers[fpdus].clear();
        Ddp.putTagged(h, 0, Ddp.TAGGED_HEADER_ULPDU, true, Rdmap.RDMA_WRITE, 1, 0);
        add(h, Ddp.TAGGED_HEADER, null, 0, null);
    }

    /** Puts a zero-length RDMA Read RTR (RFC 6581 §5); its Read Response is consumed without a completion. */
    void queueReadRtr(SendWr rtr) {
        readMsn++;
        rtr.readMsn = readMsn;
        ByteBuffer h = headers[fpdus].clear();
        Ddp.putUntagged(h, 0, Rdmap.READ_REQUEST_HEADER - 2, true, Rdmap.READ_REQUEST, 0, Ddp.QN_READ_REQUEST,
                readMsn, 0);
        Rdmap.putReadRequest(h, 0, 0, 0, 0, 1, 0);
        orq.add(rtr);
        add(h, Rdmap.READ_REQUEST_HEADER, null, 0, null);
    }

    /** FPDUs the batch has slots for now: {@link #FIRST_BATCH} or {@link #MAX_BATCH}. */
    int batchSlots() {
        return headers.length;
    }

    long fpdusSent() {
        return fpdusSent;
    }

    /**
     * Writes what the batch holds and builds further batches until TCP takes no more, nothing is
     * left, or {@link #BATCHES_PER_PUMP} batches went out (then the endpoint is scheduled again, so
     * that one busy connection does not hold its I/O thread from the others).
     */
    void pump() throws IOException {
        int batches = 0;
        while (!aborted) {
            if (iovStart < iovCount) {
                long n = socket.write(iov, iovStart, iovCount - iovStart);
                batchWritten += n;
                while (iovStart < iovCount && !iov[iovStart].hasRemaining()) {
                    iovStart++;
                }
                account();
                if (iovStart < iovCount) {
                    ep.wantWrite(true);
                    return;
                }
            }
            resetBatch();
            if (++batches > BATCHES_PER_PUMP) {
                ep.kickTransmit();
                return;
            }
            if (!fill()) {
                ep.wantWrite(false);
                return;
            }
        }
    }

    /** Marks the work requests whose last FPDU is fully written as done (handed to TCP). */
    private void account() {
        while (accounted < fpdus && fpduBytesEnd[accounted] <= batchWritten) {
            SendWr w = fpduCompletes[accounted];
            if (w != null) {
                w.complete(CompletionStatus.SUCCESS, w.type == WorkRequestType.RDMA_WRITE ? w.length : 0);
                fpduCompletes[accounted] = null;
                ep.completionsReady();
            }
            accounted++;
            fpdusSent++;
        }
    }

    private void resetBatch() {
        for (int i = 0; i < iovCount; i++) {
            iov[i] = null;
        }
        fpdus = 0;
        batchSends = 0;
        accounted = 0;
        iovCount = 0;
        iovStart = 0;
        batchBytes = 0;
        batchWritten = 0;
    }

    /**
     * Adds FPDUs to the empty batch up to {@link #MAX_BATCH} or {@link #MAX_BATCH_BYTES}, growing its
     * slots when it fills them; returns whether it added any.
     */
    private boolean fill() {
        while (!aborted && batchBytes < MAX_BATCH_BYTES) {
            if (fpdus == headers.length) {
                if (fpdus == MAX_BATCH) {
                    break;
                }
                grow();
            }
            if (current != null) {
                addMessageSegment();
            } else if (currentRead != null) {
                addReadResponseSegment();
            } else if (!startNext()) {
                break;
            }
        }
        return fpdus > 0;
    }

    private boolean startNext() {
        if (!gateOpen) {
            // nothing goes on the wire yet; a local invalidate at the head of the queue needs no wire
            if (txNext < sq.tail() && sq.at(txNext).type == WorkRequestType.LOCAL_INVALIDATE) {
                SendWr w = sq.at(txNext);
                txNext++;
                invalidation.localInvalidate(w);
                return !aborted;
            }
            return false;
        }
        boolean sqReady = txNext < sq.tail();
        if (sqReady) {
            SendWr head = sq.at(txNext);
            sqReady = head.type != WorkRequestType.RDMA_READ || !orq.isFull();
        }
        InboundRead read = ird.peek();
        if (read != null && (!sqReady || irdBurst < IRD_BURST)) {
            irdBurst++;
            return startReadResponse(read);
        }
        if (!sqReady) {
            return false;
        }
        irdBurst = 0;
        SendWr w = sq.at(txNext);
        switch (w.type) {
            case LOCAL_INVALIDATE:
                txNext++;
                invalidation.localInvalidate(w);
                return !aborted;
            case RDMA_READ:
                if (!invalidation.checkLocal(w)) {
                    return false;
                }
                txNext++;
                readMsn++;
                w.readMsn = readMsn;
                ByteBuffer h = headers[fpdus].clear();
                Ddp.putUntagged(h, 0, Rdmap.READ_REQUEST_HEADER - 2, true, Rdmap.READ_REQUEST, 0,
                        Ddp.QN_READ_REQUEST, readMsn, 0);
                Rdmap.putReadRequest(h, 0, w.region.stag, w.region.base + w.offset, w.length, w.remoteToken,
                        w.remoteAddress);
                orq.add(w);
                add(h, Rdmap.READ_REQUEST_HEADER, null, 0, null);
                return true;
            default:
                if (w.type == WorkRequestType.SEND && batchSends == MAX_BATCH_SENDS) {
                    return false; // the next batch starts with it
                }
                if (!invalidation.checkLocal(w)) {
                    return false;
                }
                if (w.type == WorkRequestType.SEND) {
                    batchSends++;
                    sendMsn++;
                }
                current = w;
                return true;
        }
    }

    private int room(int headerBytes) {
        return Math.min((maxFpdu - headerBytes - Fpdu.CRC_SIZE) & ~3, Fpdu.MAX_ULPDU - (headerBytes - 2));
    }

    /** The next DDP segment of the Send or RDMA Write in progress (RFC 5041 §5.1, §5.2). */
    private void addMessageSegment() {
        SendWr w = current;
        boolean tagged = w.type == WorkRequestType.RDMA_WRITE;
        int headerBytes = tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER;
        int payload = Math.min(w.length - w.sent, room(headerBytes));
        boolean last = w.sent + payload == w.length;
        ByteBuffer h = headers[fpdus].clear();
        int ulpdu = headerBytes - 2 + payload;
        if (tagged) {
            Ddp.putTagged(h, 0, ulpdu, last, Rdmap.RDMA_WRITE, w.remoteToken, w.remoteAddress + w.sent);
        } else {
            Ddp.putUntagged(h, 0, ulpdu, last, w.opcode, w.opcode == Rdmap.SEND_INVALIDATE ? w.invalidateToken : 0,
                    Ddp.QN_SEND, sendMsn, w.sent);
        }
        ByteBuffer view = payload > 0 ? w.region.transmit(fpdus, w.offset + w.sent, payload) : null;
        w.sent += payload;
        if (last) {
            current = null;
            txNext++;
        }
        add(h, headerBytes, view, payload, last ? w : null);
    }

    /**
     * Checks the source of a Read Request as Linux siw does when it builds the response
     * (iwarp.md §6.2): STag index, key, validity, REMOTE_READ, then TO wrap and bounds. A zero-length
     * Read (an RTR) is answered without a lookup.
     */
    private boolean startReadResponse(InboundRead r) {
        r.started = true;
        if (r.size > 0) {
            IwarpRegion s = ep.regions.lookup(IwarpRegion.index(r.sourceStag));
            TerminateError error = null;
            String why = null;
            if (s == null || s.stag != r.sourceStag || !s.valid || !s.registered) {
                error = TerminateError.RDMAP_INVALID_STAG;
                why = s == null ? "no registration" : s.stag != r.sourceStag ? "key mismatch (live STag 0x"
                        + Integer.toHexString(s.stag) + ")" : "the registration is invalidated";
            } else if (!s.remoteRead) {
                error = TerminateError.RDMAP_ACCESS_RIGHTS;
                why = "the registration lacks REMOTE_READ";
            } else if (Long.compareUnsigned(r.sourceTo + r.size, r.sourceTo) < 0) {
                error = TerminateError.RDMAP_TO_WRAP;
                why = "TO + size wraps 2^64";
            } else if (Long.compareUnsigned(r.sourceTo, s.base) < 0
                    || Long.compareUnsigned(r.sourceTo + r.size, s.base + s.length) > 0) {
                error = TerminateError.RDMAP_BASE_BOUNDS;
                why = "[0x" + Long.toHexString(r.sourceTo) + ", +" + r.size + ") is outside the registration [0x"
                        + Long.toHexString(s.base) + ", +" + s.length + ")";
            }
            if (error != null) {
                termination.failReadRequest(r, error, "RDMA Read Request MSN " + Integer.toUnsignedString(r.msn)
                        + " names source STag 0x" + Integer.toHexString(r.sourceStag) + ": " + why);
                return false;
            }
            r.source = s;
        }
        currentRead = r;
        return true;
    }

    /** The next segment of the Read Response in progress (RFC 5040 §4.5). */
    private void addReadResponseSegment() {
        InboundRead r = currentRead;
        if (r.source != null && (!r.source.valid || !r.source.registered)) {
            termination.failReadRequest(r, TerminateError.RDMAP_INVALID_STAG, "the source of RDMA Read Request MSN "
                    + Integer.toUnsignedString(r.msn) + " was invalidated while its response was being sent");
            return;
        }
        int payload = (int) Math.min(r.size - r.sent, room(Ddp.TAGGED_HEADER));
        boolean last = r.sent + payload == r.size;
        ByteBuffer h = headers[fpdus].clear();
        Ddp.putTagged(h, 0, Ddp.TAGGED_HEADER_ULPDU + payload, last, Rdmap.READ_RESPONSE, r.sinkStag,
                r.sinkTo + r.sent);
        ByteBuffer view = payload > 0
                ? r.source.transmit(fpdus, (int) (r.sourceTo - r.source.base) + r.sent, payload) : null;
        r.sent += payload;
        if (last) {
            currentRead = null;
            ird.pop();
        }
        add(h, Ddp.TAGGED_HEADER, view, payload, null);
    }

    /** Appends one FPDU: header, payload view, PAD and CRC (RFC 5044 §4.1, §6.1). */
    private void add(ByteBuffer header, int headerBytes, ByteBuffer payload, int payloadBytes, SendWr completes) {
        int ulpdu = headerBytes - 2 + payloadBytes;
        int pad = Fpdu.pad(ulpdu);
        ByteBuffer t = trailers[fpdus];
        t.clear();
        for (int i = 0; i < pad; i++) {
            t.put(i, (byte) 0);
        }
        int value = 0;
        if (crc != null) {
            crc.reset();
            Fpdu.update(crc, header, 0, headerBytes);
            if (payloadBytes > 0) {
                Fpdu.update(crc, payload, payload.position(), payloadBytes);
            }
            Fpdu.update(crc, t, 0, pad);
            value = (int) crc.getValue();
        }
        Be.putLe32(t, pad, value);
        t.limit(pad + Fpdu.CRC_SIZE);
        header.limit(headerBytes).position(0);
        iov[iovCount++] = header;
        if (payloadBytes > 0) {
            iov[iovCount++] = payload;
        }
        iov[iovCount++] = t;
        batchBytes += headerBytes + payloadBytes + pad + Fpdu.CRC_SIZE;
        fpduBytesEnd[fpdus] = batchBytes;
        fpduIovEnd[fpdus] = iovCount;
        fpduCompletes[fpdus] = completes;
        fpdus++;
    }

    /**
     * Stops transmitting: keeps the rest of a partly written FPDU (so the stream stays framed), drops
     * every FPDU not started, and appends {@code terminate} (may be null). Returns the number of
     * buffers from {@link #pendingFrom()} the close sequence must still write.
     */
    int abort(ByteBuffer terminate) {
        aborted = true;
        current = null;
        currentRead = null;
        int keepTo = iovStart;
        long before = accounted == 0 ? 0 : fpduBytesEnd[accounted - 1];
        if (accounted < fpdus && batchWritten > before) {
            keepTo = fpduIovEnd[accounted];
        }
        if (terminate != null) {
            iov[keepTo++] = terminate;
        }
        iovCount = keepTo;
        return keepTo;
    }

    ByteBuffer[] pendingBuffers() {
        return iov;
    }

    int pendingFrom() {
        return iovStart;
    }
}
