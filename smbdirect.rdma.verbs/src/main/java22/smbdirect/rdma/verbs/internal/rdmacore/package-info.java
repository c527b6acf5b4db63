/**
 * The rdma-core backend: the {@code VerbsBackend} seam over Debian's (or any distribution's)
 * {@code libibverbs.so.1} and {@code librdmacm.so.1} through the Foreign Function &amp; Memory API,
 * compiled for release 22 and loaded only on a JDK 22+ runtime; nothing is built on the appliance.
 * Private to the bundle.
 *
 * <h2>Where each concern lives</h2>
 * <table>
 * <caption>The classes of the backend</caption>
 * <tr><th>class</th><th>owns</th></tr>
 * <tr><td>{@code RdmaCoreAccess}</td><td>what the probe asks: loading the libraries, the device
 * list, one device's attributes and port ({@code ibv_query_device}, {@code ibv_query_port}), a type 2
 * window's trial; opening a backend on a new CM event channel</td></tr>
 * <tr><td>{@code RdmaCoreBackend}</td><td>the seam: each call handed to the class of its concern;
 * closing (identifiers, then the channel)</td></tr>
 * <tr><td>{@code Natives}, {@code NativeFunction}</td><td>every C function bound once, a
 * {@code static final} constant the JIT folds; the one wrapper each call goes through: a failure
 * becomes a {@code NativeCallException} naming the call and its errno, a destroyed handle or a
 * closed backend ({@code BackendState}) is refused before anything reaches C; the errno texts</td></tr>
 * <tr><td>{@code Abi}</td><td>the C layouts, offsets and constants, checked against rdma-core's
 * headers by a compiled probe in the tests</td></tr>
 * <tr><td>{@code NativeHandle} and {@code CmIdHandle}, {@code DeviceHandle}, {@code PdHandle},
 * {@code CqHandle}, {@code QpHandle}, {@code MrHandle}, {@code MwHandle}</td><td>one handle per
 * native object, with its state under its monitor, and what its hot paths reuse (the prepared work
 * requests of a queue pair, the {@code ibv_wc} array and pollfds of a completion queue)</td></tr>
 * <tr><td>{@code ConnectionManager}, {@code CmStructs}</td><td>the CM event channel and its
 * identifiers: bind, listen, resolve, connect, accept, reject, disconnect, destroy; the CM events;
 * {@code sockaddr_in}/{@code sockaddr_in6} and {@code rdma_conn_param}</td></tr>
 * <tr><td>{@code Registrations}</td><td>protection domains and registered memory</td></tr>
 * <tr><td>{@code QueuePairs}</td><td>creating, querying and destroying queue pairs; posting
 * (lock-free: the caller serializes the posts of a queue pair)</td></tr>
 * <tr><td>{@code CompletionQueues}</td><td>completion channels and queues: polling, arming,
 * waiting for a completion event, waking a wait</td></tr>
 * <tr><td>{@code MemoryWindows}</td><td>type 2 memory windows (bound by a posted work request)</td></tr>
 * <tr><td>{@code AsyncEvents}, {@code AsyncEventReader}</td><td>the devices' asynchronous events:
 * one reader thread per device context for the JVM, each event acknowledged before it is handed to
 * the backend that owns its object</td></tr>
 * <tr><td>{@code Descriptors}</td><td>non-blocking descriptors and the {@code poll(2)} waits</td></tr>
 * </table>
 *
 * <h2>How a work request travels</h2>
 * The endpoint, under its lock (the one lock of a post: the backend takes none of its own), calls
 * {@code RdmaCoreBackend.postSend} → {@code QueuePairs.postSend}: the post announces itself
 * ({@code QpHandle.posting}, which a destroy waits out after it retired the queue pair) and refuses
 * a retired queue pair or a closed backend; the
 * queue pair's one native {@code ibv_send_wr} and {@code ibv_sge} ({@code QpHandle}) are refilled
 * from the {@code SendRequest} (a memory window bind names its window and region instead of the
 * SGE) → {@code Natives.POST_SEND} calls {@code ibv_context.ops.post_send} through the function
 * pointer read once when the queue pair was created, as {@code <infiniband/verbs.h>} does inline; a
 * non-zero result is the errno, thrown as {@code ibv_post_send failed: errno ...}. A receive takes
 * the same way through {@code postRecv}. The device completes the request into the completion
 * queue; the provider's completion thread waits in {@code CompletionQueues.awaitEvent}
 * ({@code poll(2)} on the completion channel and the wake eventfd, then {@code ibv_get_cq_event} and
 * {@code ibv_ack_cq_events}), polls with {@code CompletionQueues.poll} ({@code ops.poll_cq} into the
 * queue's native {@code ibv_wc} array, copied field by field into the caller's
 * {@code CompletionBatch}) and arms the queue again with {@code requestNotify}. None of these
 * allocates: the segments are the handles', the function handles are constants, errno is captured
 * only after a call failed.
 */
package smbdirect.rdma.verbs.internal.rdmacore;
