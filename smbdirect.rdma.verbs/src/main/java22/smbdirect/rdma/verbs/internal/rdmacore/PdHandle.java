package smbdirect.rdma.verbs.internal.rdmacore;

import java.lang.foreign.MemorySegment;

import smbdirect.rdma.verbs.internal.VerbsBackend.ProtectionDomain;

/** An {@code ibv_pd} of a device. */
final class PdHandle extends NativeHandle implements ProtectionDomain {

    final MemorySegment ptr;
    final DeviceHandle device;

    PdHandle(MemorySegment ptr, DeviceHandle device) {
        this.ptr = ptr.reinterpret(Abi.IBV_PD.byteSize());
        this.device = device;
    }

    @Override
    String gone() {
        return "the protection domain was deallocated";
    }
}
