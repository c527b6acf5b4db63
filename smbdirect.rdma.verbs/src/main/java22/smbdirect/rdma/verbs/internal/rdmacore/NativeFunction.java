package smbdirect.rdma.verbs.internal.rdmacore;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import smbdirect.rdma.verbs.internal.NativeCallException;

/**
 * One C function bound once: its name and its downcall handle, and the one wrapper every call of it
 * goes through, which turns what the call reports into a {@link NativeCallException} naming the call
 * and its errno, and refuses a call on a destroyed handle or a closed backend before anything
 * reaches C.
 *
 * <p>Each function is a {@code static final} constant of {@link Natives}; a record's fields are
 * trusted as constants by the JIT, so the handle of a constant function folds into the caller.
 *
 * <p>Two ways to call. The setup and teardown calls run through {@link #call} and {@link #pointer},
 * which give the call an arena and an errno capture segment and check the result as the function
 * reports failure ({@link Failure}). The hot paths (posting, polling, waiting) call the typed
 * invokers ({@link #invoke(MemorySegment, MemorySegment, MemorySegment, MemorySegment)} and
 * siblings), which allocate nothing and leave the result to the caller, who builds the exception
 * with {@link #failed(int, String)} only when the call failed.
 *
 * @param name the C function, as exceptions and logs name it
 * @param handle the downcall handle; when the function captures errno its first argument is the
 *        capture segment ({@link Natives#CAPTURE}); an inline verb's handle takes the function
 *        pointer first
 * @param failure how the function reports a failure
 */
record NativeFunction(String name, MethodHandle handle, Failure failure) {

    /** How a C function reports a failure, and where its errno is then. */
    enum Failure {
        /** A non-zero result; errno is in the capture segment (librdmacm, {@code ibv_query_qp}'s -1). */
        NONZERO_SETS_ERRNO,
        /** A non-zero result is the errno ({@code ibv_dereg_mr}, {@code ibv_destroy_cq}, the inline posts). */
        NONZERO_IS_ERRNO,
        /** A negative result; errno is in the capture segment (libc: {@code fcntl}, {@code eventfd}, {@code poll}). */
        NEGATIVE_SETS_ERRNO,
        /** A NULL pointer; errno is in the capture segment ({@code ibv_alloc_pd}, {@code ibv_reg_mr}, ...). */
        NULL_SETS_ERRNO,
        /** Nothing to report ({@code void} functions, calls whose result the caller reads itself). */
        NONE
    }

    /** One call of an {@code int} function: {@code handle} with the call's arena and capture segment. */
    @FunctionalInterface
    interface IntCall {
        int invoke(MethodHandle handle, Arena arena, MemorySegment capture) throws Throwable;
    }

    /** One call of a function returning a pointer. */
    @FunctionalInterface
    interface PointerCall {
        MemorySegment invoke(MethodHandle handle, Arena arena, MemorySegment capture) throws Throwable;
    }

    // ------------------------------------------------------------------ setup and teardown

    /**
     * Calls an {@code int} function in an arena of its own; a failure as {@link #failure} defines it
     * is thrown naming this function, its errno and {@code context}.
     *
     * @return the result (0, or a count or descriptor where the function returns one)
     */
    int call(String context, IntCall call) throws NativeCallException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(Natives.CAPTURE);
            int rc = call.invoke(handle, a, capture);
            check(rc, capture, context);
            return rc;
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** As {@link #call(String, IntCall)} with the caller's arena and capture segment (several calls in one scope). */
    int call(Arena arena, MemorySegment capture, String context, IntCall call) throws NativeCallException {
        int rc;
        try {
            rc = call.invoke(handle, arena, capture);
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
        check(rc, capture, context);
        return rc;
    }

    /** Calls a function returning a pointer in an arena of its own; NULL is thrown with the captured errno. */
    MemorySegment pointer(String context, PointerCall call) throws NativeCallException {
        try (Arena a = Arena.ofConfined()) {
            return pointer(a, a.allocate(Natives.CAPTURE), context, call);
        }
    }

    /** As {@link #pointer(String, PointerCall)} with the caller's arena and capture segment. */
    MemorySegment pointer(Arena arena, MemorySegment capture, String context, PointerCall call)
            throws NativeCallException {
        MemorySegment result;
        try {
            result = call.invoke(handle, arena, capture);
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
        if (failure == Failure.NULL_SETS_ERRNO && result.equals(MemorySegment.NULL)) {
            throw failed(Natives.errno(capture), context);
        }
        return result;
    }

    private void check(int rc, MemorySegment capture, String context) throws NativeCallException {
        switch (failure) {
            case NONZERO_SETS_ERRNO -> {
                if (rc != 0) {
                    throw failed(Natives.errno(capture), context);
                }
            }
            case NONZERO_IS_ERRNO -> {
                if (rc != 0) {
                    throw failed(rc, context);
                }
            }
            case NEGATIVE_SETS_ERRNO -> {
                if (rc < 0) {
                    throw failed(Natives.errno(capture), context);
                }
            }
            default -> {
                // the caller reads the result
            }
        }
    }

    // ------------------------------------------------------------------ refusals

    /** Refuses this call on a destroyed handle (EINVAL, the handle's reason) or a closed backend (ENODEV). */
    void requireUsable(NativeHandle handle, BackendState state) throws NativeCallException {
        if (handle.destroyed) {
            throw refused(Abi.EINVAL, handle.gone());
        }
        requireOpen(state);
    }

    /** As {@link #requireUsable}, the closed backend first (the order the CM identifiers' calls check in). */
    void requireLive(NativeHandle handle, BackendState state) throws NativeCallException {
        requireOpen(state);
        if (handle.destroyed) {
            throw refused(Abi.EINVAL, handle.gone());
        }
    }

    /** Refuses this call on a closed backend (ENODEV). */
    void requireOpen(BackendState state) throws NativeCallException {
        if (state.closed) {
            throw refused(Abi.ENODEV, "the RDMA backend is closed");
        }
    }

    /** This call refused by the backend itself, with the errno the library would give and why. */
    NativeCallException refused(int errno, String why) {
        return Natives.refused(name, errno, why);
    }

    // ------------------------------------------------------------------ failures

    /** The exception for this call failing with {@code errno}. */
    NativeCallException failed(int errno, String context) {
        return Natives.failure(name, errno, context);
    }

    /** What a downcall threw (only a bug in the backend: the linker itself throws nothing else). */
    NativeCallException unexpected(Throwable t) {
        return Natives.unexpected(name, t);
    }

    // ------------------------------------------------------------------ hot paths: typed, allocation-free

    /** {@code int f(ptr, ptr, ptr, ptr)}: the inline posts (function pointer, qp, wr, bad_wr). */
    int invoke(MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment d) throws NativeCallException {
        try {
            return (int) handle.invokeExact(a, b, c, d);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int f(ptr, ptr, int, ptr)}: the inline poll_cq (function pointer, cq, entries, wc). */
    int invoke(MemorySegment a, MemorySegment b, int c, MemorySegment d) throws NativeCallException {
        try {
            return (int) handle.invokeExact(a, b, c, d);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int f(ptr, ptr, int)}: the inline req_notify_cq (function pointer, cq, solicited_only). */
    int invoke(MemorySegment a, MemorySegment b, int c) throws NativeCallException {
        try {
            return (int) handle.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int f(ptr, ptr, ptr)}: ibv_get_cq_event without capture (channel, cq out, context out). */
    int invoke(MemorySegment a, MemorySegment b, MemorySegment c) throws NativeCallException {
        try {
            return (int) handle.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int f(capture, ptr, ptr, ptr)}: ibv_get_cq_event capturing errno, rdma_get_cm_event's shape plus one. */
    int invokeCapturing(MemorySegment capture, MemorySegment a, MemorySegment b, MemorySegment c)
            throws NativeCallException {
        try {
            return (int) handle.invokeExact(capture, a, b, c);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int f(capture, ptr, ptr)}: rdma_get_cm_event, ibv_get_async_event. */
    int invokeCapturing(MemorySegment capture, MemorySegment a, MemorySegment b) throws NativeCallException {
        try {
            return (int) handle.invokeExact(capture, a, b);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int f(capture, ptr)}: rdma_ack_cm_event. */
    int invokeCapturing(MemorySegment capture, MemorySegment a) throws NativeCallException {
        try {
            return (int) handle.invokeExact(capture, a);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int poll(struct pollfd *, nfds_t, int)} without capture. */
    int invoke(MemorySegment fds, long count, int timeout) throws NativeCallException {
        try {
            return (int) handle.invokeExact(fds, count, timeout);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int poll(struct pollfd *, nfds_t, int)} capturing errno. */
    int invokeCapturing(MemorySegment capture, MemorySegment fds, long count, int timeout) throws NativeCallException {
        try {
            return (int) handle.invokeExact(capture, fds, count, timeout);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ssize_t read/write(int, void *, size_t)} without capture. */
    long invoke(int fd, MemorySegment buffer, long count) throws NativeCallException {
        try {
            return (long) handle.invokeExact(fd, buffer, count);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code void f(ptr, int)}: ibv_ack_cq_events. */
    void invokeVoid(MemorySegment a, int b) throws NativeCallException {
        try {
            handle.invokeExact(a, b);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code void f(ptr)}: ibv_ack_async_event. */
    void invokeVoid(MemorySegment a) throws NativeCallException {
        try {
            handle.invokeExact(a);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code int f(int)}: close(2) without capture. */
    int invoke(int fd) throws NativeCallException {
        try {
            return (int) handle.invokeExact(fd);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }
}
