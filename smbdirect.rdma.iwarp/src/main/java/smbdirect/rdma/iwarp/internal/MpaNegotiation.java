package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;
import smbdirect.rdma.iwarp.internal.wire.MpaFrame;
import smbdirect.rdma.iwarp.internal.wire.MpaV2Control;
import smbdirect.rdma.iwarp.internal.wire.TerminateError;

/**
 * The decisions of MPA connection setup, without I/O (RFC 5044 §7.1, RFC 6581 §5; as Linux siw
 * makes them, iwarp.md §2.3, §2.4, §7): what the responder answers a Request with, and what the
 * initiator makes of the Reply. Stateless.
 */
final class MpaNegotiation {

    private MpaNegotiation() {
    }

    /** What the initiator made of a Reply. */
    sealed interface Result permits Agreed, Refused {
    }

    /**
     * RDMA mode may start.
     *
     * @param enhanced the Reply carried the RFC 6581 word
     * @param ulpPrivateData the Reply's private data after the word (read-only)
     */
    record Agreed(boolean crc, int ird, int ord, RtrMode rtr, boolean enhanced, ByteBuffer ulpPrivateData)
            implements Result {
    }

    /**
     * The connect fails.
     *
     * @param terminate the Terminate to send on the raw socket (siw sends one for these), or null
     * @param rejectData the private data of a reject, or null
     */
    record Refused(DisconnectCause cause, String detail, TerminateError terminate, ByteBuffer rejectData)
            implements Result {
    }

    /**
     * Initiator: the complete Reply at 0 of {@code reply}, to a Request with {@code requestIrd},
     * {@code requestOrd} and the RTR flags offered.
     */
    static Result reply(ByteBuffer reply, IwarpSettings settings, int requestIrd, int requestOrd, int offeredIrdFlags,
            int offeredOrdFlags) {
        int flags = MpaFrame.flags(reply, 0);
        int revision = MpaFrame.revision(reply, 0);
        int pd = MpaFrame.pdLength(reply, 0);
        boolean enhanced = settings.mpaRevision() == 2 && revision == 2 && (flags & MpaFrame.FLAG_ENHANCED) != 0;
        if (revision > settings.mpaRevision()) {
            return new Refused(DisconnectCause.CONNECT_ERROR, "MPA Reply revision " + revision
                    + " is above our Request's " + settings.mpaRevision() + " (RFC 5044 §7.1)", null, null);
        }
        if (enhanced && pd < MpaV2Control.SIZE) {
            return new Refused(DisconnectCause.CONNECT_ERROR, "MPA Reply with the enhanced flag carries " + pd
                    + " bytes of private data, no RFC 6581 IRD/ORD word", null, null);
        }
        int ulpStart = MpaFrame.HEADER_SIZE + (enhanced ? MpaV2Control.SIZE : 0);
        ByteBuffer ulp = MpaSetup.readOnlyCopy(reply, ulpStart, MpaFrame.HEADER_SIZE + pd - ulpStart);
        if ((flags & MpaFrame.FLAG_REJECT) != 0) {
            return new Refused(DisconnectCause.REJECTED, "the peer rejected the connection (MPA Reply with R=1, "
                    + ulp.remaining() + " bytes of private data)", null, ulp);
        }
        if ((flags & MpaFrame.FLAG_MARKERS) != 0) {
            return new Refused(DisconnectCause.CONNECT_ERROR, "the peer asks for MPA markers (RFC 5044 §5), which"
                    + " this provider does not insert (neither does Linux siw)", null, null);
        }
        boolean crc = settings.crc() || (flags & MpaFrame.FLAG_CRC) != 0; // either side asks: CRC
        int ird = requestIrd;
        int ord = requestOrd;
        RtrMode rtr = RtrMode.NONE;
        if (enhanced) {
            int word = MpaFrame.HEADER_SIZE;
            int repIrd = MpaV2Control.ird(reply, word);
            int repOrd = MpaV2Control.ord(reply, word);
            ord = Math.min(requestOrd, repIrd);
            if (repOrd > ird) {
                if (repOrd > settings.maxReadDepth()) {
                    return new Refused(DisconnectCause.CONNECT_ERROR, "the peer's ORD " + repOrd
                            + " exceeds our largest IRD " + settings.maxReadDepth() + "; sent Terminate "
                            + TerminateError.MPA_INSUFFICIENT_IRD, TerminateError.MPA_INSUFFICIENT_IRD, null);
                }
                ird = repOrd; // relaxed IRD negotiation, as siw
            }
            if (offeredIrdFlags != 0) {
                int chosen = MpaV2Control.ordFlags(reply, word) & offeredOrdFlags;
                if ((MpaV2Control.irdFlags(reply, word) & MpaV2Control.PEER_TO_PEER) == 0 || chosen == 0) {
                    return new Refused(DisconnectCause.CONNECT_ERROR, "the MPA Reply picks none of the RTR frames we"
                            + " offered (RFC 6581 §5); sent Terminate " + TerminateError.MPA_NO_MATCHING_RTR,
                            TerminateError.MPA_NO_MATCHING_RTR, null);
                }
                rtr = (chosen & MpaV2Control.WRITE_RTR) != 0 ? RtrMode.WRITE : RtrMode.READ;
            }
        }
        return new Agreed(crc, ird, ord, rtr, enhanced, ulp);
    }

    /**
     * What the responder's Reply says.
     *
     * @param ird the responder's IRD (in the word when enhanced)
     * @param ord the responder's ORD
     * @param irdFlags A when the initiator asked for peer-to-peer
     * @param ordFlags the RTR type chosen (C or D)
     */
    record Answer(boolean crc, int revision, boolean enhanced, int ird, int ord, int irdFlags, int ordFlags) {
    }

    /**
     * Responder: the Reply to {@code request}, our own limits being {@code ird} and {@code ord}.
     * IRD is bounded by the initiator's ORD and ORD by its IRD; a peer-to-peer Request gets A and
     * exactly one RTR type: C if offered, else D if offered, else C, never B (as siw picks). The
     * Reply echoes the Request's revision; CRC is on when either side asks.
     */
    static Answer answer(PassiveSetup request, IwarpSettings settings, int ird, int ord) {
        int irdFlags = 0;
        int ordFlags = 0;
        if (request.enhanced()) {
            ird = Math.min(ird, request.peerOutboundReadDepth());
            ord = Math.min(ord, request.peerInboundReadDepth());
            if ((request.peerIrdFlags() & MpaV2Control.PEER_TO_PEER) != 0) {
                irdFlags = MpaV2Control.PEER_TO_PEER;
                int offered = request.peerOrdFlags();
                ordFlags = (offered & MpaV2Control.WRITE_RTR) != 0 ? MpaV2Control.WRITE_RTR
                        : (offered & MpaV2Control.READ_RTR) != 0 ? MpaV2Control.READ_RTR : MpaV2Control.WRITE_RTR;
                if (ordFlags == MpaV2Control.READ_RTR) {
                    ird = Math.max(ird, 1); // the Read RTR needs an IRD slot
                }
            }
        }
        return new Answer(request.crcRequested() || settings.crc(), request.revision(), request.enhanced(), ird, ord,
                irdFlags, ordFlags);
    }
}
