package smbdirect.rdma.iwarp.internal;

import java.nio.channels.SelectionKey;

/** What an {@link IoLoop} dispatches ready channels to. Called on the loop's thread only. */
interface IoHandler {

    /** The channel of {@code key} is ready for {@code readyOps}. */
    void onReady(SelectionKey key, int readyOps);

    /** {@link #onReady} threw: fail this connection only (an I/O thread never dies). */
    void onCrash(Throwable failure);
}
