package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Map;

import smbdirect.rdma.verbs.internal.NativeCallException;

/**
 * The downcall handles of libibverbs ({@code libibverbs.so.1}), librdmacm ({@code librdmacm.so.1})
 * and the few libc functions the backend needs, each capturing {@code errno}; and the function-pointer
 * handles of the verbs that rdma-core defines inline in {@code <infiniband/verbs.h>}
 * ({@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}):
 * those are reached as the header reaches them, through {@code ibv_context.ops}, so the handles
 * take the function pointer as their first argument. Immutable and thread-safe; constructing one
 * loads the libraries (restricted methods: the JVM needs {@code --enable-native-access}).
 */
final class Natives {

    static final Linker LINKER = Linker.nativeLinker();
    /** The capture-state segment layout ({@code errno}). */
    static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}, same for post_recv. */
    static final MethodHandle POST = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)}. */
    static final MethodHandle POLL_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}. */
    static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /**
     * {@code struct ibv_mw *(*alloc_mw)(struct ibv_pd *, enum ibv_mw_type)} of {@code ibv_context.ops}
     * ({@code ibv_alloc_mw} is inline in verbs.h), capturing errno: (function, capture, pd, type).
     */
    static final MethodHandle ALLOC_MW = LINKER.downcallHandle(FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT),
            Linker.Option.captureCallState("errno"));
    /** {@code int (*dealloc_mw)(struct ibv_mw *)} of {@code ibv_context.ops}: returns 0 or an errno. */
    static final MethodHandle DEALLOC_MW = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code int (*query_port)(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t)} of verbs_context. */
    static final MethodHandle QUERY_PORT_EX = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));

    private static final Map<Integer, String> ERRNO_NAMES = Map.ofEntries(Map.entry(1, "EPERM"),
            Map.entry(2, "ENOENT"), Map.entry(4, "EINTR"), Map.entry(5, "EIO"), Map.entry(6, "ENXIO"),
            Map.entry(9, "EBADF"), Map.entry(11, "EAGAIN"), Map.entry(12, "ENOMEM"), Map.entry(13, "EACCES"),
            Map.entry(14, "EFAULT"), Map.entry(16, "EBUSY"), Map.entry(17, "EEXIST"), Map.entry(19, "ENODEV"),
            Map.entry(22, "EINVAL"), Map.entry(24, "EMFILE"), Map.entry(28, "ENOSPC"), Map.entry(38, "ENOSYS"),
            Map.entry(61, "ENODATA"), Map.entry(71, "EPROTO"), Map.entry(95, "EOPNOTSUPP"),
            Map.entry(97, "EAFNOSUPPORT"), Map.entry(98, "EADDRINUSE"), Map.entry(99, "EADDRNOTAVAIL"),
            Map.entry(100, "ENETDOWN"), Map.entry(101, "ENETUNREACH"), Map.entry(103, "ECONNABORTED"),
            Map.entry(104, "ECONNRESET"), Map.entry(106, "EISCONN"), Map.entry(107, "ENOTCONN"),
            Map.entry(110, "ETIMEDOUT"), Map.entry(111, "ECONNREFUSED"), Map.entry(113, "EHOSTUNREACH"),
            Map.entry(114, "EALREADY"), Map.entry(115, "EINPROGRESS"));

    // libibverbs
    final MethodHandle ibvGetDeviceList;
    final MethodHandle ibvFreeDeviceList;
    final MethodHandle ibvGetDeviceName;
    final MethodHandle ibvOpenDevice;
    final MethodHandle ibvCloseDevice;
    final MethodHandle ibvQueryDevice;
    final MethodHandle ibvQueryQp;
    final MethodHandle ibvQueryPortCompat;
    final MethodHandle ibvAllocPd;
    final MethodHandle ibvDeallocPd;
    final MethodHandle ibvRegMr;
    final MethodHandle ibvDeregMr;
    final MethodHandle ibvCreateCompChannel;
    final MethodHandle ibvDestroyCompChannel;
    final MethodHandle ibvCreateCq;
    final MethodHandle ibvDestroyCq;
    final MethodHandle ibvGetCqEvent;
    /** {@code ibv_get_cq_event} without errno capture: the completion thread's path (see {@link #pollQuiet}). */
    final MethodHandle ibvGetCqEventQuiet;
    /** {@code void ibv_ack_cq_events(cq, n)}: no errno to capture. */
    final MethodHandle ibvAckCqEvents;
    final MethodHandle ibvGetAsyncEvent;
    /** {@code void ibv_ack_async_event(event)}: no errno to capture. */
    final MethodHandle ibvAckAsyncEvent;
    // librdmacm
    final MethodHandle rdmaCreateEventChannel;
    final MethodHandle rdmaDestroyEventChannel;
    final MethodHandle rdmaCreateId;
    final MethodHandle rdmaDestroyId;
    final MethodHandle rdmaBindAddr;
    final MethodHandle rdmaListen;
    final MethodHandle rdmaResolveAddr;
    final MethodHandle rdmaResolveRoute;
    final MethodHandle rdmaConnect;
    final MethodHandle rdmaAccept;
    final MethodHandle rdmaReject;
    final MethodHandle rdmaDisconnect;
    final MethodHandle rdmaGetCmEvent;
    final MethodHandle rdmaAckCmEvent;
    final MethodHandle rdmaCreateQp;
    final MethodHandle rdmaNotify;
    final MethodHandle rdmaDestroyQp;
    // libc
    final MethodHandle poll;
    /**
     * {@code poll} without errno capture. A downcall that captures errno allocates a small object
     * per call unless C2 compiles the caller (C1 and the interpreter do not remove it), so the
     * completion thread's wait uses these and asks again through the capturing handle only when a
     * call failed.
     */
    final MethodHandle pollQuiet;
    final MethodHandle fcntl;
    /** eventfd(2), capturing errno; read(2), write(2) and close(2) without (on an eventfd: cannot block). */
    final MethodHandle eventfd;
    final MethodHandle readQuiet;
    final MethodHandle writeQuiet;
    final MethodHandle closeQuiet;
    final MethodHandle strerror;

    /**
     * Loads the libraries and looks up every function.
     *
     * @throws IllegalArgumentException when a library cannot be loaded (its message names it)
     * @throws UnsatisfiedLinkError when a function is missing
     * @throws IllegalCallerException when native access is denied to this code
     */
    Natives() {
        Arena forever = Arena.global();
        SymbolLookup verbs = SymbolLookup.libraryLookup("libibverbs.so.1", forever);
        SymbolLookup cm = SymbolLookup.libraryLookup("librdmacm.so.1", forever);
        SymbolLookup libc = LINKER.defaultLookup();
        ibvGetDeviceList = fn(verbs, "ibv_get_device_list", ADDRESS, ADDRESS);
        ibvFreeDeviceList = fn(verbs, "ibv_free_device_list", null, ADDRESS);
        ibvGetDeviceName = fn(verbs, "ibv_get_device_name", ADDRESS, ADDRESS);
        ibvOpenDevice = fn(verbs, "ibv_open_device", ADDRESS, ADDRESS);
        ibvCloseDevice = fn(verbs, "ibv_close_device", JAVA_INT, ADDRESS);
        ibvQueryDevice = fn(verbs, "ibv_query_device", JAVA_INT, ADDRESS, ADDRESS);
        ibvQueryQp = fn(verbs, "ibv_query_qp", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS);
        // the exported symbol behind the header's compat path (struct _compat_ibv_port_attr)
        ibvQueryPortCompat = fn(verbs, "ibv_query_port", JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS);
        ibvAllocPd = fn(verbs, "ibv_alloc_pd", ADDRESS, ADDRESS);
        ibvDeallocPd = fn(verbs, "ibv_dealloc_pd", JAVA_INT, ADDRESS);
        // ibv_reg_mr with constant access flags outside IBV_ACCESS_OPTIONAL_RANGE: the exported function
        ibvRegMr = fn(verbs, "ibv_reg_mr", ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT);
        ibvDeregMr = fn(verbs, "ibv_dereg_mr", JAVA_INT, ADDRESS);
        ibvCreateCompChannel = fn(verbs, "ibv_create_comp_channel", ADDRESS, ADDRESS);
        ibvDestroyCompChannel = fn(verbs, "ibv_destroy_comp_channel", JAVA_INT, ADDRESS);
        ibvCreateCq = fn(verbs, "ibv_create_cq", ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        ibvDestroyCq = fn(verbs, "ibv_destroy_cq", JAVA_INT, ADDRESS);
        ibvGetCqEvent = fn(verbs, "ibv_get_cq_event", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        ibvGetCqEventQuiet = LINKER.downcallHandle(find(verbs, "ibv_get_cq_event"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        ibvAckCqEvents = LINKER.downcallHandle(find(verbs, "ibv_ack_cq_events"),
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        ibvGetAsyncEvent = fn(verbs, "ibv_get_async_event", JAVA_INT, ADDRESS, ADDRESS);
        ibvAckAsyncEvent = LINKER.downcallHandle(find(verbs, "ibv_ack_async_event"), FunctionDescriptor.ofVoid(ADDRESS));
        rdmaCreateEventChannel = fn(cm, "rdma_create_event_channel", ADDRESS);
        rdmaDestroyEventChannel = fn(cm, "rdma_destroy_event_channel", null, ADDRESS);
        rdmaCreateId = fn(cm, "rdma_create_id", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
        rdmaDestroyId = fn(cm, "rdma_destroy_id", JAVA_INT, ADDRESS);
        rdmaBindAddr = fn(cm, "rdma_bind_addr", JAVA_INT, ADDRESS, ADDRESS);
        rdmaListen = fn(cm, "rdma_listen", JAVA_INT, ADDRESS, JAVA_INT);
        rdmaResolveAddr = fn(cm, "rdma_resolve_addr", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
        rdmaResolveRoute = fn(cm, "rdma_resolve_route", JAVA_INT, ADDRESS, JAVA_INT);
        rdmaConnect = fn(cm, "rdma_connect", JAVA_INT, ADDRESS, ADDRESS);
        rdmaAccept = fn(cm, "rdma_accept", JAVA_INT, ADDRESS, ADDRESS);
        rdmaReject = fn(cm, "rdma_reject", JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE);
        rdmaDisconnect = fn(cm, "rdma_disconnect", JAVA_INT, ADDRESS);
        rdmaGetCmEvent = fn(cm, "rdma_get_cm_event", JAVA_INT, ADDRESS, ADDRESS);
        rdmaAckCmEvent = fn(cm, "rdma_ack_cm_event", JAVA_INT, ADDRESS);
        rdmaCreateQp = fn(cm, "rdma_create_qp", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        rdmaNotify = fn(cm, "rdma_notify", JAVA_INT, ADDRESS, JAVA_INT);
        rdmaDestroyQp = fn(cm, "rdma_destroy_qp", null, ADDRESS);
        poll = fn(libc, "poll", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
        pollQuiet = LINKER.downcallHandle(find(libc, "poll"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG,
                JAVA_INT));
        eventfd = fn(libc, "eventfd", JAVA_INT, JAVA_INT, JAVA_INT);
        readQuiet = LINKER.downcallHandle(find(libc, "read"), FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
                JAVA_LONG));
        writeQuiet = LINKER.downcallHandle(find(libc, "write"), FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
                JAVA_LONG));
        closeQuiet = LINKER.downcallHandle(find(libc, "close"), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        fcntl = LINKER.downcallHandle(find(libc, "fcntl"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                CAPTURE_ERRNO, Linker.Option.firstVariadicArg(2));
        strerror = LINKER.downcallHandle(find(libc, "strerror"), FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private static MemorySegment find(SymbolLookup lookup, String name) {
        return lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name + " not found"));
    }

    /** A downcall capturing errno: its first argument is the capture segment ({@link #CAPTURE}). */
    private static MethodHandle fn(SymbolLookup lookup, String name, MemoryLayout result, MemoryLayout... args) {
        FunctionDescriptor d = result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
        return LINKER.downcallHandle(find(lookup, name), d, CAPTURE_ERRNO);
    }

    /** errno as a capture segment left it. */
    static int errno(MemorySegment capture) {
        return capture.get(JAVA_INT, ERRNO);
    }

    /** "EINVAL (Invalid argument)", or "" when unknown. */
    String describeErrno(int errno) {
        String name = ERRNO_NAMES.getOrDefault(errno, "");
        String text = "";
        try {
            MemorySegment s = (MemorySegment) strerror.invokeExact(errno);
            text = s.equals(MemorySegment.NULL) ? "" : s.reinterpret(256).getString(0);
        } catch (Throwable e) {
            text = "";
        }
        return name.isEmpty() ? (text.isEmpty() ? "" : "(" + text + ")") : name + (text.isEmpty() ? "" : " (" + text + ")");
    }

    /** The exception for a failed {@code call} that left {@code errno}. */
    NativeCallException failure(String call, int errno, String context) {
        return new NativeCallException(call, errno, errno == 0 ? "" : describeErrno(errno), context);
    }

    /** The exception for a call the backend refuses itself, with the errno the library would give. */
    static NativeCallException refused(String call, int errno, String why) {
        return new NativeCallException(call, errno, ERRNO_NAMES.getOrDefault(errno, ""), why);
    }

    /** Wraps what a downcall threw (only a bug in the backend: the linker itself throws nothing else). */
    static NativeCallException unexpected(String call, Throwable t) {
        if (t instanceof NativeCallException n) {
            return n;
        }
        NativeCallException e = new NativeCallException(call, 0, "", "the downcall failed: " + t);
        e.initCause(t);
        return e;
    }
}
