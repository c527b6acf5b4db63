package smbdirect.impl.engine;

import java.util.List;

import smbdirect.api.RdmaCompletion;

/**
 * One upper-layer RDMA Read or Write (3.1.4.5 / 3.1.4.6): the sliced remote segments, the local
 * range, and how many work requests are posted and outstanding. Owned by the connection's serial
 * context.
 */
final class RdmaOp {

    final boolean read;
    final RegisteredBufferImpl local;
    final int localOffset;
    final List<DescriptorSlicer.Segment> segments;
    final RdmaCompletion completion;
    final long length;
    /** Next segment to post and the bytes of it already posted. */
    int segmentIndex;
    long segmentDone;
    int outstanding;
    long bytes;
    boolean done;

    RdmaOp(boolean read, RegisteredBufferImpl local, int localOffset, long length,
            List<DescriptorSlicer.Segment> segments, RdmaCompletion completion) {
        this.read = read;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        this.segments = segments;
        this.completion = completion;
    }

    boolean allPosted() {
        return segmentIndex >= segments.size();
    }
}
