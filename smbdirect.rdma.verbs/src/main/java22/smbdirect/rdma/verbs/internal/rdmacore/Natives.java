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

import static smbdirect.rdma.verbs.internal.rdmacore.NativeFunction.Failure.NEGATIVE_SETS_ERRNO;
import static smbdirect.rdma.verbs.internal.rdmacore.NativeFunction.Failure.NONE;
import static smbdirect.rdma.verbs.internal.rdmacore.NativeFunction.Failure.NONZERO_IS_ERRNO;
import static smbdirect.rdma.verbs.internal.rdmacore.NativeFunction.Failure.NONZERO_SETS_ERRNO;
import static smbdirect.rdma.verbs.internal.rdmacore.NativeFunction.Failure.NULL_SETS_ERRNO;

import smbdirect.rdma.verbs.internal.NativeCallException;

/**
 * Every native function the backend calls, bound once as a {@code static final} {@link NativeFunction}:
 * libibverbs ({@code libibverbs.so.1}), librdmacm ({@code librdmacm.so.1}) and the few libc functions
 * the backend needs, most capturing {@code errno}; and the function-pointer
 * handles of the verbs that rdma-core defines inline in {@code <infiniband/verbs.h>}
 * ({@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}):
 * those are reached as the header reaches them, through {@code ibv_context.ops}, so the handles
 * take the function pointer as their first argument. Also the errno texts of the exceptions. The
 * class initializer loads the libraries (restricted methods: the JVM needs
 * {@code --enable-native-access}); {@link #load} runs it.
 */
final class Natives {

    static final Linker LINKER = Linker.nativeLinker();
    /** The capture-state segment layout ({@code errno}). */
    static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}: (function, qp, wr, bad_wr). */
    static final NativeFunction POST_SEND = pointerFn("ibv_post_send", NONZERO_IS_ERRNO,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}. */
    static final NativeFunction POST_RECV = pointerFn("ibv_post_recv", NONZERO_IS_ERRNO,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)}: a count, or a negative errno. */
    static final NativeFunction POLL_CQ = pointerFn("ibv_poll_cq", NONE,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}: 0 or an errno (its sign varies). */
    static final NativeFunction REQ_NOTIFY_CQ = pointerFn("ibv_req_notify_cq", NONE,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /**
     * {@code struct ibv_mw *(*alloc_mw)(struct ibv_pd *, enum ibv_mw_type)} of {@code ibv_context.ops}
     * ({@code ibv_alloc_mw} is inline in verbs.h), capturing errno: (function, capture, pd, type).
     */
    static final NativeFunction ALLOC_MW = new NativeFunction("ibv_alloc_mw", LINKER.downcallHandle(
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), Linker.Option.captureCallState("errno")),
            NULL_SETS_ERRNO);
    /** {@code int (*dealloc_mw)(struct ibv_mw *)} of {@code ibv_context.ops}: returns 0 or an errno. */
    static final NativeFunction DEALLOC_MW = pointerFn("ibv_dealloc_mw", NONZERO_IS_ERRNO,
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code int (*query_port)(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t)} of verbs_context. */
    static final NativeFunction QUERY_PORT_EX = pointerFn("ibv_query_port", NONE,
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

    private static final SymbolLookup VERBS = SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global());
    private static final SymbolLookup CM = SymbolLookup.libraryLookup("librdmacm.so.1", Arena.global());
    private static final SymbolLookup LIBC = LINKER.defaultLookup();

    // libibverbs
    static final NativeFunction IBV_GET_DEVICE_LIST = fn(VERBS, "ibv_get_device_list", NONE, ADDRESS,
            ADDRESS);
    static final NativeFunction IBV_FREE_DEVICE_LIST = fn(VERBS, "ibv_free_device_list", NONE, null, ADDRESS);
    static final NativeFunction IBV_GET_DEVICE_NAME = fn(VERBS, "ibv_get_device_name", NONE, ADDRESS, ADDRESS);
    static final NativeFunction IBV_OPEN_DEVICE = fn(VERBS, "ibv_open_device", NULL_SETS_ERRNO, ADDRESS, ADDRESS);
    static final NativeFunction IBV_CLOSE_DEVICE = fn(VERBS, "ibv_close_device", NONE, JAVA_INT, ADDRESS);
    static final NativeFunction IBV_QUERY_DEVICE = fn(VERBS, "ibv_query_device", NONZERO_IS_ERRNO, JAVA_INT, ADDRESS,
            ADDRESS);
    static final NativeFunction IBV_QUERY_QP = fn(VERBS, "ibv_query_qp", NONE, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT,
            ADDRESS);
    /** The exported symbol behind the header's compat path (struct _compat_ibv_port_attr). */
    static final NativeFunction IBV_QUERY_PORT_COMPAT = fn(VERBS, "ibv_query_port", NONE, JAVA_INT, ADDRESS,
            JAVA_BYTE, ADDRESS);
    static final NativeFunction IBV_ALLOC_PD = fn(VERBS, "ibv_alloc_pd", NULL_SETS_ERRNO, ADDRESS, ADDRESS);
    static final NativeFunction IBV_DEALLOC_PD = fn(VERBS, "ibv_dealloc_pd", NONZERO_IS_ERRNO, JAVA_INT, ADDRESS);
    /** ibv_reg_mr with constant access flags outside IBV_ACCESS_OPTIONAL_RANGE: the exported function. */
    static final NativeFunction IBV_REG_MR = fn(VERBS, "ibv_reg_mr", NULL_SETS_ERRNO, ADDRESS, ADDRESS, ADDRESS,
            JAVA_LONG, JAVA_INT);
    static final NativeFunction IBV_DEREG_MR = fn(VERBS, "ibv_dereg_mr", NONZERO_IS_ERRNO, JAVA_INT, ADDRESS);
    static final NativeFunction IBV_CREATE_COMP_CHANNEL = fn(VERBS, "ibv_create_comp_channel", NULL_SETS_ERRNO,
            ADDRESS, ADDRESS);
    static final NativeFunction IBV_DESTROY_COMP_CHANNEL = fn(VERBS, "ibv_destroy_comp_channel", NONZERO_SETS_ERRNO,
            JAVA_INT, ADDRESS);
    static final NativeFunction IBV_CREATE_CQ = fn(VERBS, "ibv_create_cq", NULL_SETS_ERRNO, ADDRESS, ADDRESS,
            JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    static final NativeFunction IBV_DESTROY_CQ = fn(VERBS, "ibv_destroy_cq", NONZERO_IS_ERRNO, JAVA_INT, ADDRESS);
    static final NativeFunction IBV_GET_CQ_EVENT = fn(VERBS, "ibv_get_cq_event", NONE, JAVA_INT, ADDRESS, ADDRESS,
            ADDRESS);
    /** {@code ibv_get_cq_event} without errno capture: the completion thread's path (see {@link #POLL_QUIET}). */
    static final NativeFunction IBV_GET_CQ_EVENT_QUIET = quiet(VERBS, "ibv_get_cq_event",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** {@code void ibv_ack_cq_events(cq, n)}: no errno to capture. */
    static final NativeFunction IBV_ACK_CQ_EVENTS = quiet(VERBS, "ibv_ack_cq_events",
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    static final NativeFunction IBV_GET_ASYNC_EVENT = fn(VERBS, "ibv_get_async_event", NONE, JAVA_INT, ADDRESS,
            ADDRESS);
    /** {@code void ibv_ack_async_event(event)}: no errno to capture. */
    static final NativeFunction IBV_ACK_ASYNC_EVENT = quiet(VERBS, "ibv_ack_async_event",
            FunctionDescriptor.ofVoid(ADDRESS));
    // librdmacm
    static final NativeFunction RDMA_CREATE_EVENT_CHANNEL = fn(CM, "rdma_create_event_channel", NULL_SETS_ERRNO,
            ADDRESS);
    static final NativeFunction RDMA_DESTROY_EVENT_CHANNEL = fn(CM, "rdma_destroy_event_channel", NONE, null,
            ADDRESS);
    static final NativeFunction RDMA_CREATE_ID = fn(CM, "rdma_create_id", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS,
            ADDRESS, ADDRESS, JAVA_INT);
    static final NativeFunction RDMA_DESTROY_ID = fn(CM, "rdma_destroy_id", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS);
    static final NativeFunction RDMA_BIND_ADDR = fn(CM, "rdma_bind_addr", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS,
            ADDRESS);
    static final NativeFunction RDMA_LISTEN = fn(CM, "rdma_listen", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS, JAVA_INT);
    static final NativeFunction RDMA_RESOLVE_ADDR = fn(CM, "rdma_resolve_addr", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS,
            ADDRESS, ADDRESS, JAVA_INT);
    static final NativeFunction RDMA_RESOLVE_ROUTE = fn(CM, "rdma_resolve_route", NONZERO_SETS_ERRNO, JAVA_INT,
            ADDRESS, JAVA_INT);
    static final NativeFunction RDMA_CONNECT = fn(CM, "rdma_connect", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS, ADDRESS);
    static final NativeFunction RDMA_ACCEPT = fn(CM, "rdma_accept", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS, ADDRESS);
    static final NativeFunction RDMA_REJECT = fn(CM, "rdma_reject", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS, ADDRESS,
            JAVA_BYTE);
    static final NativeFunction RDMA_DISCONNECT = fn(CM, "rdma_disconnect", NONE, JAVA_INT, ADDRESS);
    static final NativeFunction RDMA_GET_CM_EVENT = fn(CM, "rdma_get_cm_event", NONE, JAVA_INT, ADDRESS, ADDRESS);
    static final NativeFunction RDMA_ACK_CM_EVENT = fn(CM, "rdma_ack_cm_event", NONE, JAVA_INT, ADDRESS);
    static final NativeFunction RDMA_CREATE_QP = fn(CM, "rdma_create_qp", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS,
            ADDRESS, ADDRESS);
    static final NativeFunction RDMA_NOTIFY = fn(CM, "rdma_notify", NONZERO_SETS_ERRNO, JAVA_INT, ADDRESS, JAVA_INT);
    static final NativeFunction RDMA_DESTROY_QP = fn(CM, "rdma_destroy_qp", NONE, null, ADDRESS);
    // libc
    static final NativeFunction POLL = fn(LIBC, "poll", NEGATIVE_SETS_ERRNO, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
    /**
     * {@code poll} without errno capture. A downcall that captures errno allocates a small object
     * per call unless C2 compiles the caller (C1 and the interpreter do not remove it), so the
     * completion thread's wait uses these and asks again through the capturing handle only when a
     * call failed.
     */
    static final NativeFunction POLL_QUIET = quiet(LIBC, "poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG,
            JAVA_INT));
    static final NativeFunction FCNTL = new NativeFunction("fcntl", LINKER.downcallHandle(find(LIBC, "fcntl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO,
            Linker.Option.firstVariadicArg(2)), NEGATIVE_SETS_ERRNO);
    /** eventfd(2), capturing errno; read(2), write(2) and close(2) without (on an eventfd: cannot block). */
    static final NativeFunction EVENTFD = fn(LIBC, "eventfd", NEGATIVE_SETS_ERRNO, JAVA_INT, JAVA_INT, JAVA_INT);
    static final NativeFunction READ_QUIET = quiet(LIBC, "read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    static final NativeFunction WRITE_QUIET = quiet(LIBC, "write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT,
            ADDRESS, JAVA_LONG));
    static final NativeFunction CLOSE_QUIET = quiet(LIBC, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(find(LIBC, "strerror"),
            FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Natives() {
    }

    /**
     * Loads the libraries and looks up every function (once per JVM: the constants above).
     *
     * @throws ExceptionInInitializerError with an {@link IllegalArgumentException} when a library
     *         cannot be loaded (its message names it), an {@link IllegalCallerException} when native
     *         access is denied to this code
     * @throws UnsatisfiedLinkError when a function is missing
     * @throws NoClassDefFoundError when an earlier load failed
     */
    static void load() {
        // the class initializer did the work
    }

    private static MemorySegment find(SymbolLookup lookup, String name) {
        return lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name + " not found"));
    }

    /** A function capturing errno: its handle's first argument is the capture segment ({@link #CAPTURE}). */
    private static NativeFunction fn(SymbolLookup lookup, String name, NativeFunction.Failure failure,
            MemoryLayout result, MemoryLayout... args) {
        FunctionDescriptor d = result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
        return new NativeFunction(name, LINKER.downcallHandle(find(lookup, name), d, CAPTURE_ERRNO), failure);
    }

    /** An inline verb reached through a function pointer: its handle takes the pointer first. */
    private static NativeFunction pointerFn(String name, NativeFunction.Failure failure, FunctionDescriptor d) {
        return new NativeFunction(name, LINKER.downcallHandle(d), failure);
    }

    /** A function called without errno capture (its result says all, or it cannot fail). */
    private static NativeFunction quiet(SymbolLookup lookup, String name, FunctionDescriptor d) {
        return new NativeFunction(name, LINKER.downcallHandle(find(lookup, name), d), NONE);
    }

    /** errno as a capture segment left it. */
    static int errno(MemorySegment capture) {
        return capture.get(JAVA_INT, ERRNO);
    }

    /** "EINVAL (Invalid argument)", or "" when unknown. */
    static String describeErrno(int errno) {
        String name = ERRNO_NAMES.getOrDefault(errno, "");
        String text = "";
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            text = s.equals(MemorySegment.NULL) ? "" : s.reinterpret(256).getString(0);
        } catch (Throwable e) {
            text = "";
        }
        return name.isEmpty() ? (text.isEmpty() ? "" : "(" + text + ")") : name + (text.isEmpty() ? "" : " (" + text + ")");
    }

    /** The exception for a failed {@code call} that left {@code errno}. */
    static NativeCallException failure(String call, int errno, String context) {
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
