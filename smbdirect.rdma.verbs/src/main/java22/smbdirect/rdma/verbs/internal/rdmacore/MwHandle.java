package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;

import smbdirect.rdma.verbs.internal.VerbsBackend.MemoryWindow;

/** A type 2 {@code ibv_mw} of a protection domain. */
final class MwHandle extends NativeHandle implements MemoryWindow {

    final MemorySegment ptr;
    final int rkey;

    MwHandle(MemorySegment ptr) {
        this.ptr = ptr.reinterpret(Abi.IBV_MW.byteSize());
        this.rkey = this.ptr.get(JAVA_INT, Abi.MW_RKEY);
    }

    @Override
    String gone() {
        return "the memory window was deallocated already";
    }

    @Override
    public int remoteKey() {
        return rkey;
    }
}
