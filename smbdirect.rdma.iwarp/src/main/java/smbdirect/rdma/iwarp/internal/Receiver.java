package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.zip.CRC32C;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.rdma.iwarp.internal.wire.Be;
import smbdirect.rdma.iwarp.internal.wire.Ddp;
import smbdirect.rdma.iwarp.internal.wire.Fpdu;
import smbdirect.rdma.iwarp.internal.wire.Rdmap;
import smbdirect.rdma.iwarp.internal.wire.TerminateError;

/**
 * The receive side of one endpoint in RDMA mode: parses the TCP byte stream into FPDUs and places
 * their payload. Headers land first; once the header is checked, the payload is read straight into
 * the posted receive (Sends) or the registered target (RDMA Write, Read Response), together with the
 * PAD, CRC and the first bytes of the next FPDU in one scattering read. Those first bytes are at
 * most 20, the smallest FPDU (a zero-length tagged segment), so a read never reaches past the next
 * header; a tagged header (16 bytes) leaves up to 4 payload bytes to copy. FPDUs may span reads and
 * one read may hold many (iwarp.md §3.5, §7).
 *
 * <p>While a Send or a Read Response is read, the same read also reaches into the FPDUs predicted
 * to follow ({@link ReadAhead}); every header of them is then checked here as if it had been read
 * alone.
 *
 * <p>Checks (iwarp.md §3.6, §4.4, §6.2, in Linux siw's order): DDP version, RDMAP version, opcode,
 * then per opcode QN, MSN and MO of untagged segments, a posted receive long enough for a Send, the
 * Read Response against the oldest outstanding Read Request, the STag, rights and bounds of an RDMA
 * Write before a byte of it is placed, IRD for Read Requests, and the CRC32C of every FPDU when
 * negotiated (RFC 5044 §6.1). Any failure ends the connection with one Terminate naming layer, type
 * and code ({@link Termination#failReceive}); a Terminate of the peer ends it without an answer.
 * I/O thread only; allocation-free (after the first read ahead, see {@link ReadAhead}).
 */
final class Receiver {

    /** Bytes of the next FPDU read together with the end of the current one. */
    static final int PREFIX = Fpdu.MIN_SIZE;
    private static final int ROUNDS = 16;

    private final EndpointImpl ep;
    private final Termination termination;
    private final Invalidation invalidation;
    private final SocketChannel socket;
    private final CRC32C crc;
    private final WorkRing<RecvWr> rq;
    private final RegionTable regions;
    private final InboundReads ird;
    private final OutboundReads orq;
    private final ByteBuffer hdr = ByteBuffer.allocateDirect(Rdmap.READ_REQUEST_HEADER);
    private final ByteBuffer cur = ByteBuffer.allocateDirect(Rdmap.READ_REQUEST_HEADER);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8);
    private final ByteBuffer term = ByteBuffer.allocateDirect(64);
    private final ByteBuffer[] iov = new ByteBuffer[3 + 3 * ReadAhead.MAX_FPDUS];
    private final ReadAhead readAhead;
    /** Bytes read past a tagged header (at most 4). */
    private final byte[] carried = new byte[PREFIX];

    private boolean inHeader = true;
    private int headerBytes;
    private int opcode;
    private boolean last;
    private int payload;
    private int pad;
    private ByteBuffer target;
    /** The registration {@link #target} is a view of (Sends, RDMA Writes, Read Responses), else null. */
    private RegionImpl targetRegion;
    private int crcMark;
    private boolean terminate;
    private int invalidateStag;

    private int expectedSendMsn = 1;
    private int expectedReadMsn = 1;
    private RecvWr recv;
    /** Posted receives handed to incoming Sends so far. */
    private long taken;
    private int sendMo;
    private SendWr readWr;
    private boolean firstFpduSeen;
    private long fpdusReceived;
    private long socketReads;

    Receiver(EndpointImpl ep, SocketChannel socket, boolean crcOn, WorkRing<RecvWr> rq, RegionTable regions,
            InboundReads ird, OutboundReads orq) {
        this.ep = ep;
        this.termination = ep.termination;
        this.invalidation = ep.invalidation;
        this.socket = socket;
        this.crc = crcOn ? new CRC32C() : null;
        this.rq = rq;
        this.regions = regions;
        this.ird = ird;
        this.orq = orq;
        this.readAhead = new ReadAhead(ep, this, rq);
    }

    long fpdusReceived() {
        return fpdusReceived;
    }

    /** Reads from the socket that returned bytes or the end of the stream. */
    long socketReads() {
        return socketReads;
    }

    /** Bytes read ahead that a misprediction sent through the spill buffer. */
    long spilledBytes() {
        return readAhead.spilledBytes();
    }

    /** The socket is readable: reads and processes up to a bounded number of reads. */
    void onReadable() throws IOException {
        for (int round = 0; round < ROUNDS; round++) {
            long n;
            readAhead.reset();
            if (inHeader) {
                hdr.limit(headerNeed());
                n = socket.read(hdr);
            } else {
                int k = 0;
                if (target != null && target.hasRemaining()) {
                    iov[k++] = target;
                }
                if (!terminate && trailer.hasRemaining()) {
                    iov[k++] = trailer;
                }
                hdr.limit(PREFIX);
                iov[k++] = hdr;
                if (!terminate && Rdmap.isSend(opcode)) {
                    k = readAhead.sends(iov, k, recv, sendMo + payload, last, taken);
                } else if (opcode == Rdmap.READ_RESPONSE && !last && targetRegion != null) {
                    k = readAhead.readResponse(iov, k, readWr, targetRegion, payload); // targetRegion is readWr's
                }
                n = socket.read(iov, 0, k);
            }
            if (n < 0) {
                ep.peerClosed(!inHeader || hdr.position() > 0);
                return;
            }
            if (n == 0) {
                return;
            }
            socketReads++;
            if (!process() || readAhead.pending() && !readAhead.replay()) {
                return;
            }
        }
    }

    /**
     * {@link ReadAhead}: the FPDU in progress places its payload at exactly {@code [offset, offset +
     * length)} of {@code region}, the place a predicted FPDU was read into.
     */
    boolean expects(RegionImpl region, int offset, int length) {
        return !inHeader && !terminate && (Rdmap.isSend(opcode) || opcode == Rdmap.READ_RESPONSE)
                && targetRegion == region && target != null && target.position() == offset
                && target.remaining() == length;
    }

    /** {@link ReadAhead}: {@code n} bytes of the payload in progress were read in place. */
    boolean placed(int n) {
        target.position(target.position() + n);
        return process();
    }

    /** {@link ReadAhead}: PAD and CRC bytes of the FPDU in progress. */
    boolean trailerRead(ByteBuffer bytes) {
        trailer.put(bytes);
        return process();
    }

    /** {@link ReadAhead}: header bytes of the next FPDU. */
    boolean headerRead(ByteBuffer bytes) {
        hdr.limit(hdr.capacity());
        hdr.put(bytes);
        return process();
    }

    /** Processes {@code source} as if it had been read from the socket. */
    boolean feed(ByteBuffer source) {
        while (source.hasRemaining()) {
            if (!ep.isReceiving()) {
                return false;
            }
            ByteBuffer into;
            if (inHeader) {
                into = hdr.limit(headerNeed());
            } else if (target != null && target.hasRemaining()) {
                into = target;
            } else if (!terminate && trailer.hasRemaining()) {
                into = trailer;
            } else {
                into = hdr.limit(PREFIX);
            }
            int m = Math.min(source.remaining(), into.remaining());
            into.put(into.position(), source, source.position(), m);
            into.position(into.position() + m);
            source.position(source.position() + m);
            if (!process()) {
                return false;
            }
        }
        return true;
    }

    /** Processes what was read; returns false once the endpoint ended. */
    private boolean process() {
        while (ep.isReceiving()) {
            if (inHeader) {
                if (hdr.position() < 4 || hdr.position() < headerLength()) {
                    return true;
                }
                if (!startFpdu()) {
                    return false;
                }
            } else {
                updateCrc();
                if ((target != null && target.hasRemaining()) || (!terminate && trailer.hasRemaining())) {
                    return true;
                }
                if (!finishFpdu()) {
                    return false;
                }
            }
        }
        return false;
    }

    private int headerNeed() {
        return hdr.position() < 4 ? PREFIX : Math.max(PREFIX, headerLength());
    }

    /** The header length of the FPDU whose first 4 bytes are in {@link #hdr}. */
    private int headerLength() {
        if (Ddp.isTagged(Be.u8(hdr, Ddp.CONTROL))) {
            return Ddp.TAGGED_HEADER;
        }
        int op = Rdmap.opcode(Be.u8(hdr, Ddp.RDMAP_CONTROL));
        if (op == Rdmap.READ_REQUEST) {
            return Rdmap.READ_REQUEST_HEADER;
        }
        return op == Rdmap.TERMINATE ? Ddp.UNTAGGED_HEADER + 4 : Ddp.UNTAGGED_HEADER;
    }

    /** A complete header is in {@link #hdr}: check it, choose the target, take the bytes read past it. */
    private boolean startFpdu() {
        headerBytes = headerLength();
        int carry = hdr.position() - headerBytes;
        cur.clear();
        cur.put(0, hdr, 0, headerBytes);
        for (int i = 0; i < carry; i++) {
            carried[i] = hdr.get(headerBytes + i);
        }
        hdr.clear();
        target = null;
        targetRegion = null;
        terminate = false;
        int control = Be.u8(cur, Ddp.CONTROL);
        int rdmapControl = Be.u8(cur, Ddp.RDMAP_CONTROL);
        boolean tagged = Ddp.isTagged(control);
        if (Ddp.version(control) != Ddp.VERSION) {
            return fail(tagged ? TerminateError.DDP_TAGGED_VERSION : TerminateError.DDP_UNTAGGED_VERSION,
                    "DDP version " + Ddp.version(control) + " (RFC 5041 §4.1 requires 1)", false);
        }
        if (Rdmap.version(rdmapControl) != Rdmap.VERSION) {
            return fail(TerminateError.RDMAP_INVALID_VERSION,
                    "RDMAP version " + Rdmap.version(rdmapControl) + " (RFC 5040 §4.2 requires 1)", false);
        }
        opcode = Rdmap.opcode(rdmapControl);
        if (opcode > Rdmap.TERMINATE) {
            return fail(TerminateError.RDMAP_UNEXPECTED_OPCODE, "opcode " + opcode + " (RFC 5040 §4.2)", false);
        }
        if (Rdmap.isTaggedOpcode(opcode) != tagged) {
            return fail(TerminateError.RDMAP_UNEXPECTED_OPCODE, Rdmap.name(opcode) + " in a "
                    + (tagged ? "tagged" : "untagged") + " DDP segment (RFC 5040 §4.2)", false);
        }
        int ulpdu = Fpdu.ulpduLength(cur, 0);
        if (ulpdu + Fpdu.LENGTH_SIZE < headerBytes) {
            return fail(TerminateError.DDP_CATASTROPHIC, "ULPDU_Length " + ulpdu + " is shorter than the "
                    + Rdmap.name(opcode) + " header of " + (headerBytes - 2) + " bytes (RFC 5044 §4.1)", false);
        }
        payload = ulpdu + Fpdu.LENGTH_SIZE - headerBytes;
        pad = Fpdu.pad(ulpdu);
        last = Ddp.isLast(control);
        boolean ok = switch (opcode) {
            case Rdmap.RDMA_WRITE -> startWrite();
            case Rdmap.READ_RESPONSE -> startReadResponse();
            case Rdmap.READ_REQUEST -> startReadRequest();
            case Rdmap.TERMINATE -> startTerminate();
            default -> startSend();
        };
        if (!ok) {
            return false;
        }
        trailer.clear().limit(pad + Fpdu.CRC_SIZE);
        if (crc != null) {
            crc.reset();
            Fpdu.update(crc, cur, 0, headerBytes);
        }
        crcMark = target == null ? 0 : target.position();
        for (int i = 0; i < carry; i++) {
            byte b = carried[i];
            if (target != null && target.hasRemaining()) {
                target.put(b);
            } else if (trailer.hasRemaining()) {
                trailer.put(b);
            }
        }
        inHeader = false;
        return true;
    }


    /** RDMA Write (RFC 5040 §4.3): STag, key, validity, REMOTE_WRITE, TO wrap, bounds (iwarp.md §6.2). */
    private boolean startWrite() {
        if (payload == 0) {
            return true; // a zero-length Write (a Write RTR) names no memory (iwarp.md §7)
        }
        int stag = Ddp.stag(cur, 0);
        long to = Ddp.taggedOffset(cur, 0);
        RegionImpl r = regions.lookup(RegionImpl.index(stag));
        if (r == null) {
            return writeFails(TerminateError.DDP_INVALID_STAG, stag, to, "no such registration");
        }
        if (r.stag != stag) {
            return writeFails(TerminateError.DDP_INVALID_STAG, stag, to, "key mismatch");
        }
        if (!r.valid || !r.registered) {
            return writeFails(TerminateError.DDP_INVALID_STAG, stag, to, "the registration is invalidated");
        }
        if (!r.remoteWrite) {
            return writeFails(TerminateError.DDP_INVALID_STAG, stag, to,
                    "the registration lacks REMOTE_WRITE (DDP has no access code; reported as siw does)");
        }
        if (Long.compareUnsigned(to + payload, to) < 0) {
            return writeFails(TerminateError.DDP_TO_WRAP, stag, to, "TO + length wraps 2^64");
        }
        if (Long.compareUnsigned(to, r.base) < 0 || Long.compareUnsigned(to + payload, r.base + r.length) > 0) {
            return writeFails(TerminateError.DDP_BASE_BOUNDS, stag, to, "outside the registration [0x"
                    + Long.toHexString(r.base) + ", +" + r.length + ")");
        }
        target = r.placement((int) (to - r.base), payload);
        targetRegion = r;
        return true;
    }

    private boolean writeFails(TerminateError error, int stag, long to, String why) {
        return fail(error, "RDMA Write of " + payload + " bytes to STag 0x" + Integer.toHexString(stag) + " TO 0x"
                + Long.toHexString(to) + ": " + why, true);
    }

    /** Read Response (RFC 5040 §4.5): must answer the oldest outstanding Read Request exactly. */
    private boolean startReadResponse() {
        SendWr w = orq.peek();
        int stag = Ddp.stag(cur, 0);
        long to = Ddp.taggedOffset(cur, 0);
        if (w == null) {
            return fail(TerminateError.DDP_CATASTROPHIC, "RDMA Read Response to STag 0x" + Integer.toHexString(stag)
                    + " without an outstanding RDMA Read Request (RFC 5040 §5.4)", true);
        }
        int sinkStag = w.internal ? 0 : w.region.stag;
        long sinkTo = (w.internal ? 0 : w.region.base + w.offset) + w.received;
        if (stag != sinkStag) {
            return fail(TerminateError.DDP_INVALID_STAG, "RDMA Read Response to STag 0x" + Integer.toHexString(stag)
                    + ", the outstanding Read Request (MSN " + w.readMsn + ") named 0x"
                    + Integer.toHexString(sinkStag), true);
        }
        if (to != sinkTo) {
            return fail(TerminateError.DDP_BASE_BOUNDS, "RDMA Read Response at TO 0x" + Long.toHexString(to)
                    + ", expected 0x" + Long.toHexString(sinkTo), true);
        }
        long total = (long) w.received + payload;
        if (total > w.length || last && total != w.length) {
            return fail(TerminateError.DDP_BASE_BOUNDS, "RDMA Read Response of " + total + " bytes"
                    + (last ? "" : " so far") + " for a Read Request of " + w.length + " bytes", true);
        }
        if (payload > 0) {
            if (!w.region.registered || !w.region.valid) {
                w.complete(CompletionStatus.LOCAL_PROTECTION_ERROR, 0);
                return fail(TerminateError.DDP_CATASTROPHIC, "the sink of RDMA Read wrId " + w.wrId
                        + " was deregistered or invalidated while the Read was outstanding", true);
            }
            target = w.region.placement(w.offset + w.received, payload);
            targetRegion = w.region;
        }
        readWr = w;
        return true;
    }

    /** The four Send opcodes (RFC 5040 §4.3) on QN 0, in MSN order, at the expected MO (RFC 5041 §5.3). */
    private boolean startSend() {
        int qn = Ddp.qn(cur, 0);
        int msn = Ddp.msn(cur, 0);
        int mo = Ddp.mo(cur, 0);
        if (qn != Ddp.QN_SEND) {
            return fail(TerminateError.DDP_INVALID_QN, Rdmap.name(opcode) + " on QN " + Integer.toUnsignedString(qn)
                    + " (RFC 5040 §5.1: Sends use QN 0)", true);
        }
        if (msn != expectedSendMsn) {
            return fail(TerminateError.DDP_INVALID_MSN, Rdmap.name(opcode) + " MSN " + Integer.toUnsignedString(msn)
                    + ", expected " + Integer.toUnsignedString(expectedSendMsn) + " (RFC 5041 §5.3)", true);
        }
        if (mo != sendMo) {
            return fail(TerminateError.DDP_INVALID_MO, Rdmap.name(opcode) + " MO " + Integer.toUnsignedString(mo)
                    + ", expected " + sendMo + " (RFC 5041 §5.3)", true);
        }
        if (recv == null) {
            recv = taken < rq.tail() ? rq.at(taken++) : null;
            if (recv == null) {
                return fail(TerminateError.DDP_NO_BUFFER, Rdmap.name(opcode) + " MSN "
                        + Integer.toUnsignedString(msn) + " found no posted receive (RFC 5041 §7.2)", true);
            }
        }
        if ((long) mo + payload > recv.length) {
            recv.complete(CompletionStatus.LOCAL_LENGTH_ERROR, 0);
            ep.completionsReady();
            return fail(TerminateError.DDP_MESSAGE_TOO_LONG, Rdmap.name(opcode) + " MSN "
                    + Integer.toUnsignedString(msn) + " of at least " + ((long) mo + payload)
                    + " bytes is longer than the posted receive of " + recv.length + " bytes", true);
        }
        if (!recv.region.registered || !recv.region.valid) {
            recv.complete(CompletionStatus.LOCAL_PROTECTION_ERROR, 0);
            ep.completionsReady();
            return fail(TerminateError.DDP_CATASTROPHIC, "the posted receive wrId " + recv.wrId
                    + " names a deregistered or invalidated region", true);
        }
        invalidateStag = Ddp.invalidateStag(cur, 0);
        if (payload > 0) {
            target = recv.region.placement(recv.offset + mo, payload);
            targetRegion = recv.region;
        }
        readAhead.sendSegment(mo, payload, last);
        return true;
    }

    /** RDMA Read Request (RFC 5040 §4.4): QN 1 in MSN order, one segment, no payload, within IRD. */
    private boolean startReadRequest() {
        int qn = Ddp.qn(cur, 0);
        int msn = Ddp.msn(cur, 0);
        if (qn != Ddp.QN_READ_REQUEST) {
            return fail(TerminateError.DDP_INVALID_QN, "RDMA Read Request on QN " + Integer.toUnsignedString(qn)
                    + " (RFC 5040 §5.1: QN 1)", true);
        }
        if (msn != expectedReadMsn) {
            return fail(TerminateError.DDP_INVALID_MSN, "RDMA Read Request MSN " + Integer.toUnsignedString(msn)
                    + ", expected " + Integer.toUnsignedString(expectedReadMsn) + " (RFC 5041 §5.3)", true);
        }
        if (Ddp.mo(cur, 0) != 0) {
            return fail(TerminateError.DDP_INVALID_MO, "RDMA Read Request MO "
                    + Integer.toUnsignedString(Ddp.mo(cur, 0)) + " (one segment, MO 0)", true);
        }
        if (payload != 0 || !last) {
            return fail(TerminateError.DDP_CATASTROPHIC, "RDMA Read Request with " + payload
                    + " bytes after its 28-byte body" + (last ? "" : " and L=0") + " (RFC 5040 §4.4)", true);
        }
        if (ird.isFull()) {
            return fail(TerminateError.RDMAP_CATASTROPHIC_STREAM, "RDMA Read Request MSN "
                    + Integer.toUnsignedString(msn) + " exceeds the negotiated IRD of " + ird.capacity()
                    + " (RFC 5040 §5.4)", true);
        }
        return true;
    }

    /** Terminate (RFC 5040 §4.8): read the control word and up to 64 bytes of copied headers, then end. */
    private boolean startTerminate() {
        terminate = true;
        if (payload > 0) {
            term.clear().limit(Math.min(payload, term.capacity()));
            target = term;
        }
        return true;
    }

    private void updateCrc() {
        if (crc == null || target == null || terminate) {
            return;
        }
        int position = target.position();
        if (position > crcMark) {
            Fpdu.update(crc, target, crcMark, position - crcMark);
            crcMark = position;
        }
    }

    /** All bytes of the FPDU are in: check the CRC, then complete what the segment completes. */
    private boolean finishFpdu() {
        inHeader = true;
        fpdusReceived++;
        if (terminate) {
            term.flip();
            termination.peerTerminated(cur, term, orq);
            return false;
        }
        if (crc != null) {
            Fpdu.update(crc, trailer, 0, pad);
            int got = Fpdu.crcField(trailer, pad);
            int want = (int) crc.getValue();
            if (got != want) {
                return fail(TerminateError.MPA_CRC, Rdmap.name(opcode) + " FPDU CRC 0x" + Integer.toHexString(got)
                        + ", computed 0x" + Integer.toHexString(want) + " (RFC 5044 §6.1)", false);
            }
        }
        switch (opcode) {
            case Rdmap.RDMA_WRITE:
                break;
            case Rdmap.READ_RESPONSE:
                readWr.received += payload;
                if (last) {
                    orq.pop();
                    if (!readWr.internal) {
                        readWr.complete(CompletionStatus.SUCCESS, readWr.length);
                        ep.completionsReady();
                    }
                    readWr = null;
                    ep.kickTransmit();
                }
                break;
            case Rdmap.READ_REQUEST:
                InboundRead r = ird.next();
                r.msn = expectedReadMsn;
                r.sinkStag = Rdmap.sinkStag(cur, 0);
                r.sinkTo = Rdmap.sinkTo(cur, 0);
                r.size = Rdmap.readSize(cur, 0);
                r.sourceStag = Rdmap.sourceStag(cur, 0);
                r.sourceTo = Rdmap.sourceTo(cur, 0);
                ird.add();
                expectedReadMsn++;
                ep.kickTransmit();
                break;
            default:
                sendMo += payload;
                if (last) {
                    RecvWr done = recv;
                    recv = null;
                    int bytes = sendMo;
                    sendMo = 0;
                    expectedSendMsn++;
                    if (Rdmap.invalidates(opcode) && !invalidation.remoteInvalidate(invalidateStag, done, bytes)) {
                        return fail(TerminateError.RDMAP_CANNOT_INVALIDATE, Rdmap.name(opcode)
                                + " names STag 0x" + Integer.toHexString(invalidateStag)
                                + ", which is not a registration of this stream (RFC 5040 §6.4.3)", true);
                    }
                    if (!done.done) {
                        done.complete(CompletionStatus.SUCCESS, bytes);
                    }
                    ep.completionsReady();
                }
        }
        if (!firstFpduSeen) {
            firstFpduSeen = true;
            ep.firstFpduReceived();
        }
        return true;
    }

    /**
     * Ends the connection with a Terminate for the segment whose header is in {@link #cur};
     * {@code copyHeader}: include its DDP header (M and D set; a Read Request also with its body and R,
     * as siw does for RDMAP protection errors).
     */
    private boolean fail(TerminateError error, String detail, boolean copyHeader) {
        int copied = 0;
        boolean readRequest = false;
        if (copyHeader) {
            boolean tagged = Ddp.isTagged(Be.u8(cur, Ddp.CONTROL));
            copied = (tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER) - Fpdu.LENGTH_SIZE;
        }
        termination.failReceive(error, detail, cur, copied, payload, readRequest);
        return false;
    }
}
