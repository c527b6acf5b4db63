package smbdirect.impl.engine;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * Reusable tasks that carry a work completion to a connection's serial context when it arrives
 * while the context is busy (for example delivered inline from a {@code post} made on the context).
 * A ring of {@link #SIZE} tasks taken in order: the provider delivers one endpoint's completions one
 * at a time, and the serial context runs them in the order they were submitted, so a task is free
 * again once the context has copied its values out. When the next task of the ring is still in use,
 * {@link #obtain} returns {@code null} and the caller falls back to a one-off task.
 *
 * <p>Thread-safety: {@link #obtain} is called by the (one at a time) completion producer; each task's
 * {@code run} on the serial context. The queue hand-off of the serial context publishes the values;
 * the volatile {@code inUse} flag publishes the release.
 */
final class CompletionTasks {

    /** Tasks per connection; created on the first completion that finds the context busy. */
    static final int SIZE = 8;

    private final Connection connection;
    private Task[] tasks;
    private int next;

    CompletionTasks(Connection connection) {
        this.connection = connection;
    }

    /** Producer: a task holding {@code wc}'s values, or {@code null} when the ring is exhausted. */
    Runnable obtain(WorkCompletion wc) {
        if (tasks == null) {
            tasks = new Task[SIZE];
            for (int i = 0; i < SIZE; i++) {
                tasks[i] = new Task(connection);
            }
        }
        Task t = tasks[next];
        if (t.inUse) {
            return null;
        }
        t.wrId = wc.wrId();
        t.type = wc.type();
        t.status = wc.status();
        t.length = wc.byteLength();
        t.invalidated = wc.hasInvalidatedToken();
        t.token = wc.invalidatedToken();
        t.vendorError = wc.vendorError();
        t.inUse = true;
        next = (next + 1) & (SIZE - 1);
        return t;
    }

    private static final class Task implements Runnable {
        private final Connection connection;
        volatile boolean inUse;
        long wrId;
        WorkRequestType type;
        CompletionStatus status;
        int length;
        boolean invalidated;
        int token;
        int vendorError;

        Task(Connection connection) {
            this.connection = connection;
        }

        @Override
        public void run() {
            long w = wrId;
            WorkRequestType ty = type;
            CompletionStatus st = status;
            int len = length;
            boolean inv = invalidated;
            int tok = token;
            int vendor = vendorError;
            type = null;
            status = null;
            inUse = false;
            connection.handleCompletion(w, ty, st, len, inv, tok, vendor);
        }
    }
}
