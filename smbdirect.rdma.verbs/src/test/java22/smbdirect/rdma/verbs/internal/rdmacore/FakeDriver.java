package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * The test driver of src/test/c/fake_verbs_driver.c, compiled and loaded: an ibv_context whose ops
 * record what they are handed and complete what the test scripts, queue pairs and completion
 * queues on it, and pipe-backed event channels.
 */
final class FakeDriver {

    private static FakeDriver instance;

    private final MethodHandle context;
    private final MethodHandle qp;
    private final MethodHandle cq;
    private final MethodHandle eventChannel;
    private final MethodHandle unboundId;
    private final MethodHandle script;
    private final MethodHandle autoComplete;
    private final MethodHandle postResult;
    private final MethodHandle sendField;
    private final MethodHandle recvField;
    private final MethodHandle calls;
    private final MethodHandle pd;
    private final MethodHandle mr;
    private final MethodHandle allocMwErrno;
    private final MethodHandle mws;

    private FakeDriver(Path library) {
        SymbolLookup lib = SymbolLookup.libraryLookup(library, Arena.global());
        context = fn(lib, "fake_context", FunctionDescriptor.of(ADDRESS));
        qp = fn(lib, "fake_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        cq = fn(lib, "fake_cq", FunctionDescriptor.of(ADDRESS, ADDRESS));
        eventChannel = fn(lib, "fake_event_channel", FunctionDescriptor.of(ADDRESS, ADDRESS));
        unboundId = fn(lib, "fake_unbound_id", FunctionDescriptor.of(ADDRESS));
        script = fn(lib, "fake_script_completion", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        autoComplete = fn(lib, "fake_auto_complete", FunctionDescriptor.ofVoid(JAVA_INT));
        postResult = fn(lib, "fake_post_result", FunctionDescriptor.ofVoid(JAVA_INT));
        sendField = fn(lib, "fake_send_field", FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
        recvField = fn(lib, "fake_recv_field", FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
        calls = fn(lib, "fake_calls", FunctionDescriptor.ofVoid(ADDRESS));
        pd = fn(lib, "fake_pd", FunctionDescriptor.of(ADDRESS, ADDRESS));
        mr = fn(lib, "fake_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT,
                JAVA_INT));
        allocMwErrno = fn(lib, "fake_alloc_mw_errno", FunctionDescriptor.ofVoid(JAVA_INT));
        mws = fn(lib, "fake_mws", FunctionDescriptor.ofVoid(ADDRESS));
    }

    static synchronized FakeDriver load() throws Exception {
        if (instance == null) {
            instance = new FakeDriver(NativeBuild.compile("fake_verbs_driver.c", "libfake_verbs_driver.so",
                    "-shared", "-fPIC"));
        }
        return instance;
    }

    private static MethodHandle fn(SymbolLookup lib, String name, FunctionDescriptor d) {
        return Natives.LINKER.downcallHandle(lib.find(name).orElseThrow(), d);
    }

    MemorySegment context() throws Throwable {
        return (MemorySegment) context.invokeExact();
    }

    MemorySegment qp(MemorySegment ctx, int qpNum) throws Throwable {
        return (MemorySegment) qp.invokeExact(ctx, qpNum);
    }

    MemorySegment cq(MemorySegment ctx) throws Throwable {
        return (MemorySegment) cq.invokeExact(ctx);
    }

    /** A malloc'ed rdma_event_channel on a pipe; returns the channel and puts the pipe's write end in {@code writeFd}. */
    MemorySegment eventChannel(MemorySegment writeFd) throws Throwable {
        return (MemorySegment) eventChannel.invokeExact(writeFd);
    }

    MemorySegment unboundId() throws Throwable {
        return (MemorySegment) unboundId.invokeExact();
    }

    void script(long wrId, int status, int opcode, int vendorErr, int byteLen, int invalidatedRkey, int wcFlags,
            int qpNum) throws Throwable {
        script.invokeExact(wrId, status, opcode, vendorErr, byteLen, invalidatedRkey, wcFlags, qpNum);
    }

    void autoComplete(boolean on) throws Throwable {
        autoComplete.invokeExact(on ? 1 : 0);
    }

    void postResult(int errno) throws Throwable {
        postResult.invokeExact(errno);
    }

    long send(int field) throws Throwable {
        return (long) sendField.invokeExact(field);
    }

    long recv(int field) throws Throwable {
        return (long) recvField.invokeExact(field);
    }

    MemorySegment pd(MemorySegment ctx) throws Throwable {
        return (MemorySegment) pd.invokeExact(ctx);
    }

    MemorySegment mr(MemorySegment ctx, MemorySegment pd, long addr, long length, int lkey, int rkey) throws Throwable {
        return (MemorySegment) mr.invokeExact(ctx, pd, addr, length, lkey, rkey);
    }

    void allocMwErrno(int errno) throws Throwable {
        allocMwErrno.invokeExact(errno);
    }

    /** Memory windows allocated, deallocated, and the type the last allocation asked for. */
    long[] mws() throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG, 3);
            mws.invokeExact(out);
            return out.toArray(JAVA_LONG);
        }
    }

    /** post_send, post_recv, poll_cq, req_notify_cq calls so far. */
    long[] calls() throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG, 4);
            calls.invokeExact(out);
            return out.toArray(JAVA_LONG);
        }
    }
}
