package smbdirect.rdma.verbs.internal.rdmacore;

import java.lang.foreign.MemorySegment;

import smbdirect.rdma.verbs.internal.VerbsBackend.Device;

/** An {@code ibv_context} opened by librdmacm (never closed by the backend: librdmacm owns it). */
final class DeviceHandle implements Device {

    final MemorySegment context;
    final int key;

    DeviceHandle(MemorySegment context, int key) {
        this.context = context.reinterpret(Abi.IBV_CONTEXT.byteSize());
        this.key = key;
    }

    @Override
    public int key() {
        return key;
    }

    @Override
    public int completionVectors() {
        return Math.max(1, context.get(java.lang.foreign.ValueLayout.JAVA_INT, Abi.CONTEXT_NUM_COMP_VECTORS));
    }
}
