package smbdirect.rdma.mock;

/** How a fabric executes work requests and delivers callbacks. */
public enum DeliveryMode {
    /**
     * Nothing runs by itself. Posting a Send, RDMA Read/Write or local invalidate queues the
     * work request; connection requests, establishment, completions and disconnects are queued as
     * callbacks. The test drives the fabric with {@link MockFabric#step()} (one transmission or one
     * callback, in global FIFO order) or {@link MockFabric#runUntilIdle()}. Callbacks run on the
     * thread calling {@code step}. Receives are posted at once.
     */
    DETERMINISTIC,
    /**
     * Work requests execute inside the {@code post} call and the callbacks they cause are
     * delivered synchronously before the call returns, re-entrantly when the handler posts from a
     * callback (up to 4 nested deliveries on a thread; deeper work is delivered by the outermost
     * delivery before it returns, so handlers that answer each other cannot overflow the stack).
     * A callback due to an endpoint whose callbacks are already running on another thread is
     * delivered by that thread instead. No allocation per operation.
     */
    INLINE,
    /**
     * Work requests execute inside the {@code post} call; callbacks run on a fixed set of daemon
     * threads named {@code smbdirect-mock-<fabric>-<n>} (see
     * {@link MockFabric.Builder#completionThreads(int)}). Each endpoint or listener is bound to one
     * of them for its life, so its callbacks run one at a time, in order. The thread takes up to 64
     * of an endpoint's queued callbacks at once, as a poll of a completion queue does: their work
     * requests leave the queue depth together, before the first of them is delivered. An idle
     * thread spins briefly, then yields, then parks until work is queued for it. No allocation per
     * operation.
     * The threads stop when the fabric is closed.
     */
    THREADED
}
