package smbdirect.rdma.iwarp.internal;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;

/**
 * Invalidation of one endpoint's registrations, and the check that a request's own region is still
 * usable (RFC 5040 §5.1, §6.4.3; iwarp.md §6.3). A local invalidate runs when it reaches the head of
 * the send queue, with or without the wire; a Send with Invalidate of the peer invalidates the
 * registration of this stream it names once the Send is placed, and is reported with the receive;
 * deregistration invalidates as well ({@link IwarpEndpoint#deregister}). A Send, RDMA Write or Read
 * whose local region was deregistered or invalidated meanwhile fails with LOCAL_PROTECTION_ERROR and
 * ends the connection with a local catastrophic Terminate.
 *
 * <p>I/O thread only; {@code valid} and {@code registered} of a region are volatile because
 * consumers deregister from any thread.
 */
final class Invalidation {

    private final IwarpEndpoint ep;
    private final RegionTable regions;

    Invalidation(IwarpEndpoint ep, RegionTable regions) {
        this.ep = ep;
        this.regions = regions;
    }

    /** Transmitter: a local invalidate reached the head of the send queue (iwarp.md §6.3). */
    void localInvalidate(SendWr w) {
        IwarpRegion r = w.region;
        if (!r.registered) {
            w.complete(CompletionStatus.LOCAL_PROTECTION_ERROR, 0);
            ep.completionsReady();
            ep.end(DisconnectCause.QP_ERROR, "local invalidate wrId " + w.wrId + " names a deregistered region "
                    + r, ep.termination.localCatastrophic(), null);
            return;
        }
        r.valid = false;
        w.complete(CompletionStatus.SUCCESS, 0);
        ep.completionsReady();
    }

    /** Transmitter: the local region of a Send, RDMA Write or Read is still usable; otherwise fails the request. */
    boolean checkLocal(SendWr w) {
        IwarpRegion r = w.region;
        if (r.registered && r.valid) {
            return true;
        }
        w.complete(CompletionStatus.LOCAL_PROTECTION_ERROR, 0);
        ep.completionsReady();
        ep.end(DisconnectCause.QP_ERROR, w.type + " wrId " + w.wrId + " names a deregistered or invalidated region "
                + r, ep.termination.localCatastrophic(), null);
        return false;
    }

    /**
     * Receiver: a Send with Invalidate was placed; invalidates our registration {@code stag} and
     * reports it with the receive (RFC 5040 §5.1, iwarp.md §6.3). An already invalid STag is no error;
     * one that names no registration of this stream is (siw: Terminate RDMAP / Remote Operation / 0x09).
     */
    boolean remoteInvalidate(int stag, RecvWr recv, int bytes) {
        IwarpRegion r = regions.lookup(IwarpRegion.index(stag));
        if (r == null || r.stag != stag) {
            recv.complete(CompletionStatus.REMOTE_INVALID_REQUEST, bytes);
            ep.completionsReady();
            return false;
        }
        r.valid = false;
        recv.invalidated = true;
        recv.invalidatedStag = stag;
        recv.complete(CompletionStatus.SUCCESS, bytes);
        return true;
    }
}
