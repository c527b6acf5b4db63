/**
 * The verbs provider: SMB Direct's {@code RdmaProvider} on RDMA NICs (iWARP, RoCE, InfiniBand) and
 * on Linux's software devices (siw, rxe), private to the bundle.
 *
 * <h2>Shape</h2>
 * <ul>
 * <li>{@code VerbsRdmaProvider} owns one RDMA CM event channel and its
 * thread ({@code CmDispatcher}), and per device up to {@code completionGroups}
 * {@code CompletionGroup}s ({@code DeviceGroups}: each a completion queue on its own completion
 * vector and the one thread that delivers every callback of its endpoints; all on the device's one
 * protection domain, {@code DeviceDomain}); {@code DeviceEvents} hands the device's asynchronous
 * events to its groups.</li>
 * <li>An endpoint is one queue pair: a core, {@code VerbsEndpoint} (its state and lock, each CM
 * event handed to its concern), plus one class per concern, created with it: {@code EndpointSetup},
 * {@code EndpointRegistrations}, {@code EndpointPosting}, {@code EndpointCompletions},
 * {@code EndpointDeadlines}, {@code EndpointEnding}.</li>
 * <li>Every native call goes through the {@code VerbsBackend} seam:
 * the rdma-core backend ({@code internal.rdmacore}, JDK 22+, no native build; its package-info maps
 * its classes) or DiSNI ({@code internal.disni}). What a backend cannot do it says in its features,
 * and the provider works around it; a native call that fails is a {@code NativeCallException}
 * naming the call and errno.</li>
 * <li>{@code VerbsProbe} decides at activation whether the provider
 * can run here (backend, device, address, limits, CM) and names what is missing;
 * {@code StatusMapper} turns verbs completion statuses and device
 * events into the SPI's outcomes and disconnect causes.</li>
 * </ul>
 * The OSGi component and its configuration live in {@code internal.osgi}.
 *
 * <h2>Where each concern lives</h2>
 * <table>
 * <caption>The classes of the provider</caption>
 * <tr><th>class</th><th>owns</th></tr>
 * <tr><td>{@code VerbsRdmaProvider}</td><td>the SPI provider: settings and capabilities, creating
 * listeners and endpoints (an endpoint's queue pair on its device's group), start and shutdown</td></tr>
 * <tr><td>{@code CmDispatcher}</td><td>the CM thread and its events: the endpoints and listeners by
 * identifier, each event handed to its owner (a connection request to its listener, an endpoint's
 * event to its group thread)</td></tr>
 * <tr><td>{@code VerbsListener}, {@code VerbsConnectRequest}</td><td>listeners and their connect
 * requests</td></tr>
 * <tr><td>{@code DeviceGroups}</td><td>the completion group of each device in use: created with its
 * first user, retired with its last, started with the provider, stopped at its shutdown</td></tr>
 * <tr><td>{@code DeviceEvents}</td><td>the device's asynchronous events: queue pair and completion
 * queue events to the group thread, a fatal device, a port down or up; the port's state, the last
 * events</td></tr>
 * <tr><td>{@code VerbsEndpoint}</td><td>the SPI endpoint: its state and lock, the queue pair's error
 * evidence, each CM event handed to its concern</td></tr>
 * <tr><td>{@code EndpointSetup}</td><td>connect (address and route resolution, {@code rdma_connect}),
 * accept, ESTABLISHED and {@code onEstablished}, the read depths asked and in effect, when the
 * current phase began</td></tr>
 * <tr><td>{@code EndpointEnding}</td><td>the end for any cause (a CM event, a failed completion, an
 * asynchronous event, the port down, a deadline, {@code disconnect}, the provider's shutdown), the
 * first cause and its refinement, {@code rdma_disconnect} or the flush at once,
 * {@code onDisconnected}; {@code close} and the passive side's reject</td></tr>
 * <tr><td>{@code EndpointDeadlines}</td><td>the group thread's watch: a phase of setup that got no
 * answer, the device's flushes awaited until {@code flushTimeoutMillis}</td></tr>
 * <tr><td>{@code EndpointRegistrations}, {@code VerbsMemoryRegion}</td><td>registrations, windows
 * bound over memory the peer may access, deregistration, the regions a peer's Send with Invalidate
 * names</td></tr>
 * <tr><td>{@code EndpointPosting}, {@code OutstandingRequests}, {@code SendRequest}</td><td>posting:
 * the checks, the record of each request in post order, the one reused send request</td></tr>
 * <tr><td>{@code EndpointCompletions}</td><td>completions in post order, window binds, deferred
 * local invalidations, FLUSHED completions of an ending endpoint</td></tr>
 * <tr><td>{@code DeviceGroups}, {@code DeviceDomain}</td><td>a device's completion groups: how many,
 * which one a new endpoint joins, their lifetime; the protection domain they share</td></tr>
 * <tr><td>{@code CompletionGroup}, {@code CompletionBatch}</td><td>a completion queue of a device
 * and its thread: polling, arming, waiting, deadlines, tasks</td></tr>
 * <tr><td>{@code VerbsBackend} and its implementations</td><td>the native calls: the rdma-core
 * backend ({@code internal.rdmacore}) and DiSNI ({@code internal.disni}: {@code DisniBackend}, the
 * seam; {@code DisniCm}, {@code DisniQp} and its posting, {@code DisniCq}); each package-info maps
 * its classes</td></tr>
 * </table>
 *
 * <h2>How a work request travels</h2>
 * {@code VerbsEndpoint.postSend} (any thread; {@code postRdmaWrite}, {@code postRdmaRead},
 * {@code postReceive} alike) → {@code EndpointRegistrations.usable} checks the region is this
 * endpoint's, registered, and holds the bytes → {@code EndpointPosting.post}: under the endpoint's
 * lock, the one lock a post takes, the state and the room are checked, the caller's wr_id, type and
 * length are recorded in the send queue's {@code OutstandingRequests} ring, the reused
 * {@code SendRequest} is filled (the wr_id the device sees is the endpoint's key, the queue is known
 * by a flag), and {@code VerbsBackend.postSend} posts it (rdma-core: {@code QueuePairs.postSend}
 * refills the queue pair's native work request and calls {@code ibv_post_send} through the
 * context's ops; DiSNI: {@code DisniQp.postSend} refills the prepared call of the opcode; neither
 * backend takes a lock of its own). With the queue pair in the error state nothing reaches the
 * device: the request is recorded and the group thread flushes it at once
 * ({@code VerbsEndpoint.watchNow}, after the lock is left).
 * The device completes it into the group's completion queue: {@code CompletionGroup} polls
 * ({@code VerbsBackend.poll} into its {@code CompletionBatch}: rdma-core's
 * {@code CompletionQueues.poll}, DiSNI's {@code DisniCq.poll}), finds the endpoint by the key in the
 * wr_id and calls {@code EndpointCompletions.onWorkCompletion}: a first successful completion
 * before the CM's ESTABLISHED has {@code EndpointSetup} deliver {@code onEstablished} first, the
 * oldest record of that queue is taken off (the device completes each queue in order), the status
 * translated ({@code StatusMapper}), a peer's Send with Invalidate marks its region, and
 * {@code onCompletion} gets one reused {@code MutableWorkCompletion} with the caller's wr_id. A
 * failed completion ends the connection ({@code EndpointEnding.endOnFailedCompletionHeld}, then
 * {@code afterEnding}: {@code rdma_disconnect} and the device's flushes, or FLUSHED completions at
 * once), and once both queues are empty {@code EndpointEnding.maybeFinish} delivers
 * {@code onDisconnected}. Nothing on this way allocates.
 */
package smbdirect.rdma.verbs.internal;
