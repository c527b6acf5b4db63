package smbdirect.rdma.verbs.internal.rdmacore;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.VerbsBackend.Device;
import smbdirect.rdma.verbs.internal.VerbsBackend.ProtectionDomain;
import smbdirect.rdma.verbs.internal.VerbsBackend.RegisteredMemory;

/**
 * Protection domains and the memory registered in them ({@code ibv_alloc_pd}, {@code ibv_reg_mr},
 * {@code ibv_dereg_mr}, {@code ibv_dealloc_pd}). A registration holds its buffer reachable until it
 * is deregistered. Each handle's calls run under its monitor.
 */
final class Registrations {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreBackend.class);

    private final BackendState state;

    Registrations(BackendState state) {
        this.state = state;
    }

    ProtectionDomain allocPd(Device device) throws IOException {
        NativeFunction fn = Natives.IBV_ALLOC_PD;
        fn.requireOpen(state);
        DeviceHandle dev = (DeviceHandle) device;
        MemorySegment pd = fn.pointer("", (h, a, capture) -> (MemorySegment) h.invokeExact(capture, dev.context));
        return new PdHandle(pd, dev);
    }

    void deallocPd(ProtectionDomain pd) {
        PdHandle p = (PdHandle) pd;
        synchronized (p) {
            if (p.destroyed) {
                return;
            }
            p.destroyed = true;
            try {
                Natives.IBV_DEALLOC_PD.call("", (h, a, capture) -> (int) h.invokeExact(capture, p.ptr));
            } catch (NativeCallException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
    }

    RegisteredMemory register(ProtectionDomain pd, ByteBuffer buffer, int accessFlags) throws IOException {
        NativeFunction fn = Natives.IBV_REG_MR;
        PdHandle p = (PdHandle) pd;
        if (!buffer.isDirect()) {
            throw fn.refused(Abi.EINVAL, "the buffer is not direct");
        }
        MemorySegment bytes = MemorySegment.ofBuffer(buffer);
        synchronized (p) {
            fn.requireOpen(state);
            if (p.destroyed) {
                throw fn.refused(Abi.EINVAL, p.gone());
            }
            try {
                MemorySegment mr = fn.pointer(bytes.byteSize() + " bytes at 0x" + Long.toHexString(bytes.address())
                        + ", access 0x" + Integer.toHexString(accessFlags), (h, a, capture) -> (MemorySegment) h
                                .invokeExact(capture, p.ptr, bytes, bytes.byteSize(), accessFlags));
                return new MrHandle(mr, buffer);
            } finally {
                Reference.reachabilityFence(buffer);
            }
        }
    }

    void deregister(RegisteredMemory memory) throws IOException {
        NativeFunction fn = Natives.IBV_DEREG_MR;
        MrHandle mr = (MrHandle) memory;
        synchronized (mr) {
            if (mr.destroyed) {
                throw fn.refused(Abi.EINVAL, mr.gone());
            }
            mr.destroyed = true;
            try {
                // ibv_dereg_mr returns the errno
                fn.call("", (h, a, capture) -> (int) h.invokeExact(capture, mr.ptr));
            } finally {
                mr.buffer = null;
            }
        }
    }
}
