package smbdirect.impl.engine;

import java.nio.ByteBuffer;

/**
 * Connection.FragmentReassemblyBuffer and FragmentReassemblyRemaining ([MS-SMBD] 3.1.5.8):
 * collects the fragments of one upper-layer message.
 *
 * <ul>
 * <li>A message that arrives in one fragment is not copied: the caller hands the receive buffer up
 * ({@link Outcome#SINGLE}).</li>
 * <li>Fragments of a longer message are copied once into one reusable buffer bounded by the
 * negotiated MaxFragmentedRecvSize (the caller has already checked DataLength +
 * RemainingDataLength against it, R-3.1.5.8-05), so receive buffers can be reposted at once
 * (peer-lessons 6).</li>
 * <li>Continuation fragments must satisfy DataLength + RemainingDataLength =
 * FragmentReassemblyRemaining; a final fragment while bytes are missing is R-3.1.5.8-18.
 * Zero-length fragments inside a sequence are accepted. Empty messages outside a sequence
 * are never delivered .</li>
 * </ul>
 *
 * <p>Not thread-safe: owned by the connection's serial context.
 */
final class Reassembler {

    /** What a fragment completed. */
    enum Outcome {
        /** Nothing to hand up yet (or an empty message). */
        NONE,
        /** A complete message in this one fragment: hand up the fragment's bytes. */
        SINGLE,
        /** A fragmented message is complete: hand up {@link Reassembler#message()}. */
        REASSEMBLED,
        /** The sequence is inconsistent: {@link Reassembler#violationRule()} says why. */
        VIOLATION
    }

    private final int maxFragmentedRecvSize;
    private ByteBuffer buffer;
    private ByteBuffer view;
    private int filled;
    /** FragmentReassemblyRemaining. */
    private long remaining;
    private boolean active;
    private String violationRule;
    private String violationDetail;

    Reassembler(int maxFragmentedRecvSize) {
        this.maxFragmentedRecvSize = maxFragmentedRecvSize;
    }

    /**
     * Takes one fragment: {@code dataLength} bytes at {@code dataStart} of {@code source}, followed
     * by {@code remainingDataLength} more in later fragments.
     */
    Outcome onFragment(ByteBuffer source, int dataStart, int dataLength, long remainingDataLength) {
        if (!active) {
            if (remainingDataLength == 0) {
                return dataLength == 0 ? Outcome.NONE : Outcome.SINGLE;
            }
            long total = dataLength + remainingDataLength;
            if (total > maxFragmentedRecvSize) {
                return violation("R-3.1.5.8-05", "DataLength " + dataLength + " + RemainingDataLength "
                        + remainingDataLength + " exceeds MaxFragmentedRecvSize " + maxFragmentedRecvSize);
            }
            ensureCapacity((int) total);
            buffer.clear();
            buffer.put(0, source, dataStart, dataLength);
            filled = dataLength;
            remaining = remainingDataLength;
            active = true;
            return Outcome.NONE;
        }
        if (dataLength + remainingDataLength != remaining) {
            if (remainingDataLength == 0) {
                return violation("R-3.1.5.8-18", "final fragment (RemainingDataLength 0) with DataLength "
                        + dataLength + " while FragmentReassemblyRemaining is " + remaining);
            }
            return violation("A-30", "DataLength " + dataLength + " + RemainingDataLength " + remainingDataLength
                    + " does not match FragmentReassemblyRemaining " + remaining);
        }
        buffer.put(filled, source, dataStart, dataLength);
        filled += dataLength;
        remaining = remainingDataLength;
        if (remaining == 0) {
            active = false;
            return Outcome.REASSEMBLED;
        }
        return Outcome.NONE;
    }

    /** The reassembled message: a read-only view valid until the next fragment. */
    ByteBuffer message() {
        view.clear();
        view.limit(filled);
        return view;
    }

    /** The reassembled length. */
    int messageLength() {
        return filled;
    }

    /** FragmentReassemblyRemaining. */
    long remaining() {
        return remaining;
    }

    /** Whether a fragmented message is being collected. */
    boolean inProgress() {
        return active;
    }

    String violationRule() {
        return violationRule;
    }

    String violationDetail() {
        return violationDetail;
    }

    private Outcome violation(String rule, String detail) {
        violationRule = rule;
        violationDetail = detail;
        active = false;
        return Outcome.VIOLATION;
    }

    private void ensureCapacity(int total) {
        if (buffer == null || buffer.capacity() < total) {
            int cap = buffer == null ? Math.max(total, 65536) : Math.max(total, buffer.capacity() * 2);
            cap = Math.min(Math.max(cap, total), maxFragmentedRecvSize);
            buffer = ByteBuffer.allocate(cap);
            view = buffer.asReadOnlyBuffer();
        }
    }
}
