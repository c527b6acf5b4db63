package smbdirect.impl.engine;

import java.util.List;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.RdmaCompletionHandler;
import smbdirect.api.RegisteredBuffer;

/**
 * An RDMA Read or Write issued while the connection's serial context was busy, waiting to start on
 * it. Entries are reused through the pool of {@link RdmaOperations} shared with other threads:
 * running one takes its values, gives the entry back, then starts the operation.
 */
final class PendingRdma implements Runnable {

    private final RdmaOperations owner;
    private boolean read;
    private RegisteredBuffer local;
    private int localOffset;
    private int length;
    private List<BufferDescriptor> remote;
    private long remoteOffset;
    private RdmaCompletionHandler completion;

    PendingRdma(RdmaOperations owner) {
        this.owner = owner;
    }

    PendingRdma init(boolean read, RegisteredBuffer local, int localOffset, int length, List<BufferDescriptor> remote,
            long remoteOffset, RdmaCompletionHandler completion) {
        this.read = read;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        this.remote = remote;
        this.remoteOffset = remoteOffset;
        this.completion = completion;
        return this;
    }

    @Override
    public void run() {
        boolean rd = read;
        RegisteredBuffer l = local;
        int lo = localOffset;
        int len = length;
        List<BufferDescriptor> r = remote;
        long ro = remoteOffset;
        RdmaCompletionHandler c = completion;
        local = null;
        remote = null;
        completion = null;
        owner.release(this);
        owner.start(rd, l, lo, len, r, ro, c);
    }
}
