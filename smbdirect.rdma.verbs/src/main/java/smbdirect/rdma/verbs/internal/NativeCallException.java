package smbdirect.rdma.verbs.internal;

import java.io.IOException;

/**
 * A native RDMA call that failed: names the call and the {@code errno} it left (or returned, for the
 * verbs that return it). Immutable.
 */
public final class NativeCallException extends IOException {

    private static final long serialVersionUID = 1L;

    /** {@code ECONNREFUSED}: an iWARP connect found no listener (TCP reset). */
    public static final int ECONNREFUSED = 111;

    private final String call;
    private final int errno;

    /**
     * @param call the C function ({@code rdma_connect}, {@code ibv_post_send}, ...)
     * @param errno the error number, 0 when the call set none
     * @param errnoName its symbolic name and text ({@code ECONNREFUSED (Connection refused)}), may be empty
     * @param context what the call was about, may be empty
     */
    public NativeCallException(String call, int errno, String errnoName, String context) {
        super(call + " failed: " + (errno == 0 ? "no errno" : "errno " + errno
                + (errnoName.isEmpty() ? "" : " " + errnoName)) + (context.isEmpty() ? "" : " (" + context + ")"));
        this.call = call;
        this.errno = errno;
    }

    /** The C function that failed. */
    public String call() {
        return call;
    }

    /** Its errno (0 when none). */
    public int errno() {
        return errno;
    }
}
