package smbdirect.rdma.mock.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.WorkRequestType;

/**
 * The faults a test arms on one endpoint ({@link smbdirect.rdma.mock.MockEndpoint}'s fault API):
 * the next post of a type fails with a given status; the nth Send from now is corrupted, truncated
 * or lost on the wire; the connection breaks after n more Sends, or at once. {@link Execution}
 * consults them as each work request executes.
 *
 * <p>Locking: every field is guarded by the connection's lock ({@link MockQueuePair}). The arming
 * methods run on any thread and take it; the methods the data path calls (posting and execution)
 * are called with it held.
 */
final class FaultInjection {

    /** A fault armed for the Send numbered {@code sequence} (a mutation of its bytes, or its loss). */
    record SendFault(long sequence, UnaryOperator<byte[]> mutation, boolean drop) {
    }

    private final MockQueuePair ep;
    private final CompletionStatus[] failNext = new CompletionStatus[WorkRequestType.values().length];
    private boolean failNextArmed;
    private final List<SendFault> sendFaults = new ArrayList<>();
    /** Sends posted so far: Send faults name a Send by this number. */
    private long sendsPosted;
    private int breakAfterSends;

    FaultInjection(MockQueuePair ep) {
        this.ep = ep;
    }

    // ------------------------------------------------------------------ arming (any thread)

    void breakConnection(String detail) {
        MockQueuePair p;
        synchronized (ep.lock) {
            p = ep.peer;
            ep.teardown.breakBoth(DisconnectCause.QP_ERROR, DisconnectCause.QP_ERROR, "injected: " + detail);
        }
        ep.signalBoth(p);
    }

    void breakAfterSends(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        synchronized (ep.lock) {
            breakAfterSends = count;
        }
    }

    void failNextPost(WorkRequestType type, CompletionStatus status) {
        Objects.requireNonNull(type, "type");
        if (status == null || status == CompletionStatus.SUCCESS) {
            throw new IllegalArgumentException("an injected failure needs an error status, got " + status);
        }
        synchronized (ep.lock) {
            failNext[type.ordinal()] = status;
            failNextArmed = true;
        }
    }

    void corruptSend(int nth, UnaryOperator<byte[]> mutation) {
        Objects.requireNonNull(mutation, "mutation");
        armSendFault(nth, mutation, false);
    }

    void truncateSend(int nth, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length must not be negative: " + length);
        }
        armSendFault(nth, bytes -> Arrays.copyOf(bytes, Math.min(length, bytes.length)), false);
    }

    void dropSend(int nth) {
        armSendFault(nth, null, true);
    }

    private void armSendFault(int nth, UnaryOperator<byte[]> mutation, boolean drop) {
        if (nth < 1) {
            throw new IllegalArgumentException("nth must be at least 1 (1 = the next Send): " + nth);
        }
        synchronized (ep.lock) {
            sendFaults.add(new SendFault(sendsPosted + nth, mutation, drop));
        }
    }

    // ------------------------------------------------------------------ the data path (lock held)

    /** A Send is posted: its number. */
    long sendPosted() {
        return ++sendsPosted;
    }

    /** The failure armed for the next post of {@code type}, taken; else null. */
    CompletionStatus takeInjected(WorkRequestType type) {
        if (!failNextArmed) {
            return null;
        }
        CompletionStatus s = failNext[type.ordinal()];
        if (s != null) {
            failNext[type.ordinal()] = null;
            failNextArmed = false;
            for (CompletionStatus other : failNext) {
                failNextArmed |= other != null;
            }
        }
        return s;
    }

    boolean hasSendFaults() {
        return !sendFaults.isEmpty();
    }

    /** The fault armed for Send number {@code sequence}, taken; else null. */
    SendFault takeSendFault(long sequence) {
        for (Iterator<SendFault> it = sendFaults.iterator(); it.hasNext();) {
            SendFault f = it.next();
            if (f.sequence() == sequence) {
                it.remove();
                return f;
            }
        }
        return null;
    }

    /** A Send was transmitted: whether it was the last before an armed break. */
    boolean sendTransmitted() {
        return breakAfterSends > 0 && --breakAfterSends == 0;
    }
}
