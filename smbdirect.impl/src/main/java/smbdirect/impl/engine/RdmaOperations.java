package smbdirect.impl.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.RdmaCompletionHandler;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.SmbDirectException;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;

/**
 * RDMA Write to and RDMA Read from the peer's buffers ([MS-SMBD] 3.1.4.5, 3.1.4.6) for one
 * connection: the upper layer's operations are sliced along the peer's Buffer Descriptor V1 list
 * ({@link DescriptorSlicer}), posted piece by piece within the outbound read depth (ORD) for reads
 * and a send-queue budget for writes, and completed once every piece completed.
 *
 * <p>Owns the operations waiting to be posted, the table of posted work requests (the work id is
 * the slot), the pools of finished operations and of entries for requests that find the serial
 * context busy, the reads and writes in flight, the operations flushed by a failing queue pair and
 * the RDMA counters. Allocation-free in steady state: operations, their segments and the
 * work-request slots are reused.
 *
 * <p>Not thread-safe except {@link #write} and {@link #read}, which hand over to the serial context.
 */
final class RdmaOperations {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaOperations.class);

    /** RDMA Writes posted at once (their work requests share the send queue). */
    static final int WRITE_BUDGET = 16;
    /** Entries kept for RDMA requests queued while the connection is busy (in use until started). */
    private static final int SHARED_POOL = 16;
    private static final VarHandle SHARED;

    static {
        try {
            SHARED = MethodHandles.lookup().findVarHandle(RdmaOperations.class, "shared", SharedPool.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Connection connection;
    private final SerialExecutor serial;
    private final MemoryRegistrations registrations;
    private final ConnectionLoss loss;
    private final ArrayDeque<RdmaOp> pending = new ArrayDeque<>();
    /** Operations that completed successfully, for reuse (serial context only). */
    private final ArrayDeque<RdmaOp> opPool = new ArrayDeque<>();
    /** Requests issued by threads that found the serial context busy (any thread; created on first use). */
    private volatile SharedPool<PendingRdma> shared;
    /** Operations with a work request flushed before the disconnect report: failed with the final reason. */
    private final List<RdmaOp> flushed = new ArrayList<>();
    /** Requests handed over while the close reason was provisional: they fail at the finish (serial context). */
    private final List<RdmaCompletionHandler> waiting = new ArrayList<>();
    /**
     * Posted work requests by slot (the work id): the operation and the bytes of the request; free
     * slots on a stack. Grows by doubling (bounded by ORD plus the write budget).
     */
    private RdmaOp[] slotOp = new RdmaOp[4];
    private int[] slotLength = new int[4];
    /** The peer's address and token each posted request names (for the message of a failure). */
    private long[] slotRemoteAddress = new long[4];
    private int[] slotRemoteToken = new int[4];
    private int[] freeSlots = {3, 2, 1, 0};
    private int freeCount = 4;
    /** Connection.MaxReadWriteSize and the outbound RDMA Read depth (ORD) as negotiated. */
    private int maxReadWriteSize;
    private int outboundReadDepth;
    private int readsInFlight;
    private int writesInFlight;
    private long reads;
    private long writes;
    private long bytes;

    RdmaOperations(Connection connection, SerialExecutor serial, MemoryRegistrations registrations,
            ConnectionLoss loss) {
        this.connection = connection;
        this.serial = serial;
        this.registrations = registrations;
        this.loss = loss;
    }

    /** Negotiation completed: the limits transfers are made by. */
    void open(int negotiatedMaxReadWriteSize, int negotiatedOutboundReadDepth) {
        this.maxReadWriteSize = negotiatedMaxReadWriteSize;
        this.outboundReadDepth = negotiatedOutboundReadDepth;
    }

    /** The upper layer's RDMA Write (3.1.4.5), from any thread. */
    void write(RegisteredBuffer source, int sourceOffset, int length, List<BufferDescriptor> remote,
            long remoteOffset, RdmaCompletionHandler completion) {
        submit(false, source, sourceOffset, length, remote, remoteOffset, completion);
    }

    /** The upper layer's RDMA Read (3.1.4.6), from any thread. */
    void read(RegisteredBuffer destination, int destinationOffset, int length, List<BufferDescriptor> remote,
            long remoteOffset, RdmaCompletionHandler completion) {
        submit(true, destination, destinationOffset, length, remote, remoteOffset, completion);
    }

    /**
     * Starts the operation at once when the serial context is idle (no allocation), else queues it in
     * a pooled entry behind the work already waiting.
     */
    private void submit(boolean read, RegisteredBuffer local, int localOffset, int length,
            List<BufferDescriptor> remote, long remoteOffset, RdmaCompletionHandler completion) {
        if (serial.tryEnterIdle()) {
            try {
                start(read, local, localOffset, length, remote, remoteOffset, completion);
            } finally {
                serial.exit();
            }
        } else {
            PendingRdma r = sharedPool().poll();
            if (r == null) {
                r = new PendingRdma(this);
            }
            serial.execute(r.init(read, local, localOffset, length, remote, remoteOffset, completion));
        }
    }

    private SharedPool<PendingRdma> sharedPool() {
        SharedPool<PendingRdma> p = shared;
        if (p == null) {
            p = new SharedPool<>(SHARED_POOL);
            if (!SHARED.compareAndSet(this, null, p)) {
                p = shared;
            }
        }
        return p;
    }

    /** A queued request's entry is free again (its values were taken). */
    void release(PendingRdma r) {
        shared.offer(r);
    }

    /** Serial context: checks the request, slices it and posts what the budgets allow. */
    void start(boolean read, RegisteredBuffer local, int localOffset, int length, List<BufferDescriptor> remote,
            long remoteOffset, RdmaCompletionHandler completion) {
        try {
            if (!connection.isEstablished()) {
                if (connection.closeReasonProvisional()) {
                    waiting.add(completion); // fails at the finish with the endpoint's own reason
                    return;
                }
                throw connection.notEstablished();
            }
            if (!(local instanceof RegisteredBufferImpl rb) || !registrations.owns(rb) || !rb.valid) {
                throw new SmbDirectException(SmbDirectException.Kind.INVALID_ARGUMENT,
                        "the local buffer is not a valid registration of connection " + connection.id);
            }
            if (localOffset < 0 || length <= 0 || (long) localOffset + length > rb.length()) {
                throw new SmbDirectException(SmbDirectException.Kind.INVALID_ARGUMENT, "local range " + localOffset
                        + "+" + length + " outside the registered " + rb.length() + " bytes");
            }
            if (length > maxReadWriteSize) {
                throw new SmbDirectException(SmbDirectException.Kind.TRANSFER_TOO_LARGE, "transfer of " + length
                        + " bytes exceeds MaxReadWriteSize " + maxReadWriteSize);
            }
            int maxSegment = (int) Math.min(Math.max(1, connection.capabilities().maxMessageSize()), rb.chunkSize);
            RdmaOp op = opPool.isEmpty() ? new RdmaOp() : opPool.pollFirst();
            op.init(read, rb, localOffset, length, completion);
            try {
                DescriptorSlicer.slice(remote, remoteOffset, length, maxSegment, op);
            } catch (SmbDirectException e) {
                op.clear();
                opPool.addLast(op);
                throw e;
            }
            pending.addLast(op);
            post();
        } catch (SmbDirectException e) {
            try {
                completion.rdmaComplete(0, e);
            } catch (Throwable ex) {
                connection.callbackFailed("RdmaCompletionHandler.rdmaComplete", ex);
            }
        }
    }

    /** A free slot for a posted work request, growing the table when all are taken. */
    private int takeSlot() {
        if (freeCount == 0) {
            int n = slotOp.length;
            slotOp = Arrays.copyOf(slotOp, 2 * n);
            slotLength = Arrays.copyOf(slotLength, 2 * n);
            slotRemoteAddress = Arrays.copyOf(slotRemoteAddress, 2 * n);
            slotRemoteToken = Arrays.copyOf(slotRemoteToken, 2 * n);
            freeSlots = new int[2 * n];
            for (int i = 2 * n - 1; i >= n; i--) {
                freeSlots[freeCount++] = i;
            }
        }
        return freeSlots[--freeCount];
    }

    private void releaseSlot(int slot) {
        slotOp[slot] = null;
        slotLength[slot] = 0;
        freeSlots[freeCount++] = slot;
    }

    /** Posts queued RDMA segments; reads are bounded by ORD (3.1.4.6), writes by the send queue budget. */
    private void post() {
        while (connection.isEstablished() && !pending.isEmpty()) {
            RdmaOp op = pending.peekFirst();
            if (op.read ? readsInFlight >= Math.max(1, outboundReadDepth) : writesInFlight >= WRITE_BUDGET) {
                return;
            }
            int si = op.segmentIndex;
            int segLength = op.segmentLength[si];
            int segToken = op.segmentToken[si];
            long localPos = op.localOffset + op.segmentLocalOffset[si] + op.segmentDone;
            long chunkEnd = (localPos / op.local.chunkSize + 1) * op.local.chunkSize;
            int piece = (int) Math.min(segLength - op.segmentDone, chunkEnd - localPos);
            MemoryRegion region = op.local.regionAt(localPos);
            int regionOffset = (int) (localPos % op.local.chunkSize);
            long remoteAddress = op.segmentAddress[si] + op.segmentDone;
            int wid = takeSlot();
            slotOp[wid] = op;
            slotLength[wid] = piece;
            slotRemoteAddress[wid] = remoteAddress;
            slotRemoteToken[wid] = segToken;
            op.outstanding++;
            if (op.read) {
                readsInFlight++;
            } else {
                writesInFlight++;
            }
            op.segmentDone += piece;
            if (op.segmentDone == segLength) {
                op.segmentIndex++;
                op.segmentDone = 0;
            }
            if (op.allPosted()) {
                pending.pollFirst();
            }
            try {
                if (op.read) {
                    // R-3.1.4.6-06
                    connection.endpoint().postRdmaRead(region, regionOffset, piece, remoteAddress, segToken,
                            Connection.wr(Connection.K_RDMA, wid));
                } else {
                    // R-3.1.4.5-06
                    connection.endpoint().postRdmaWrite(region, regionOffset, piece, remoteAddress, segToken,
                            Connection.wr(Connection.K_RDMA, wid));
                }
            } catch (RdmaException e) {
                releaseSlot(wid);
                op.outstanding--;
                if (op.read) {
                    readsInFlight--;
                } else {
                    writesInFlight--;
                }
                pending.remove(op);
                // a refused post is mostly a queue pair already going down: as flushed work (R-3.1.7.1-01)
                failAtTheFinish(op);
                loss.closeAfterPostFailure("posting an RDMA " + (op.read ? "Read" : "Write"), e);
                return;
            }
        }
    }

    /** A posted RDMA Read or Write work request completed. */
    void onCompleted(long wid, CompletionStatus status, int vendorError) {
        if (wid < 0 || wid >= slotOp.length || slotOp[(int) wid] == null) {
            return; // already failed when the connection finished
        }
        int slot = (int) wid;
        RdmaOp op = slotOp[slot];
        int pieceLength = slotLength[slot];
        long remoteAddress = slotRemoteAddress[slot];
        int remoteToken = slotRemoteToken[slot];
        releaseSlot(slot);
        op.outstanding--;
        if (op.read) {
            readsInFlight--;
        } else {
            writesInFlight--;
        }
        if (status == CompletionStatus.FLUSHED) {
            pending.remove(op);
            failAtTheFinish(op);
            return;
        }
        if (status != CompletionStatus.SUCCESS) {
            CloseReason reason = loss.providerError(describe(op, pieceLength, remoteAddress, remoteToken),
                    status, vendorError);
            // R-3.1.4.5-07, R-3.1.4.6-07: the failure goes to the caller
            CloseReason current = connection.closeReason();
            fail(op, new SmbDirectException(SmbDirectException.Kind.PROVIDER_ERROR, reason.detail(),
                    current != null ? current : reason, null));
            pending.remove(op);
            connection.close(reason);
            return;
        }
        op.bytes += pieceLength;
        if (op.allPosted() && op.outstanding == 0 && !op.done) {
            op.done = true;
            if (op.read) {
                reads++;
            } else {
                writes++;
            }
            bytes += op.bytes;
            RdmaCompletionHandler c = op.completion;
            long b = op.bytes;
            if (!op.flushed) {
                op.clear();
                opPool.addLast(op); // done, all posted, nothing outstanding: no reference left to it
            }
            try {
                c.rdmaComplete(b, null);
            } catch (Throwable e) {
                connection.callbackFailed("RdmaCompletionHandler.rdmaComplete", e);
            }
        }
        post();
    }

    /**
     * The request that failed, named with its values: the operation and its length, the piece of the
     * peer's buffer it addressed (token, offset, length) and the local buffer with the access it was
     * registered with, e.g. {@code RDMA Write of 1048576 bytes (this request 1048576 bytes at the
     * peer's offset 0x10000 with token 0x1a2b3c4d; the local source registered LOCAL_ONLY)}.
     */
    private static String describe(RdmaOp op, int pieceLength, long remoteAddress, int remoteToken) {
        return (op.read ? "RDMA Read" : "RDMA Write") + " of " + op.length + " bytes (this request " + pieceLength
                + " bytes at the peer's offset 0x" + Long.toHexString(remoteAddress) + " with token 0x"
                + Integer.toHexString(remoteToken) + "; the local " + (op.read ? "destination" : "source")
                + " registered " + (op.local == null ? "?" : op.local.access) + ")";
    }

    private void fail(RdmaOp op, Throwable failure) {
        if (op.done) {
            return;
        }
        op.done = true;
        try {
            op.completion.rdmaComplete(op.bytes, failure);
        } catch (Throwable e) {
            connection.callbackFailed("RdmaCompletionHandler.rdmaComplete", e);
        }
    }

    /** The connection closes (3.1.7.1): operations not yet posted fail now. */
    void failQueued(Throwable failure) {
        RdmaOp op;
        while ((op = pending.pollFirst()) != null) {
            fail(op, failure);
        }
    }

    /** As {@link SendPath#failQueuedWithTheFinalReason}: the pending operations fail when the connection finishes. */
    void failQueuedWithTheFinalReason() {
        RdmaOp op;
        while ((op = pending.pollFirst()) != null) {
            failAtTheFinish(op);
        }
    }

    /**
     * {@code op} fails with the connection's final reason when it finishes (the endpoint's cause,
     * which a provisional reason gives way to), once however many of its pieces end this way.
     */
    private void failAtTheFinish(RdmaOp op) {
        if (!op.flushed) {
            op.flushed = true; // referenced from the flushed list: never reused
            flushed.add(op);
        }
    }

    /** The connection finished: every operation flushed or still in flight fails. */
    void failInFlight(Throwable failure) {
        for (RdmaCompletionHandler c : waiting) {
            try {
                c.rdmaComplete(0, failure);
            } catch (Throwable e) {
                connection.callbackFailed("RdmaCompletionHandler.rdmaComplete", e);
            }
        }
        waiting.clear();
        for (RdmaOp op : flushed) {
            fail(op, failure);
        }
        flushed.clear();
        for (int i = 0; i < slotOp.length; i++) {
            if (slotOp[i] != null) {
                fail(slotOp[i], failure);
                releaseSlot(i);
            }
        }
    }

    /**
     * RDMA work still to do: operations waiting to be posted plus the Read and Write work requests
     * posted and not completed (0: nothing requested is unfinished; serial context).
     */
    int outstanding() {
        return pending.size() + readsInFlight + writesInFlight;
    }

    /** Reads and writes posted and not completed. */
    int inFlight() {
        return readsInFlight + writesInFlight;
    }

    /** RDMA Reads completed (tests, DTO). */
    long reads() {
        return reads;
    }

    /** RDMA Writes completed (tests, DTO). */
    long writes() {
        return writes;
    }

    void describeTo(ConnectionDTO d) {
        d.rdmaInFlight = readsInFlight + writesInFlight;
        d.rdmaReads = reads;
        d.rdmaWrites = writes;
        d.rdmaBytes = bytes;
    }
}
