package smbdirect.rdma.iwarp.internal;

import smbdirect.api.rdma.CompletionStatus;

/** A pooled posted receive: request fields by the posting thread, outcome by the I/O thread. */
final class RecvWr implements WorkRequestRing.Slot {

    IwarpRegion region;
    int offset;
    int length;
    long wrId;

    boolean done;
    CompletionStatus status;
    int byteLength;
    boolean invalidated;
    int invalidatedStag;

    @Override
    public void reset() {
        done = false;
        status = null;
        byteLength = 0;
        invalidated = false;
        invalidatedStag = 0;
    }

    void complete(CompletionStatus s, int bytes) {
        done = true;
        status = s;
        byteLength = bytes;
    }
}
