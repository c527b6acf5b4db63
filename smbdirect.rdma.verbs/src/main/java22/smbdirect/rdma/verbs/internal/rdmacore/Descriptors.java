package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;

import smbdirect.rdma.verbs.internal.NativeCallException;

/**
 * The file descriptors the backend waits on (the CM event channel, the completion channels and
 * their wake eventfds, the devices' async event files): made non-blocking, waited for with
 * {@code poll(2)} without allocating.
 */
final class Descriptors {

    private Descriptors() {
    }

    /** Sets O_NONBLOCK on {@code fd} (fcntl F_GETFL / F_SETFL). */
    static void nonBlocking(int fd, String what) throws NativeCallException {
        NativeFunction fcntl = Natives.FCNTL;
        int flags = fcntl.call("F_GETFL of " + what, (h, a, capture) -> (int) h.invokeExact(capture, fd, Abi.F_GETFL, 0));
        fcntl.call("F_SETFL O_NONBLOCK of " + what,
                (h, a, capture) -> (int) h.invokeExact(capture, fd, Abi.F_SETFL, flags | Abi.O_NONBLOCK));
    }

    /**
     * poll(2) on {@code count} descriptors; false on timeout or EINTR. Allocation-free: the call does
     * not capture errno; a failed one is asked again (timeout 0) through the capturing handle to
     * learn why.
     */
    static boolean waitReadable(MemorySegment pollFd, long count, MemorySegment capture, int timeoutMillis,
            String what) throws NativeCallException {
        for (long i = 0; i < count; i++) {
            pollFd.set(JAVA_SHORT, i * Abi.POLLFD.byteSize() + Abi.POLLFD_REVENTS, (short) 0);
        }
        int rc = Natives.POLL_QUIET.invoke(pollFd, count, timeoutMillis);
        if (rc < 0) {
            rc = Natives.POLL.invokeCapturing(capture, pollFd, count, 0);
            if (rc < 0) {
                int errno = Natives.errno(capture);
                if (errno == Abi.EINTR) {
                    return false;
                }
                throw Natives.POLL.failed(errno, what);
            }
        }
        return rc > 0;
    }
}
