/**
 * The DiSNI 2.0 backend: the {@code VerbsBackend} seam over DiSNI's stateful verb calls and its JNI
 * library {@code libdisni}, which the operator installs (it is on neither Maven Central nor Debian).
 * The backend on JDK 17 to 21; on JDK 22+ the rdma-core backend is tried first. DiSNI's gaps (no
 * private data on accept, no reject, CM events without the peer's private data, IRD/ORD forced to
 * the device's maximum, IPv4 only) are declared in its features and worked around by the provider.
 * DiSNI's packages are embedded privately in this bundle; {@code sun.nio.ch} is needed only here.
 * Private to the bundle.
 *
 * <h2>Where each concern lives</h2>
 * <table>
 * <caption>The classes of the backend</caption>
 * <tr><th>class</th><th>owns</th></tr>
 * <tr><td>{@code DisniNativeAccess}</td><td>what the probe asks: loading {@code libdisni}, direct
 * buffer access, opening a backend on a new CM event channel</td></tr>
 * <tr><td>{@code DisniBackend}</td><td>the seam: each call handed to the class of its concern;
 * devices, protection domains, registrations ({@code ibv_reg_mr}, {@code ibv_dereg_mr})</td></tr>
 * <tr><td>{@code DisniCm}</td><td>the CM event channel and its identifiers: bind, listen, resolve,
 * connect, accept, disconnect, destroy, the addresses, the CM events</td></tr>
 * <tr><td>{@code DisniQp}, {@code ReceiveCallCache}</td><td>a queue pair and its posting: one
 * prepared send call per opcode, refilled per post; receive calls cached per buffer</td></tr>
 * <tr><td>{@code DisniCq}</td><td>a completion queue and its channel: polling into a reused
 * {@code IbvWC} array, arming, waiting for a completion event, destroying</td></tr>
 * </table>
 *
 * <h2>How a work request travels</h2>
 * The endpoint, under its lock (the one lock of a post: the backend takes none of its own), calls
 * {@code DisniBackend.postSend} → {@code DisniQp.postSend}: the prepared {@code SVCPostSend} of the
 * opcode gets the request's wr_id, flags, SGE, remote address and rkey and is executed (a Send with
 * Invalidate builds a one-off call: DiSNI cannot modify a built call's opcode or
 * {@code imm_data}); a receive runs the cached {@code SVCPostRecv} of its buffer
 * ({@code DisniQp.postRecv}). The provider's completion thread waits in {@code DisniCq.awaitEvent}
 * ({@code ibv_get_cq_event}, {@code ibv_ack_cq_events}), polls with {@code DisniCq.poll} (the
 * reused {@code SVCPollCq}, copied into the caller's {@code CompletionBatch}) and arms the queue
 * again with {@code requestNotify}.
 */
package smbdirect.rdma.verbs.internal.disni;
