package smbdirect.rdma.mock.internal;

import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.WorkRequestType;

/**
 * The execution of one endpoint's send-queue work requests: what happens on the wire and at the
 * peer when a Send, RDMA Write, RDMA Read or local invalidate executes, with an RNIC's checks and
 * punishments (see {@link smbdirect.rdma.mock}): the local region first, then the peer's posted
 * receive or region; a failure completes the work request with its error status and breaks the
 * connection ({@link MockTeardown#breakBoth}). The faults armed in {@link FaultInjection} are
 * taken here. Work requests execute inside {@code post} (INLINE, THREADED) or when the fabric is
 * stepped (DETERMINISTIC).
 *
 * <p>Locking: every method runs with the connection's lock held ({@link MockQueuePair}), so the
 * sender's and the receiver's state change together; completions are queued, never delivered,
 * here.
 */
final class Execution {
    private static final Logger LOG = LoggerFactory.getLogger(Execution.class);
    static final int OK = 0;
    private static final int BAD_LENGTH = 1;
    private static final int FOREIGN = 2;
    private static final int DEREGISTERED = 3;
    private static final int INVALIDATED = 4;
    private static final int OUT_OF_BOUNDS = 5;
    private static final int NO_LOCAL_WRITE = 6;

    private final MockQueuePair ep;

    Execution(MockQueuePair ep) {
        this.ep = ep;
    }

    /** Executes {@code wr}, a send-queue work request of this endpoint (lock held). */
    void execute(Wr wr) {
        WorkRequestType type = wr.type;
        CompletionStatus injected = ep.faults.takeInjected(type);
        if (injected != null) {
            fail(wr, injected, "injected failure of " + type + " wrId " + wr.wrId);
            return;
        }
        if (type == WorkRequestType.LOCAL_INVALIDATE) {
            MockRegion r = wr.region;
            if (r.owner != ep || !r.registered) {
                fail(wr, CompletionStatus.LOCAL_PROTECTION_ERROR, "local invalidate of " + r
                        + (r.owner != ep ? ": region of another endpoint" : ": region deregistered"));
                return;
            }
            r.valid = false;
            ep.complete(wr, CompletionStatus.SUCCESS, 0, false, 0);
            return;
        }
        int problem = localProblem(ep, wr.region, wr.offset, wr.length, type == WorkRequestType.RDMA_READ);
        if (problem != OK) {
            fail(wr, localStatus(problem), type + " " + describeLocal(problem, wr.region, wr.offset, wr.length));
            return;
        }
        if (wr.length > ep.caps.maxMessageSize()) {
            fail(wr, CompletionStatus.LOCAL_LENGTH_ERROR, type + " of " + wr.length
                    + " bytes exceeds maxMessageSize " + ep.caps.maxMessageSize());
            return;
        }
        if (ep.peerLost) {
            ep.complete(wr, CompletionStatus.TRANSPORT_RETRY_EXCEEDED, 0, false, 0);
            MockTeardown.breakSide(ep, DisconnectCause.PEER_LOST,
                    "transport retries exceeded: the peer does not answer", MockQueuePair.NO_BYTES);
            return;
        }
        if (type == WorkRequestType.SEND) {
            send(wr);
        } else {
            rdma(wr);
        }
    }

    /** A Send: consumes the peer's next posted receive (RNR retry count 0). */
    private void send(Wr wr) {
        MockQueuePair p = ep.peer;
        byte[] mutated = null;
        if (ep.faults.hasSendFaults()) {
            FaultInjection.SendFault fault = ep.faults.takeSendFault(wr.sequence);
            if (fault != null && fault.drop()) {
                LOG.debug("Endpoint {} drops Send #{} ({} bytes) by injection", ep.id, wr.sequence, wr.length);
                ep.sendsTransmitted++;
                String detail = "Send #" + wr.sequence + " was lost (injected): transport retries exceeded";
                ep.complete(wr, CompletionStatus.TRANSPORT_RETRY_EXCEEDED, 0, false, 0);
                p.peerLost = true;
                MockTeardown.breakSide(ep, DisconnectCause.PEER_LOST, detail, MockQueuePair.NO_BYTES);
                return;
            }
            if (fault != null) {
                byte[] original = new byte[wr.length];
                wr.region.mem.get(wr.offset, original);
                mutated = Objects.requireNonNull(fault.mutation().apply(original), "mutation result");
            }
        }
        int length = mutated != null ? mutated.length : wr.length;
        Wr rwr = p.recvQueue.poll();
        if (rwr == null) {
            String detail = "receiver not ready: a Send of " + length
                    + " bytes found no receive posted at the receiving side (RNR retry count 0)";
            ep.complete(wr, CompletionStatus.RECEIVER_NOT_READY, 0, false, 0);
            ep.teardown.breakBoth(DisconnectCause.QP_ERROR, DisconnectCause.QP_ERROR, detail);
            return;
        }
        int problem = localProblem(p, rwr.region, rwr.offset, rwr.length, true);
        if (problem != OK) {
            String detail = "the receiving side's receive "
                    + describeLocal(problem, rwr.region, rwr.offset, rwr.length);
            p.complete(rwr, localStatus(problem), 0, false, 0);
            ep.complete(wr, CompletionStatus.REMOTE_INVALID_REQUEST, 0, false, 0);
            ep.teardown.breakBoth(DisconnectCause.QP_ERROR, DisconnectCause.QP_ERROR, detail);
            return;
        }
        if (length > rwr.length) {
            String detail = "a Send of " + length + " bytes is longer than the receive of " + rwr.length
                    + " bytes posted at the receiving side";
            p.complete(rwr, CompletionStatus.LOCAL_LENGTH_ERROR, 0, false, 0);
            ep.complete(wr, CompletionStatus.REMOTE_INVALID_REQUEST, 0, false, 0);
            ep.teardown.breakBoth(DisconnectCause.QP_ERROR, DisconnectCause.QP_ERROR, detail);
            return;
        }
        boolean invalidated = false;
        if (wr.withInvalidate) {
            MockRegion target = p.regions.get(wr.remoteToken);
            if (target == null || !target.valid) {
                String detail = "Send with Invalidate names token 0x" + Integer.toHexString(wr.remoteToken)
                        + (target == null ? ", no region" : ", an invalid region") + " of the receiving side";
                p.complete(rwr, CompletionStatus.LOCAL_PROTECTION_ERROR, 0, false, 0);
                ep.complete(wr, CompletionStatus.REMOTE_INVALID_REQUEST, 0, false, 0);
                ep.teardown.breakBoth(DisconnectCause.QP_ERROR, DisconnectCause.QP_ERROR, detail);
                return;
            }
            target.valid = false;
            invalidated = true;
        }
        if (mutated != null) {
            rwr.region.mem.put(rwr.offset, mutated);
        } else if (length > 0) {
            rwr.region.mem.put(rwr.offset, wr.region.mem, wr.offset, length);
        }
        ep.sendsTransmitted++;
        p.complete(rwr, CompletionStatus.SUCCESS, length, invalidated, invalidated ? wr.remoteToken : 0);
        ep.complete(wr, CompletionStatus.SUCCESS, 0, false, 0);
        if (ep.faults.sendTransmitted()) {
            ep.teardown.breakBoth(DisconnectCause.QP_ERROR, DisconnectCause.QP_ERROR,
                    "connection broken after Send #" + ep.sendsTransmitted + " (injected)");
        }
    }

    /** An RDMA Read or Write: checked against a live region of the peer, then the bytes move. */
    private void rdma(Wr wr) {
        MockQueuePair p = ep.peer;
        boolean read = wr.type == WorkRequestType.RDMA_READ;
        MockRegion target = p.regions.get(wr.remoteToken);
        String violation = null;
        long relative = 0;
        if (target == null) {
            violation = "the target side has no region with that token";
        } else if (!target.valid) {
            violation = "the target side's region with that token was invalidated";
        } else if (read ? !target.remoteRead : !target.remoteWrite) {
            violation = "the target side's region is registered " + target.access() + ", without "
                    + (read ? "REMOTE_READ" : "REMOTE_WRITE");
        } else {
            relative = wr.remoteAddress - target.address;
            if (relative < 0 || relative + wr.length > target.length) {
                violation = "the range lies outside the target side's region 0x" + Long.toHexString(target.address)
                        + "+" + target.length;
            }
        }
        if (violation != null) {
            String detail = "remote access error: " + wr.type + " of " + wr.length + " bytes at 0x"
                    + Long.toHexString(wr.remoteAddress) + " with token 0x" + Integer.toHexString(wr.remoteToken)
                    + ": " + violation;
            ep.complete(wr, CompletionStatus.REMOTE_ACCESS_ERROR, 0, false, 0);
            ep.teardown.breakBoth(DisconnectCause.QP_ERROR, DisconnectCause.QP_ERROR, detail);
            return;
        }
        if (wr.length > 0) {
            if (read) {
                wr.region.mem.put(wr.offset, target.mem, (int) relative, wr.length);
            } else {
                target.mem.put((int) relative, wr.region.mem, wr.offset, wr.length);
            }
        }
        ep.complete(wr, CompletionStatus.SUCCESS, wr.length, false, 0);
    }

    /** What is wrong with {@code [offset, offset + length)} of {@code r} for a work request of {@code owner}, or OK. */
    static int localProblem(MockQueuePair owner, MockRegion r, int offset, int length, boolean write) {
        if (offset < 0 || length < 0) {
            return BAD_LENGTH;
        }
        if (r.owner != owner) {
            return FOREIGN;
        }
        if (!r.registered) {
            return DEREGISTERED;
        }
        if (!r.valid) {
            return INVALIDATED;
        }
        if ((long) offset + length > r.length) {
            return OUT_OF_BOUNDS;
        }
        if (write && !r.localWrite) {
            return NO_LOCAL_WRITE;
        }
        return OK;
    }

    static CompletionStatus localStatus(int problem) {
        return problem == BAD_LENGTH ? CompletionStatus.LOCAL_LENGTH_ERROR : CompletionStatus.LOCAL_PROTECTION_ERROR;
    }

    static String describeLocal(int problem, MockRegion r, int offset, int length) {
        String where = "at offset " + offset + " length " + length + " of " + r;
        return switch (problem) {
            case BAD_LENGTH -> "with a negative offset or length " + where;
            case FOREIGN -> "names a region of another endpoint: " + r;
            case DEREGISTERED -> "names a deregistered region (local key 0x" + Integer.toHexString(r.localKey) + ")";
            case INVALIDATED -> "names an invalidated region (local key 0x" + Integer.toHexString(r.localKey) + ")";
            case OUT_OF_BOUNDS -> "exceeds its region: " + where;
            default -> "needs LOCAL_WRITE: " + where;
        };
    }

    /** {@code wr} of this endpoint fails with {@code status}; the connection breaks. */
    void fail(Wr wr, CompletionStatus status, String detail) {
        ep.complete(wr, status, 0, false, 0);
        ep.teardown.breakBoth(DisconnectCause.QP_ERROR, DisconnectCause.QP_ERROR, detail);
    }
}
