package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import smbdirect.rdma.verbs.internal.VerbsBackend.RegisteredMemory;

/** An {@code ibv_mr}; keeps the registered buffer reachable while registered. */
final class MrHandle extends NativeHandle implements RegisteredMemory {

    final MemorySegment ptr;
    final long address;
    final int length;
    final int lkey;
    final int rkey;
    /** Guarded by this; {@code null} once deregistered. */
    ByteBuffer buffer;

    MrHandle(MemorySegment ptr, ByteBuffer buffer) {
        this.ptr = ptr.reinterpret(Abi.IBV_MR.byteSize());
        this.address = this.ptr.get(JAVA_LONG, Abi.MR_ADDR);
        this.length = (int) this.ptr.get(JAVA_LONG, Abi.MR_LENGTH);
        this.lkey = this.ptr.get(JAVA_INT, Abi.MR_LKEY);
        this.rkey = this.ptr.get(JAVA_INT, Abi.MR_RKEY);
        this.buffer = buffer;
    }

    @Override
    String gone() {
        return "the region was deregistered already";
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public int localKey() {
        return lkey;
    }

    @Override
    public int remoteKey() {
        return rkey;
    }
}
