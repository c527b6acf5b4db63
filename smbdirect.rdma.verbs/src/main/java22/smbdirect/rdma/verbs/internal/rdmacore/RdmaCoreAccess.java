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

    /** Whether the libraries were loaded ({@link Natives#load}). */
    private boolean loaded;
    /** Why loading failed, once it did: the class that binds the functions cannot be initialized again. */
    private static volatile String loadRefusal;

    @Override
    public String name() {
        return VerbsSettings.RDMA_CORE;
    }

    @Override
    public String load() {
        if (loaded) {
            return null;
        }
        String refusal = NativePlatform.current().rdmaCoreRefusal();
        if (refusal != null) {
            return refusal;
        }
        if (loadRefusal != null) {
            return loadRefusal;
        }
        try {
            Natives.load();
            loaded = true;
            return null;
        } catch (ExceptionInInitializerError e) {
            loadRefusal = refusal(e.getCause() == null ? e : e.getCause());
        } catch (LinkageError | RuntimeException e) {
            loadRefusal = refusal(e);
        }
        return loadRefusal;
    }

    /** Why the libraries could not be loaded, as the probe reports it. */
    private static String refusal(Throwable e) {
        if (e instanceof IllegalArgumentException) {
            return "libibverbs.so.1 or librdmacm.so.1 could not be loaded (" + e.getMessage() + "): install rdma-core "
                    + "(apt-get install libibverbs1 librdmacm1 ibverbs-providers / dnf install rdma-core libibverbs "
                    + "librdmacm)";
        }
        if (e instanceof IllegalCallerException) {
            return "native access is denied to this code (" + e.getMessage() + "): start the JVM with "
                    + "--enable-native-access=ALL-UNNAMED";
        }
        if (e instanceof UnsatisfiedLinkError) {
            return "rdma-core lacks a function the backend needs (" + e.getMessage() + "): install rdma-core 30 or later";
        }
        return "the Foreign Function & Memory API failed (" + e + ")";
    }

    @Override
    public String check() {
        return null;
    }

    @Override
    public List<String> devices() throws IOException {
        List<String> names = new ArrayList<>();
        forEachDevice((a, capture, device, name) -> {
            names.add(name);
            return null;
        });
        Collections.sort(names);
        return names;
    }

    @Override
    public DeviceAttributes query(String device) throws IOException {
        DeviceAttributes found = forEachDevice((a, capture, dev, name) -> name.equals(device)
                ? query(a, capture, dev, name) : null);
        if (found == null) {
            throw Natives.IBV_OPEN_DEVICE.refused(Abi.ENODEV, "no RDMA device '" + device + "'");
        }
        return found;
    }

    @FunctionalInterface
    private interface DeviceVisitor<T> {
        /** Returns a result to stop at this device, {@code null} to go on. */
        T visit(Arena arena, MemorySegment capture, MemorySegment device, String name) throws IOException;
    }

    /** Visits the devices of {@code ibv_get_device_list} (freed afterwards) until the visitor returns a result. */
    private <T> T forEachDevice(DeviceVisitor<T> visitor) throws IOException {
        requireLoaded();
        NativeFunction getList = Natives.IBV_GET_DEVICE_LIST;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(Natives.CAPTURE);
            MemorySegment count = a.allocate(JAVA_INT);
            MemorySegment list = getList.pointer(a, capture, "", (h, arena, c) -> (MemorySegment) h.invokeExact(c,
                    count));
            if (list.equals(MemorySegment.NULL)) {
                int errno = Natives.errno(capture);
                throw getList.failed(errno, errno == 38 ? "the kernel has no RDMA support: ib_uverbs is not loaded" : "");
            }
            try {
                int num = count.get(JAVA_INT, 0);
                MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * (num + 1L));
                for (int i = 0; i < num; i++) {
                    MemorySegment dev = devices.getAtIndex(ADDRESS, i);
                    T result = visitor.visit(a, capture, dev, name(a, capture, dev));
                    if (result != null) {
                        return result;
                    }
                }
                return null;
            } finally {
                Natives.IBV_FREE_DEVICE_LIST.call(a, capture, "", (h, arena, c) -> {
                    h.invokeExact(c, list);
                    return 0;
                });
            }
        }
    }

    private static String name(Arena a, MemorySegment capture, MemorySegment device) throws NativeCallException {
        MemorySegment name = Natives.IBV_GET_DEVICE_NAME.pointer(a, capture, "",
                (h, arena, c) -> (MemorySegment) h.invokeExact(c, device));
        return name.equals(MemorySegment.NULL) ? "" : name.reinterpret(Abi.IBV_SYSFS_NAME_MAX).getString(0);
    }

    private static DeviceAttributes query(Arena a, MemorySegment capture, MemorySegment dev, String name)
            throws IOException {
        MemorySegment opened = Natives.IBV_OPEN_DEVICE.pointer(a, capture, name,
                (h, arena, c) -> (MemorySegment) h.invokeExact(c, dev));
        MemorySegment context = opened.reinterpret(Abi.IBV_CONTEXT.byteSize());
        try {
            MemorySegment attr = a.allocate(Abi.IBV_DEVICE_ATTR);
            Natives.IBV_QUERY_DEVICE.call(a, capture, name, (h, arena, c) -> (int) h.invokeExact(c, context, attr));
            MemorySegment port = a.allocate(Abi.IBV_PORT_ATTR);
            int rc = queryPort(a, capture, context, (byte) 1, port);
            if (rc != 0) {
                throw Natives.IBV_QUERY_PORT_COMPAT.failed(rc, name + " port 1");
            }
            int capFlags = attr.get(JAVA_INT, Abi.DEVICE_ATTR_DEVICE_CAP_FLAGS);
            int maxMw = attr.get(JAVA_INT, Abi.DEVICE_ATTR_MAX_MW);
            boolean windows = maxMw > 0 && (capFlags & (VerbsConstants.DEVICE_MEM_WINDOW
                    | VerbsConstants.DEVICE_MEM_WINDOW_TYPE_2A | VerbsConstants.DEVICE_MEM_WINDOW_TYPE_2B)) != 0
                    && typeTwoWindow(a, capture, context);
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
            Natives.IBV_CLOSE_DEVICE.call(a, capture, name, (h, arena, c) -> (int) h.invokeExact(c, context));
        }
    }

    /**
     * Whether a type 2 memory window can be allocated on the device: devices report windows in
     * different ways ({@code IBV_DEVICE_MEM_WINDOW_TYPE_2B} on mlx5 and rxe, only
     * {@code IBV_DEVICE_MEM_WINDOW} on irdma), so one is allocated on a protection domain of its own
     * and released again ({@code ibv_alloc_mw} is inline: {@code ops.alloc_mw}).
     */
    private static boolean typeTwoWindow(Arena a, MemorySegment capture, MemorySegment context)
            throws NativeCallException {
        MemorySegment alloc = context.get(ADDRESS, Abi.CONTEXT_ALLOC_MW);
        MemorySegment dealloc = context.get(ADDRESS, Abi.CONTEXT_DEALLOC_MW);
        if (alloc.equals(MemorySegment.NULL) || dealloc.equals(MemorySegment.NULL)) {
            return false;
        }
        MemorySegment pd;
        try {
            pd = Natives.IBV_ALLOC_PD.pointer(a, capture, "", (h, arena, c) -> (MemorySegment) h.invokeExact(c,
                    context));
        } catch (NativeCallException e) {
            return false;
        }
        try {
            MemorySegment mw = Natives.ALLOC_MW.pointer(a, capture, "type 2", (h, arena, c) -> (MemorySegment) h
                    .invokeExact(alloc, c, pd, VerbsConstants.MW_TYPE_2));
            Natives.DEALLOC_MW.call(a, capture, "", (h, arena, c) -> {
                int ignored = (int) h.invokeExact(dealloc, mw);
                return 0;
            });
            return true;
        } catch (NativeCallException e) {
            return false;
        } finally {
            Natives.IBV_DEALLOC_PD.call(a, capture, "", (h, arena, c) -> {
                int ignored = (int) h.invokeExact(c, pd);
                return 0;
            });
        }
    }

    /**
     * {@code ibv_query_port} as {@code <infiniband/verbs.h>} defines it ({@code ___ibv_query_port}):
     * {@code verbs_context.query_port(context, port, attr, sizeof(*attr))} when the context is
     * extended and its op is there, else the exported compat function on a zeroed struct.
     */
    static int queryPort(Arena a, MemorySegment capture, MemorySegment context, byte port, MemorySegment attr)
            throws NativeCallException {
        MemorySegment op = extendedOp(context, Abi.VERBS_CONTEXT_QUERY_PORT);
        if (op != null) {
            return Natives.QUERY_PORT_EX.call(a, capture, "", (h, arena, c) -> (int) h.invokeExact(op, context, port,
                    attr, Abi.IBV_PORT_ATTR.byteSize()));
        }
        attr.fill((byte) 0);
        return Natives.IBV_QUERY_PORT_COMPAT.call(a, capture, "", (h, arena, c) -> (int) h.invokeExact(c, context,
                port, attr));
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
        requireLoaded();
        MemorySegment channel = Natives.RDMA_CREATE_EVENT_CHANNEL.pointer("",
                (h, a, capture) -> (MemorySegment) h.invokeExact(capture));
        try {
            return new RdmaCoreBackend(channel);
        } catch (IOException | RuntimeException e) {
            try {
                Natives.RDMA_DESTROY_EVENT_CHANNEL.call("", (h, a, capture) -> {
                    h.invokeExact(capture, channel);
                    return 0;
                });
            } catch (NativeCallException t) {
                e.addSuppressed(t);
            }
            throw e;
        }
    }

    private void requireLoaded() throws NativeCallException {
        String why = load();
        if (why != null) {
            throw Natives.refused("dlopen", Abi.ENODEV, why);
        }
    }
}
