package smbdirect.impl.engine;

import java.util.ArrayList;
import java.util.List;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.SmbDirectException;

/**
 * Slices a peer's Buffer Descriptor V1 list for one RDMA Read or Write ([MS-SMBD] 3.1.4.5 /
 * 3.1.4.6, algorithm of ms-smbd.md 4.16): skip descriptors until {@code offset} falls inside one,
 * trim the first to start there, span as many as the local length needs and trim the last.
 *
 * <p>Stateless and thread-safe.
 */
final class DescriptorSlicer {

    /**
     * One remote segment of a transfer.
     *
     * @param remoteAddress the peer's address (descriptor Offset, advanced)
     * @param token the peer's token
     * @param length bytes in this segment
     * @param localOffset offset of this segment's bytes from the start of the local range
     */
    record Segment(long remoteAddress, int token, int length, long localOffset) {
    }

    /** Receives the segments of a transfer in order. */
    interface SegmentSink {
        void segment(long remoteAddress, int token, int length, long localOffset);
    }

    private DescriptorSlicer() {
    }

    /**
     * Slices {@code descriptors} for a transfer of {@code length} bytes starting {@code offset}
     * bytes into the peer's buffer, in descriptor order; a segment longer than
     * {@code maxSegment} is split (provider message-size limit).
     *
     * @throws SmbDirectException {@link SmbDirectException.Kind#TRANSFER_TOO_LARGE} when the
     *     descriptors do not cover {@code offset + length} bytes; {@code INVALID_ARGUMENT} for a
     *     negative offset, a non-positive length or an empty list
     */
    static List<Segment> slice(List<BufferDescriptor> descriptors, long offset, long length, int maxSegment)
            throws SmbDirectException {
        List<Segment> out = new ArrayList<>();
        slice(descriptors, offset, length, maxSegment, (a, t, l, o) -> out.add(new Segment(a, t, l, o)));
        return out;
    }

    /**
     * As {@link #slice(List, long, long, int)}, handing each segment to {@code sink}; allocates
     * nothing (for a random-access list).
     */
    static void slice(List<BufferDescriptor> descriptors, long offset, long length, int maxSegment,
            SegmentSink sink) throws SmbDirectException {
        if (descriptors == null || descriptors.isEmpty()) {
            throw new SmbDirectException(SmbDirectException.Kind.INVALID_ARGUMENT, "no buffer descriptors");
        }
        if (offset < 0 || length <= 0) {
            throw new SmbDirectException(SmbDirectException.Kind.INVALID_ARGUMENT,
                    "offset " + offset + " / length " + length + " unusable");
        }
        long extent = 0;
        for (int k = 0, n = descriptors.size(); k < n; k++) {
            extent += descriptors.get(k).lengthAsLong();
        }
        if (offset + length > extent) {
            throw new SmbDirectException(SmbDirectException.Kind.TRANSFER_TOO_LARGE,
                    "offset " + offset + " + length " + length + " exceeds the descriptors' extent " + extent
                            + " (R-3.1.4.5-02, R-3.1.4.6-02)");
        }
        // R-3.1.4.5-02 / R-3.1.4.6-02: consume Length values until offset falls inside a descriptor
        long skip = offset;
        int i = 0;
        while (skip >= descriptors.get(i).lengthAsLong()) {
            skip -= descriptors.get(i).lengthAsLong();
            i++;
        }
        long want = length;
        long local = 0;
        // R-3.1.4.5-04: trim the first; R-3.1.4.5-05: trim the last to the leading part
        long addr = descriptors.get(i).offset() + skip;
        long avail = descriptors.get(i).lengthAsLong() - skip;
        while (want > 0) {
            long take = Math.min(avail, want);
            BufferDescriptor d = descriptors.get(i);
            long done = 0;
            while (done < take) {
                int piece = (int) Math.min(take - done, maxSegment);
                sink.segment(addr + done, d.token(), piece, local + done);
                done += piece;
            }
            want -= take;
            local += take;
            if (want > 0) {
                i++;
                addr = descriptors.get(i).offset();
                avail = descriptors.get(i).lengthAsLong();
            }
        }
    }
}
