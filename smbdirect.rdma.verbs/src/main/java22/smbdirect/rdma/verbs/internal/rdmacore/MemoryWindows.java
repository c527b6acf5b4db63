package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

import smbdirect.rdma.verbs.internal.VerbsBackend.MemoryWindow;
import smbdirect.rdma.verbs.internal.VerbsBackend.ProtectionDomain;
import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * Type 2 memory windows ({@code ibv_alloc_mw}, {@code ibv_dealloc_mw}: inline in verbs.h, reached
 * through {@code ibv_context.ops}); they are bound by a work request ({@link QueuePairs#postSend}).
 */
final class MemoryWindows {

    private final BackendState state;

    MemoryWindows(BackendState state) {
        this.state = state;
    }

    MemoryWindow allocMw(ProtectionDomain pd) throws IOException {
        NativeFunction fn = Natives.ALLOC_MW;
        PdHandle p = (PdHandle) pd;
        synchronized (p) {
            fn.requireUsable(p, state);
            MemorySegment alloc = p.device.context.get(ADDRESS, Abi.CONTEXT_ALLOC_MW);
            if (alloc.equals(MemorySegment.NULL)) {
                throw fn.refused(95, "the device's provider has no memory windows");
            }
            MemorySegment mw = fn.pointer("type 2", (h, a, capture) -> (MemorySegment) h.invokeExact(alloc, capture,
                    p.ptr, VerbsConstants.MW_TYPE_2));
            return new MwHandle(mw);
        }
    }

    void deallocMw(MemoryWindow window) throws IOException {
        NativeFunction fn = Natives.DEALLOC_MW;
        MwHandle mw = (MwHandle) window;
        synchronized (mw) {
            if (mw.destroyed) {
                throw fn.refused(Abi.EINVAL, mw.gone());
            }
            mw.destroyed = true;
            MemorySegment context = mw.ptr.get(ADDRESS, Abi.MW_CONTEXT).reinterpret(Abi.IBV_CONTEXT.byteSize());
            MemorySegment dealloc = context.get(ADDRESS, Abi.CONTEXT_DEALLOC_MW);
            fn.call("rkey 0x" + Integer.toHexString(mw.rkey), (h, a, capture) -> (int) h.invokeExact(dealloc, mw.ptr));
        }
    }
}
