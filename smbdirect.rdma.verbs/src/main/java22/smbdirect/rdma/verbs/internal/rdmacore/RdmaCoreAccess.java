package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.verbs.internal.BackendAccess;
import smbdirect.rdma.verbs.internal.DeviceAttributes;
import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.NativePlatform;
import smbdirect.rdma.verbs.internal.VerbsBackend;
import smbdirect.rdma.verbs.internal.VerbsConstants;
import smbdirect.rdma.verbs.internal.VerbsSettings;

/**
 * The rdma-core backend as the probe sees it: loads libibverbs and librdmacm, lists the devices
 * ({@code ibv_get_device_list}), queries one ({@code ibv_query_device}, and {@code ibv_query_port} of
 * port 1 the way {@code <infiniband/verbs.h>} does it: through {@code verbs_context.query_port} when
 * the context has one, else the exported compat function on a zeroed attribute struct) and opens
 * the RDMA CM event channel. Loaded reflectively by {@code RdmaCoreAccessLoader}, only on JDK 22+.
 * Called by one activating thread at a time.
 */
public final class RdmaCoreAccess implements BackendAccess {

    private Natives natives;

    @Override
    public String name() {
        return VerbsSettings.RDMA_CORE;
    }

    @Override
    public String load() {
        if (natives != null) {
            return null;
        }
        String refusal = NativePlatform.current().rdmaCoreRefusal();
        if (refusal != null) {
            return refusal;
        }
        try {
            natives = new Natives();
            return null;
        } catch (IllegalArgumentException e) {
            return "libibverbs.so.1 or librdmacm.so.1 could not be loaded (" + e.getMessage() + "): install rdma-core "
                    + "(apt-get install libibverbs1 librdmacm1 ibverbs-providers / dnf install rdma-core libibverbs "
                    + "librdmacm)";
        } catch (IllegalCallerException e) {
            return "native access is denied to this code (" + e.getMessage() + "): start the JVM with "
                    + "--enable-native-access=ALL-UNNAMED";
        } catch (UnsatisfiedLinkError e) {
            return "rdma-core lacks a function the backend needs (" + e.getMessage() + "): install rdma-core 30 or later";
        } catch (LinkageError | RuntimeException e) {
            return "the Foreign Function & Memory API failed (" + e + ")";
        }
    }

    @Override
    public String check() {
        return null;
    }

    @Override
    public List<String> devices() throws IOException {
        List<String> names = new ArrayList<>();
        forEachDevice((n, a, capture, device, name) -> {
            names.add(name);
            return null;
        });
        Collections.sort(names);
        return names;
    }

    @Override
    public DeviceAttributes query(String device) throws IOException {
        DeviceAttributes found = forEachDevice((n, a, capture, dev, name) -> name.equals(device)
                ? query(n, a, capture, dev, name) : null);
        if (found == null) {
            throw Natives.refused("ibv_open_device", Abi.ENODEV, "no RDMA device '" + device + "'");
        }
        return found;
    }

    @FunctionalInterface
    private interface DeviceVisitor<T> {
        /** Returns a result to stop at this device, {@code null} to go on. */
        T visit(Natives n, Arena arena, MemorySegment capture, MemorySegment device, String name) throws Throwable;
    }

    /** Visits the devices of {@code ibv_get_device_list} (freed afterwards) until the visitor returns a result. */
    private <T> T forEachDevice(DeviceVisitor<T> visitor) throws IOException {
        Natives n = natives();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(Natives.CAPTURE);
            MemorySegment count = a.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) n.ibvGetDeviceList.invokeExact(capture, count);
            if (list.equals(MemorySegment.NULL)) {
                int errno = Natives.errno(capture);
                throw n.failure("ibv_get_device_list", errno, errno == 38
                        ? "the kernel has no RDMA support: ib_uverbs is not loaded" : "");
            }
            try {
                int num = count.get(JAVA_INT, 0);
                MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * (num + 1L));
                for (int i = 0; i < num; i++) {
                    MemorySegment dev = devices.getAtIndex(ADDRESS, i);
                    T result = visitor.visit(n, a, capture, dev, name(n, capture, dev));
                    if (result != null) {
                        return result;
                    }
                }
                return null;
            } finally {
                n.ibvFreeDeviceList.invokeExact(capture, list);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw Natives.unexpected("ibv_get_device_list", t);
        }
    }

    private static String name(Natives n, MemorySegment capture, MemorySegment device) throws Throwable {
        MemorySegment name = (MemorySegment) n.ibvGetDeviceName.invokeExact(capture, device);
        return name.equals(MemorySegment.NULL) ? "" : name.reinterpret(Abi.IBV_SYSFS_NAME_MAX).getString(0);
    }

    private static DeviceAttributes query(Natives n, Arena a, MemorySegment capture, MemorySegment dev, String name)
            throws Throwable {
        MemorySegment context = (MemorySegment) n.ibvOpenDevice.invokeExact(capture, dev);
        if (context.equals(MemorySegment.NULL)) {
            throw n.failure("ibv_open_device", Natives.errno(capture), name);
        }
        try {
            context = context.reinterpret(Abi.IBV_CONTEXT.byteSize());
            MemorySegment attr = a.allocate(Abi.IBV_DEVICE_ATTR);
            int rc = (int) n.ibvQueryDevice.invokeExact(capture, context, attr);
            if (rc != 0) {
                throw n.failure("ibv_query_device", rc, name);
            }
            MemorySegment port = a.allocate(Abi.IBV_PORT_ATTR);
            rc = queryPort(n, capture, context, (byte) 1, port);
            if (rc != 0) {
                throw n.failure("ibv_query_port", rc, name + " port 1");
            }
            int capFlags = attr.get(JAVA_INT, Abi.DEVICE_ATTR_DEVICE_CAP_FLAGS);
            int maxMw = attr.get(JAVA_INT, Abi.DEVICE_ATTR_MAX_MW);
            boolean windows = maxMw > 0 && (capFlags & (VerbsConstants.DEVICE_MEM_WINDOW
                    | VerbsConstants.DEVICE_MEM_WINDOW_TYPE_2A | VerbsConstants.DEVICE_MEM_WINDOW_TYPE_2B)) != 0
                    && typeTwoWindow(n, capture, context);
            int transport = dev.reinterpret(Abi.IBV_DEVICE.byteSize()).get(JAVA_INT, Abi.DEVICE_TRANSPORT_TYPE);
            int linkLayer = Byte.toUnsignedInt(port.get(JAVA_BYTE, Abi.PORT_ATTR_LINK_LAYER));
            TransportType type = transport == Abi.IBV_TRANSPORT_IWARP ? TransportType.IWARP
                    : linkLayer == Abi.IBV_LINK_LAYER_ETHERNET ? TransportType.ROCE : TransportType.INFINIBAND;
            return new DeviceAttributes(name, type, attr.get(JAVA_LONG, Abi.DEVICE_ATTR_MAX_MR_SIZE),
                    attr.get(JAVA_INT, Abi.DEVICE_ATTR_MAX_QP_WR), attr.get(JAVA_INT, Abi.DEVICE_ATTR_MAX_SGE),
                    attr.get(JAVA_INT, Abi.DEVICE_ATTR_MAX_CQE), attr.get(JAVA_INT, Abi.DEVICE_ATTR_MAX_QP_RD_ATOM),
                    attr.get(JAVA_INT, Abi.DEVICE_ATTR_MAX_QP_INIT_RD_ATOM),
                    capFlags, attr.asSlice(Abi.DEVICE_ATTR_FW_VER, 64).getString(0),
                    port.get(JAVA_INT, Abi.PORT_ATTR_STATE), port.get(JAVA_INT, Abi.PORT_ATTR_ACTIVE_MTU),
                    Integer.toUnsignedLong(port.get(JAVA_INT, Abi.PORT_ATTR_MAX_MSG_SZ)), linkLayer,
                    attr.get(JAVA_INT, Abi.DEVICE_ATTR_VENDOR_ID), maxMw, windows);
        } finally {
            // a failure to close a context opened only to query it leaves nothing to undo
            int ignored = (int) n.ibvCloseDevice.invokeExact(capture, context);
        }
    }

    /**
     * Whether a type 2 memory window can be allocated on the device: devices report windows in
     * different ways ({@code IBV_DEVICE_MEM_WINDOW_TYPE_2B} on mlx5 and rxe, only
     * {@code IBV_DEVICE_MEM_WINDOW} on irdma), so one is allocated on a protection domain of its own
     * and released again ({@code ibv_alloc_mw} is inline: {@code ops.alloc_mw}).
     */
    private static boolean typeTwoWindow(Natives n, MemorySegment capture, MemorySegment context) throws Throwable {
        MemorySegment alloc = context.get(ADDRESS, Abi.CONTEXT_ALLOC_MW);
        MemorySegment dealloc = context.get(ADDRESS, Abi.CONTEXT_DEALLOC_MW);
        if (alloc.equals(MemorySegment.NULL) || dealloc.equals(MemorySegment.NULL)) {
            return false;
        }
        MemorySegment pd = (MemorySegment) n.ibvAllocPd.invokeExact(capture, context);
        if (pd.equals(MemorySegment.NULL)) {
            return false;
        }
        try {
            MemorySegment mw = (MemorySegment) Natives.ALLOC_MW.invokeExact(alloc, capture, pd, VerbsConstants.MW_TYPE_2);
            if (mw.equals(MemorySegment.NULL)) {
                return false;
            }
            int ignored = (int) Natives.DEALLOC_MW.invokeExact(dealloc, mw);
            return true;
        } finally {
            int ignored = (int) n.ibvDeallocPd.invokeExact(capture, pd);
        }
    }

    /**
     * {@code ibv_query_port} as {@code <infiniband/verbs.h>} defines it ({@code ___ibv_query_port}):
     * {@code verbs_context.query_port(context, port, attr, sizeof(*attr))} when the context is
     * extended and its op is there, else the exported compat function on a zeroed struct.
     */
    static int queryPort(Natives n, MemorySegment capture, MemorySegment context, byte port, MemorySegment attr)
            throws Throwable {
        MemorySegment op = extendedOp(context, Abi.VERBS_CONTEXT_QUERY_PORT);
        if (op != null) {
            return (int) Natives.QUERY_PORT_EX.invokeExact(op, context, port, attr, Abi.IBV_PORT_ATTR.byteSize());
        }
        attr.fill((byte) 0);
        return (int) n.ibvQueryPortCompat.invokeExact(capture, context, port, attr);
    }

    /**
     * {@code verbs_get_ctx_op(ctx, op)}: the extended op at {@code opOffset} of the verbs_context
     * around {@code context}, or {@code null} when the context is not extended, too old for the op
     * ({@code sz}), or the op is NULL.
     */
    static MemorySegment extendedOp(MemorySegment context, long opOffset) {
        long abiCompat = context.get(JAVA_LONG, Abi.CONTEXT_ABI_COMPAT);
        if (abiCompat != Abi.VERBS_ABI_IS_EXTENDED) {
            return null;
        }
        MemorySegment vctx = MemorySegment.ofAddress(context.address() - Abi.VERBS_CONTEXT_CONTEXT)
                .reinterpret(Abi.VERBS_CONTEXT.byteSize());
        long sz = vctx.get(JAVA_LONG, Abi.VERBS_CONTEXT_SZ);
        if (sz < Abi.VERBS_CONTEXT.byteSize() - opOffset) {
            return null;
        }
        MemorySegment op = vctx.get(ADDRESS, opOffset);
        return op.equals(MemorySegment.NULL) ? null : op;
    }

    @Override
    public boolean ipv6() {
        return true;
    }

    @Override
    public VerbsBackend openBackend() throws IOException {
        Natives n = natives();
        MemorySegment channel;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(Natives.CAPTURE);
            channel = (MemorySegment) n.rdmaCreateEventChannel.invokeExact(capture);
            if (channel.equals(MemorySegment.NULL)) {
                throw n.failure("rdma_create_event_channel", Natives.errno(capture), "");
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw Natives.unexpected("rdma_create_event_channel", t);
        }
        try {
            return new RdmaCoreBackend(n, channel);
        } catch (IOException | RuntimeException e) {
            try (Arena a = Arena.ofConfined()) {
                n.rdmaDestroyEventChannel.invokeExact(a.allocate(Natives.CAPTURE), channel);
            } catch (Throwable t) {
                e.addSuppressed(t);
            }
            throw e;
        }
    }

    private Natives natives() throws NativeCallException {
        String why = load();
        if (why != null) {
            throw Natives.refused("dlopen", Abi.ENODEV, why);
        }
        return natives;
    }
}
