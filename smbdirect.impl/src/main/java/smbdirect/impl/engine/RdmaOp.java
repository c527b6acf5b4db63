package smbdirect.impl.engine;

import smbdirect.api.RdmaCompletionHandler;

/**
 * One upper-layer RDMA Read or Write (3.1.4.5 / 3.1.4.6): the sliced remote segments, the local
 * range, and how many work requests are posted and outstanding. Owned by the connection's serial
 * context; reused for a later operation once it completed successfully with nothing outstanding
 * (an operation that failed is never reused: work requests of it may still complete).
 */
final class RdmaOp implements DescriptorSlicer.SegmentSink {

    boolean read;
    RegisteredBufferImpl local;
    int localOffset;
    RdmaCompletionHandler completion;
    long length;
    /** The segments, in order: remote address, token, length, offset from the start of the local range. */
    long[] segmentAddress = new long[4];
    int[] segmentToken = new int[4];
    int[] segmentLength = new int[4];
    long[] segmentLocalOffset = new long[4];
    int segmentCount;
    /** Next segment to post and the bytes of it already posted. */
    int segmentIndex;
    long segmentDone;
    int outstanding;
    long bytes;
    boolean done;
    /** A work request of it was flushed: it is on the connection's flushed list and must not be reused. */
    boolean flushed;

    /** Prepares this (new or reused) operation; the segments are added by the slicer afterwards. */
    RdmaOp init(boolean read, RegisteredBufferImpl local, int localOffset, long length, RdmaCompletionHandler completion) {
        this.read = read;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        this.completion = completion;
        segmentCount = 0;
        segmentIndex = 0;
        segmentDone = 0;
        outstanding = 0;
        bytes = 0;
        done = false;
        flushed = false;
        return this;
    }

    /** Drops the references of a finished operation before it is pooled. */
    void clear() {
        local = null;
        completion = null;
    }

    @Override
    public void segment(long remoteAddress, int token, int length, long localOffset) {
        int n = segmentCount;
        if (n == segmentAddress.length) {
            segmentAddress = java.util.Arrays.copyOf(segmentAddress, 2 * n);
            segmentToken = java.util.Arrays.copyOf(segmentToken, 2 * n);
            segmentLength = java.util.Arrays.copyOf(segmentLength, 2 * n);
            segmentLocalOffset = java.util.Arrays.copyOf(segmentLocalOffset, 2 * n);
        }
        segmentAddress[n] = remoteAddress;
        segmentToken[n] = token;
        segmentLength[n] = length;
        segmentLocalOffset[n] = localOffset;
        segmentCount = n + 1;
    }

    boolean allPosted() {
        return segmentIndex >= segmentCount;
    }
}
