package smbdirect.impl.engine;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * Reusable tasks that carry a work completion to a connection's serial context when it arrives
 * while the context is busy (for example delivered inline from a {@code post} made on the context).
 * A ring of tasks taken in order: the provider delivers one endpoint's completions one at a time,
 * and the serial context runs them in the order they were submitted, so a task is free again once
 * the context has copied its values out. The ring starts with {@link #INITIAL} tasks and doubles
 * when the next task is still in use (a burst: one {@code pump} posting many fragments whose
 * completions arrive while it runs), up to {@link #MAX}; beyond that {@link #obtain} returns
 * {@code null} and the caller falls back to a one-off task.
 *
 * <p>Thread-safety: {@link #obtain} is called by the (one at a time) completion producer; each task's
 * {@code run} on the serial context. The queue hand-off of the serial context publishes the values;
 * the volatile {@code inUse} flag publishes the release.
 */
final class CompletionTasks {

    /** Tasks per connection at first; created on the first completion that finds the context busy. */
    static final int INITIAL = 8;
    /** Most tasks per connection. */
    static final int MAX = 512;

    private final Connection connection;
    private Task[] tasks;
    private int next;

    CompletionTasks(Connection connection) {
        this.connection = connection;
    }

    /** Producer: a task holding {@code wc}'s values, or {@code null} when the ring is exhausted. */
    Runnable obtain(WorkCompletion wc) {
        if (tasks == null) {
            tasks = new Task[INITIAL];
            for (int i = 0; i < INITIAL; i++) {
                tasks[i] = new Task(connection);
            }
        }
        Task t = tasks[next];
        if (t.inUse) {
            if (tasks.length == MAX) {
                return null;
            }
            grow();
            t = tasks[next];
        }
        t.wrId = wc.wrId();
        t.type = wc.type();
        t.status = wc.status();
        t.length = wc.byteLength();
        t.invalidated = wc.hasInvalidatedToken();
        t.token = wc.invalidatedToken();
        t.vendorError = wc.vendorError();
        t.inUse = true;
        next = (next + 1) & (tasks.length - 1);
        return t;
    }

    /**
     * Doubles the ring: the old tasks in ring order from {@code next} (the oldest in flight first),
     * then new free tasks, and continues with the first new one.
     */
    private void grow() {
        int n = tasks.length;
        Task[] bigger = new Task[n * 2];
        for (int i = 0; i < n; i++) {
            bigger[i] = tasks[(next + i) & (n - 1)];
        }
        for (int i = n; i < 2 * n; i++) {
            bigger[i] = new Task(connection);
        }
        tasks = bigger;
        next = n;
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
