package smbdirect.rdma.iwarp.internal;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.WorkRequestType;

/**
 * A pooled send-queue work request. The posting thread fills the request fields under the
 * endpoint's lock before publishing the slot ({@link WorkRequestRing#publish}); the progress and outcome
 * fields belong to the I/O thread from then on.
 */
final class SendWr implements WorkRequestRing.Slot {

    // request (posting thread, published by the queue's volatile tail)
    WorkRequestType type;
    /** RDMAP opcode on the wire: Send, Send with Invalidate, RDMA Write, Read Request; -1 for a local invalidate. */
    int opcode;
    IwarpRegion region;
    int offset;
    int length;
    long remoteAddress;
    int remoteToken;
    int invalidateToken;
    long wrId;

    /** The Read RTR of peer-to-peer setup: answered without a completion (RFC 6581 §5). */
    boolean internal;

    // I/O thread
    /** Payload bytes put into FPDUs so far. */
    int sent;
    /** Read Response bytes placed so far (RDMA Read). */
    int received;
    /** The Read Request's MSN (QN 1), to match the peer's Terminate. */
    int readMsn;
    boolean done;
    CompletionStatus status;
    int byteLength;

    @Override
    public void reset() {
        sent = 0;
        received = 0;
        readMsn = 0;
        done = false;
        status = null;
        byteLength = 0;
    }

    void complete(CompletionStatus s, int bytes) {
        done = true;
        status = s;
        byteLength = bytes;
    }
}
