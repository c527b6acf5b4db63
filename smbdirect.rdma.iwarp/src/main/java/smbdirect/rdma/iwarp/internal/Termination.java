package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.rdma.iwarp.internal.wire.Be;
import smbdirect.rdma.iwarp.internal.wire.Ddp;
import smbdirect.rdma.iwarp.internal.wire.Rdmap;
import smbdirect.rdma.iwarp.internal.wire.Terminate;
import smbdirect.rdma.iwarp.internal.wire.TerminateError;

/**
 * The Terminates of one endpoint (RFC 5040 §4.8, iwarp.md §5.7). Every protocol or protection error
 * this side finds ends the connection with exactly one Terminate (QN 2, MSN 1, MO 0): it copies the
 * offending DDP header (M, D) or the whole Read Request (M, D, R) where siw does, carries the
 * connection's CRC, and goes out after the rest of a partly written FPDU ({@link IwarpEndpoint#end}).
 * Before RDMA mode the initiator sends siw's raw Terminates of MPA setup, without CRC. A Terminate of
 * the peer is surfaced in the disconnect detail (layer, type, code, and what it names), never
 * answered; a Read of ours it names completes with REMOTE_ACCESS_ERROR.
 *
 * <p>Error path only, so it allocates (each Terminate is a fresh direct buffer). I/O thread only.
 */
final class Termination {

    private final IwarpEndpoint ep;
    private final IwarpDevice provider;
    /** The connection's CRC setting; false until RDMA mode. */
    private boolean crcOn;

    Termination(IwarpEndpoint ep) {
        this.ep = ep;
        this.provider = ep.provider;
    }

    /** RDMA mode starts with {@code crc} negotiated. */
    void rdmaMode(boolean crc) {
        crcOn = crc;
    }

    /** Builds a Terminate FPDU (RFC 5040 §4.8) with the connection's CRC setting. */
    ByteBuffer frame(TerminateError error, ByteBuffer header, int copiedLength, int segmentLength,
            boolean readRequest) {
        ByteBuffer b = ByteBuffer.allocateDirect(128);
        int size = Terminate.encode(b, 0, error, header, Ddp.CONTROL, copiedLength, segmentLength, readRequest,
                crcOn ? new CRC32C() : null);
        b.limit(size);
        provider.terminateSent();
        return b;
    }

    /** A Terminate on the raw socket during connection setup (siw sends it before RDMA mode, without CRC). */
    ByteBuffer beforeRdmaMode(TerminateError error) {
        return frame(error, null, 0, 0, false);
    }

    /** A local catastrophic error (RDMAP / Local Catastrophic) that names no segment. */
    ByteBuffer localCatastrophic() {
        return frame(TerminateError.LOCAL_CATASTROPHIC, null, 0, 0, false);
    }

    /** Receiver: ends the connection with a Terminate for the segment whose header starts at 0 of {@code header}. */
    void failReceive(TerminateError error, String detail, ByteBuffer header, int copiedLength, int segmentLength,
            boolean readRequest) {
        ep.end(DisconnectCause.QP_ERROR, "sent Terminate " + error + ": " + detail,
                frame(error, header, copiedLength, segmentLength, readRequest), null);
    }

    /** Transmitter: the source of the peer's Read Request failed its checks (RDMAP Remote Protection; M, D, R). */
    void failReadRequest(InboundRead r, TerminateError error, String detail) {
        ByteBuffer request = ByteBuffer.allocate(Rdmap.READ_REQUEST_HEADER);
        Ddp.putUntagged(request, 0, Rdmap.READ_REQUEST_HEADER - 2, true, Rdmap.READ_REQUEST, 0, Ddp.QN_READ_REQUEST,
                r.msn, 0);
        Rdmap.putReadRequest(request, 0, r.sinkStag, r.sinkTo, (int) r.size, r.sourceStag, r.sourceTo);
        ep.end(DisconnectCause.QP_ERROR, "sent Terminate " + error + ": " + detail,
                frame(error, request, Rdmap.READ_REQUEST_HEADER - 2, 0, true), null);
    }

    /**
     * Receiver: the peer sent a Terminate ({@code header} holds its untagged header and control
     * word, {@code copied} the copied headers read). Surfaced in the disconnect detail, never answered
     * (iwarp.md §5.7). A Read of {@code orq} it names (or, without a copy, the oldest outstanding Read
     * when the error is an RDMAP protection error) completes with REMOTE_ACCESS_ERROR.
     */
    void peerTerminated(ByteBuffer header, ByteBuffer copied, OutboundReads orq) {
        provider.terminateReceived();
        Terminate.Control control = Terminate.decodeControl(Be.i32(header, Terminate.CONTROL));
        StringBuilder detail = new StringBuilder("the peer sent Terminate ").append(control);
        int qn = Ddp.qn(header, 0);
        int msn = Ddp.msn(header, 0);
        if (qn != Ddp.QN_TERMINATE || msn != 1 || Ddp.mo(header, 0) != 0) {
            detail.append(" [QN ").append(Integer.toUnsignedString(qn)).append(", MSN ")
                    .append(Integer.toUnsignedString(msn)).append(": siw calls this a bogus Terminate]");
        }
        int copiedStart = 2;
        SendWr failed = null;
        if (control.hasFlag(Terminate.FLAG_D) && copied.remaining() >= copiedStart + 2) {
            int ctrl = Be.u8(copied, copiedStart);
            int op = Rdmap.opcode(Be.u8(copied, copiedStart + 1));
            detail.append("; it names our ").append(Rdmap.name(op));
            if (!Ddp.isTagged(ctrl) && copied.remaining() >= copiedStart + Ddp.UNTAGGED_HEADER_ULPDU) {
                int copiedMsn = Be.i32(copied, copiedStart + Ddp.MSN - 2);
                detail.append(" MSN ").append(Integer.toUnsignedString(copiedMsn));
                if (op == Rdmap.READ_REQUEST) {
                    for (int i = 0; i < orq.size(); i++) {
                        if (orq.get(i).readMsn == copiedMsn) {
                            failed = orq.get(i);
                        }
                    }
                }
            } else if (Ddp.isTagged(ctrl) && copied.remaining() >= copiedStart + Ddp.TAGGED_HEADER_ULPDU) {
                detail.append(" to STag 0x").append(Integer.toHexString(Be.i32(copied, copiedStart + Ddp.STAG - 2)))
                        .append(" TO 0x").append(Long.toHexString(Be.i64(copied, copiedStart + Ddp.TO - 2)));
            }
        }
        TerminateError e = control.error();
        if (failed == null && orq.size() > 0 && e.layer() == TerminateError.LAYER_RDMAP
                && e.errorType() == TerminateError.RDMAP_REMOTE_PROTECTION) {
            failed = orq.peek();
        }
        if (failed != null && !failed.internal) {
            failed.complete(CompletionStatus.REMOTE_ACCESS_ERROR, 0);
            ep.completionsReady();
        }
        ep.end(DisconnectCause.QP_ERROR, detail.toString(), null, null);
    }
}
