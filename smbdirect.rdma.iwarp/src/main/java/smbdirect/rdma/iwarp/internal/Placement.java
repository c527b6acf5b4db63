package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.rdma.iwarp.internal.wire.Be;
import smbdirect.rdma.iwarp.internal.wire.Ddp;
import smbdirect.rdma.iwarp.internal.wire.Fpdu;
import smbdirect.rdma.iwarp.internal.wire.Rdmap;
import smbdirect.rdma.iwarp.internal.wire.TerminateError;

/**
 * DDP placement and RDMAP dispatch of the segments one {@link Receiver} frames (RFC 5040, RFC 5041):
 * checks each segment's header for its opcode, chooses where its payload goes, and once its FPDU
 * passed the CRC completes what the segment completes.
 *
 * <p>Per opcode, in Linux siw's order (iwarp.md §3.6, §4.4, §6.2): the four Sends on QN 0 in MSN
 * order at the expected MO, into the next posted receive, which must be long enough (RFC 5041
 * §5.3, §7.2); an RDMA Write's STag, key, validity, REMOTE_WRITE, TO wrap and bounds before a byte
 * of it is placed; a Read Response against the oldest outstanding Read Request (STag, TO, length;
 * RFC 5040 §4.5); a Read Request on QN 1 in MSN order, one segment, within IRD (RFC 5040 §4.4).
 * Any failure ends the connection with one Terminate that copies the segment's DDP header (M and D;
 * {@link Termination#failReceive}). A completed Send completes its receive (invalidating the
 * registration a Send with Invalidate names, {@link Invalidation#remoteInvalidate}); the last
 * segment of a Read Response completes our Read and frees its ORD slot; a Read Request joins the
 * inbound reads the {@link Transmitter} answers.
 *
 * <p>I/O thread only; allocation-free.
 */
final class Placement {

    private final IwarpEndpoint ep;
    private final Termination termination;
    private final Invalidation invalidation;
    private final WorkRequestRing<RecvWr> rq;
    private final RegionTable regions;
    private final InboundReads ird;
    private final OutboundReads orq;
    private final ReadAhead readAhead;
    /** The receiver's copy of the current segment's header (at 0). */
    private final ByteBuffer cur;

    // the current segment
    private int opcode;
    private int payload;
    private boolean last;
    private ByteBuffer target;
    /** The registration {@link #target} is a view of (Sends, RDMA Writes, Read Responses), else null. */
    private IwarpRegion targetRegion;
    private int invalidateStag;

    // the stream
    private int expectedSendMsn = 1;
    private int expectedReadMsn = 1;
    private RecvWr recv;
    /** Posted receives handed to incoming Sends so far. */
    private long taken;
    private int sendMo;
    private SendWr readWr;

    Placement(IwarpEndpoint ep, ByteBuffer cur, WorkRequestRing<RecvWr> rq, RegionTable regions, InboundReads ird,
            OutboundReads orq, ReadAhead readAhead) {
        this.ep = ep;
        this.termination = ep.termination;
        this.invalidation = ep.invalidation;
        this.cur = cur;
        this.rq = rq;
        this.regions = regions;
        this.ird = ird;
        this.orq = orq;
        this.readAhead = readAhead;
    }

    /**
     * A segment other than a Terminate, its header in {@code cur} (framing, versions and opcode
     * checked): checks it for its opcode and chooses its {@link #target()}; false when it failed (the
     * connection ends).
     */
    boolean start(int segmentOpcode, int segmentPayload, boolean segmentLast) {
        opcode = segmentOpcode;
        payload = segmentPayload;
        last = segmentLast;
        target = null;
        targetRegion = null;
        return switch (opcode) {
            case Rdmap.RDMA_WRITE -> startWrite();
            case Rdmap.READ_RESPONSE -> startReadResponse();
            case Rdmap.READ_REQUEST -> startReadRequest();
            default -> startSend();
        };
    }

    /** Where the current segment's payload goes (a view of a registration), or null when it has none. */
    ByteBuffer target() {
        return target;
    }

    /**
     * Whether the current segment's payload goes to {@code region} and may be read ahead there: a
     * Send's or a Read Response's.
     */
    boolean placesInto(IwarpRegion region) {
        return (Rdmap.isSend(opcode) || opcode == Rdmap.READ_RESPONSE) && targetRegion == region;
    }

    /**
     * While the current segment's payload is read: appends to {@code iov[0, k)} what {@link ReadAhead}
     * predicts to follow it (Sends after a Send; the rest of a Read Response). Returns the new length.
     */
    int readAhead(ByteBuffer[] iov, int k) {
        if (Rdmap.isSend(opcode)) {
            return readAhead.sends(iov, k, recv, sendMo + payload, last, taken);
        }
        if (opcode == Rdmap.READ_RESPONSE && !last && targetRegion != null) {
            return readAhead.readResponse(iov, k, readWr, targetRegion, payload); // targetRegion is readWr's
        }
        return k;
    }

    /** RDMA Write (RFC 5040 §4.3): STag, key, validity, REMOTE_WRITE, TO wrap, bounds (iwarp.md §6.2). */
    private boolean startWrite() {
        if (payload == 0) {
            return true; // a zero-length Write (a Write RTR) names no memory (iwarp.md §7)
        }
        int stag = Ddp.stag(cur, 0);
        long to = Ddp.taggedOffset(cur, 0);
        IwarpRegion r = regions.lookup(IwarpRegion.index(stag));
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
                + Long.toHexString(to) + ": " + why);
    }

    /** Read Response (RFC 5040 §4.5): must answer the oldest outstanding Read Request exactly. */
    private boolean startReadResponse() {
        SendWr w = orq.peek();
        int stag = Ddp.stag(cur, 0);
        long to = Ddp.taggedOffset(cur, 0);
        if (w == null) {
            return fail(TerminateError.DDP_CATASTROPHIC, "RDMA Read Response to STag 0x" + Integer.toHexString(stag)
                    + " without an outstanding RDMA Read Request (RFC 5040 §5.4)");
        }
        int sinkStag = w.internal ? 0 : w.region.stag;
        long sinkTo = (w.internal ? 0 : w.region.base + w.offset) + w.received;
        if (stag != sinkStag) {
            return fail(TerminateError.DDP_INVALID_STAG, "RDMA Read Response to STag 0x" + Integer.toHexString(stag)
                    + ", the outstanding Read Request (MSN " + w.readMsn + ") named 0x"
                    + Integer.toHexString(sinkStag));
        }
        if (to != sinkTo) {
            return fail(TerminateError.DDP_BASE_BOUNDS, "RDMA Read Response at TO 0x" + Long.toHexString(to)
                    + ", expected 0x" + Long.toHexString(sinkTo));
        }
        long total = (long) w.received + payload;
        if (total > w.length || last && total != w.length) {
            return fail(TerminateError.DDP_BASE_BOUNDS, "RDMA Read Response of " + total + " bytes"
                    + (last ? "" : " so far") + " for a Read Request of " + w.length + " bytes");
        }
        if (payload > 0) {
            if (!w.region.registered || !w.region.valid) {
                w.complete(CompletionStatus.LOCAL_PROTECTION_ERROR, 0);
                return fail(TerminateError.DDP_CATASTROPHIC, "the sink of RDMA Read wrId " + w.wrId
                        + " was deregistered or invalidated while the Read was outstanding");
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
                    + " (RFC 5040 §5.1: Sends use QN 0)");
        }
        if (msn != expectedSendMsn) {
            return fail(TerminateError.DDP_INVALID_MSN, Rdmap.name(opcode) + " MSN " + Integer.toUnsignedString(msn)
                    + ", expected " + Integer.toUnsignedString(expectedSendMsn) + " (RFC 5041 §5.3)");
        }
        if (mo != sendMo) {
            return fail(TerminateError.DDP_INVALID_MO, Rdmap.name(opcode) + " MO " + Integer.toUnsignedString(mo)
                    + ", expected " + sendMo + " (RFC 5041 §5.3)");
        }
        if (recv == null) {
            recv = taken < rq.tail() ? rq.at(taken++) : null;
            if (recv == null) {
                return fail(TerminateError.DDP_NO_BUFFER, Rdmap.name(opcode) + " MSN "
                        + Integer.toUnsignedString(msn) + " found no posted receive (RFC 5041 §7.2)");
            }
        }
        if ((long) mo + payload > recv.length) {
            recv.complete(CompletionStatus.LOCAL_LENGTH_ERROR, 0);
            ep.completionsReady();
            return fail(TerminateError.DDP_MESSAGE_TOO_LONG, Rdmap.name(opcode) + " MSN "
                    + Integer.toUnsignedString(msn) + " of at least " + ((long) mo + payload)
                    + " bytes is longer than the posted receive of " + recv.length + " bytes");
        }
        if (!recv.region.registered || !recv.region.valid) {
            recv.complete(CompletionStatus.LOCAL_PROTECTION_ERROR, 0);
            ep.completionsReady();
            return fail(TerminateError.DDP_CATASTROPHIC, "the posted receive wrId " + recv.wrId
                    + " names a deregistered or invalidated region");
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
                    + " (RFC 5040 §5.1: QN 1)");
        }
        if (msn != expectedReadMsn) {
            return fail(TerminateError.DDP_INVALID_MSN, "RDMA Read Request MSN " + Integer.toUnsignedString(msn)
                    + ", expected " + Integer.toUnsignedString(expectedReadMsn) + " (RFC 5041 §5.3)");
        }
        if (Ddp.mo(cur, 0) != 0) {
            return fail(TerminateError.DDP_INVALID_MO, "RDMA Read Request MO "
                    + Integer.toUnsignedString(Ddp.mo(cur, 0)) + " (one segment, MO 0)");
        }
        if (payload != 0 || !last) {
            return fail(TerminateError.DDP_CATASTROPHIC, "RDMA Read Request with " + payload
                    + " bytes after its 28-byte body" + (last ? "" : " and L=0") + " (RFC 5040 §4.4)");
        }
        if (ird.isFull()) {
            return fail(TerminateError.RDMAP_CATASTROPHIC_STREAM, "RDMA Read Request MSN "
                    + Integer.toUnsignedString(msn) + " exceeds the negotiated IRD of " + ird.capacity()
                    + " (RFC 5040 §5.4)");
        }
        return true;
    }

    /** The current segment's FPDU is in, its CRC good: completes what the segment completes; false when it failed. */
    boolean finish() {
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
                                + ", which is not a registration of this stream (RFC 5040 §6.4.3)");
                    }
                    if (!done.done) {
                        done.complete(CompletionStatus.SUCCESS, bytes);
                    }
                    ep.completionsReady();
                }
        }
        return true;
    }

    /**
     * Ends the connection with a Terminate for the current segment that copies its DDP header (M and D
     * set; RFC 5040 §4.8).
     */
    private boolean fail(TerminateError error, String detail) {
        boolean tagged = Ddp.isTagged(Be.u8(cur, Ddp.CONTROL));
        int copied = (tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER) - Fpdu.LENGTH_SIZE;
        termination.failReceive(error, detail, cur, copied, payload, false);
        return false;
    }
}
