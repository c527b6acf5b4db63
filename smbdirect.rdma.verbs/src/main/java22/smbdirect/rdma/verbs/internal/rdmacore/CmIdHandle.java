package smbdirect.rdma.verbs.internal.rdmacore;

import java.lang.foreign.MemorySegment;

import smbdirect.rdma.verbs.internal.VerbsBackend.CmId;

/** An {@code rdma_cm_id}, with the queue pair created on it. */
final class CmIdHandle extends NativeHandle implements CmId {

    final MemorySegment ptr;
    /** The queue pair created on this identifier, guarded by this. */
    QpHandle qp;

    CmIdHandle(MemorySegment ptr) {
        this.ptr = ptr.reinterpret(Abi.RDMA_CM_ID.byteSize());
    }

    @Override
    String gone() {
        return this + " was destroyed";
    }

    @Override
    public String toString() {
        return "rdma_cm_id@0x" + Long.toHexString(ptr.address());
    }
}
