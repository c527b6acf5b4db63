/**
 * The [MS-SMBD] protocol engine: {@link smbdirect.impl.engine.SmbDirectEngine} implements the
 * upper-layer transport over one RDMA provider.
 *
 * <h2>Shape</h2>
 * <ul>
 * <li>No OSGi, no threads, no clock of its own: time and timers come from an injected
 * {@link smbdirect.impl.engine.Scheduler} ({@link smbdirect.impl.engine.ExecutorScheduler} in
 * production, a virtual clock in tests).</li>
 * <li>One serial owner per connection: a {@code SerialExecutor} (a lock-free queue drained by
 * whichever thread finds it idle) runs every state change of a connection, one task at a time, so
 * nothing in a connection needs a lock. Provider callbacks run inline when the context is idle and
 * are queued ({@code ProviderEvents}) when they arrive re-entrantly from inside a post call.</li>
 * <li>A connection is a small core plus one class per concern, each owning its state and named
 * after the words of [MS-SMBD]; they collaborate through small methods, never through each other's
 * fields. Each concern is given the collaborators it uses when it is made (below) and keeps only the
 * core for the core's own work: the state machine, the endpoint, the upper layer's handler,
 * {@code close} and {@code callbackFailed}.</li>
 * </ul>
 *
 * <h2>Where each concern lives</h2>
 * <table>
 * <caption>The classes of one connection</caption>
 * <tr><th>class</th><th>[MS-SMBD]</th><th>owns</th></tr>
 * <tr><td>{@code Connection}</td><td>3.1.1.1</td><td>the core: identity, state machine, serial
 * context, endpoint, the upper layer's handler, the wiring; work completions go to the concern that
 * posted them by the kind in their work request id</td></tr>
 * <tr><td>{@code Negotiation}, {@code ActiveNegotiation}, {@code PassiveNegotiation}</td><td>3.1.4.1,
 * 3.1.7.2, 3.1.5.2 - 3.1.5.7, appendix 6</td><td>the negotiated ADM values (Role, Protocol, the
 * sizes, IRD/ORD), the initial region, the connect stage (active), the connection request and the
 * failure response (passive), the queue-pair sizing</td></tr>
 * <tr><td>{@code SendPath}</td><td>3.1.4.2, 3.1.5.1, 3.1.5.4</td><td>Connection.SendQueue, the
 * send buffers ({@code SendBuffers}) and what each slot carries, the pooled send-queue entries
 * ({@code OutMessage}); fragments are built by {@code Fragmenter}</td></tr>
 * <tr><td>{@code ReceivePath}</td><td>3.1.5.8, receive posting of 3.1.5.9</td><td>the receive
 * buffers ({@code BufferPool}), reassembly ({@code Reassembler}), InvalidatedToken, SendImmediate,
 * delivery to the upper layer</td></tr>
 * <tr><td>{@code CreditManager}</td><td>3.1.5.9, the credit rules of 3.1.5.1, 3.1.5.6 - 3.1.5.8</td>
 * <td>SendCredits, ReceiveCredits, the targets and maxima, receives posted but not yet granted; every
 * credit rule</td></tr>
 * <tr><td>{@code Timers}</td><td>3.1.2, 3.1.6</td><td>the Negotiation Timer, the Idle Connection
 * Timer with KeepaliveRequested, the Credit Grant Timer</td></tr>
 * <tr><td>{@code MemoryRegistrations}</td><td>3.1.4.3, 3.1.4.4</td><td>the upper layer's
 * registrations ({@code RegisteredBufferImpl}) and their local and remote invalidation</td></tr>
 * <tr><td>{@code RdmaOperations}</td><td>3.1.4.5, 3.1.4.6</td><td>RDMA Reads and Writes
 * ({@code RdmaOp}, sliced by {@code DescriptorSlicer}) and their work-request slots</td></tr>
 * <tr><td>{@code Closing}</td><td>3.1.7.1</td><td>closing once for any cause, failing queued and
 * flushed work, releasing everything, telling the upper layer once; the reasons for closing</td></tr>
 * </table>
 *
 * <h2>How they are wired</h2>
 * {@code SmbDirectEngine} makes a {@code Connection} with its settings as they stand; the connection
 * makes its concerns in this order, each given, as constructor parameters, what it uses:
 * <ol>
 * <li>{@code SerialExecutor} and {@code ProviderEvents} (whose sink hands completions to the
 * connection's dispatch, establishment to {@code Negotiation}, the disconnect to {@code Closing});</li>
 * <li>{@code CreditManager}: the credit target and maximum of the settings;</li>
 * <li>{@code Timers}: the serial context, the engine's scheduler, the settings, the credits (for the
 * reason of a credit grant timeout) and the send loop as {@code Timers.SendLoop};</li>
 * <li>{@code MemoryRegistrations}: the serial context and {@code ConnectionLoss};</li>
 * <li>{@code RdmaOperations}: the serial context, the registrations and {@code ConnectionLoss};</li>
 * <li>{@code ReceivePath}: the engine (for the trace), the credits, the timers, the registrations and
 * {@code ConnectionLoss};</li>
 * <li>{@code SendPath}: the engine (for the trace), the serial context, the settings, the credits, the
 * timers, the receive path as its {@code ReceiveSide} and {@code ConnectionLoss};</li>
 * <li>{@code Negotiation} ({@code ActiveNegotiation} or {@code PassiveNegotiation} by role): the
 * engine (for the provider and the trace), the serial context, the credits, the timers, both paths,
 * the RDMA operations, {@code ConnectionLoss} and the settings it negotiates with;</li>
 * <li>{@code Closing}, last: the engine (scheduler, clock, the connection's end), the serial context
 * and every concern it stops, fails or releases.</li>
 * </ol>
 * Two needs point forward and each is met by a narrow interface, never by a setter: the timers make
 * the send loop send a keepalive ({@code Timers.SendLoop}: {@code pump}, {@code queueDepth}), and the
 * concerns made before {@code Closing} close after a refused post, name a failed work request's
 * reason or ask whether a message still goes up while closing ({@code ConnectionLoss}, which
 * {@code Closing} implements). The connection hands them a forwarder of each, made once. The send
 * and receive paths meet only through {@code ReceiveSide}, which {@code ReceivePath} implements: the
 * send loop asks it for receives to post and grant and for Connection.SendImmediate; the receive path
 * never calls the send loop, {@code ReceivePath.onCompleted} tells the connection's dispatch when to
 * run it. Settings are pushed: {@code Timers} and {@code SendPath} are given them when made and again
 * by {@code SmbDirectEngine.updateSettings} through {@code Connection.onSettingsChanged} (also for a
 * connection made while the settings changed); the negotiation negotiates with those the connection
 * was made with (the passive side's Negotiation Timer is the timers' own). No concern asks the engine
 * for its settings.
 *
 * <h2>How a send travels</h2>
 * {@code Connection.send} → {@code SendPath.submit} takes a pooled {@code OutMessage} and enters
 * the serial context (or queues the entry behind the work already waiting) → {@code enqueue} puts
 * it on Connection.SendQueue → the send loop {@code pump} asks {@code CreditManager} whether a
 * Send Credit is held and whether the last one may be spent, {@code Timers} for the Flags,
 * {@code CreditManager.onSend} for the credits to grant → {@code Fragmenter} copies the next
 * fragment into a registered send slot → {@code RdmaEndpoint.postSend}. When the Send completes,
 * {@code Connection.onCompletion} hands it to {@code SendPath.onCompleted}, which frees the slot,
 * calls the upper layer's completion once the last fragment of the message completed and runs the
 * loop again.
 *
 * <h2>How a received fragment travels</h2>
 * {@code Connection.onCompletion} (inline when the context is idle) → {@code ReceivePath.onCompleted}
 * → the message restarts the Idle Connection Timer ({@code Timers.messageReceived}), is checked
 * ({@code DataTransfer.check}), consumes a credit and updates the targets and the peer's grant
 * ({@code CreditManager}), may ask for a prompt reply (it sets Connection.SendImmediate, which the
 * send loop reads through {@code ReceiveSide}), may name a token the peer invalidated
 * ({@code MemoryRegistrations.remotelyInvalidated}) →
 * {@code Reassembler}: a single-fragment message goes up as a view of its receive slot, the last
 * fragment of a fragmented one goes up from the reassembly buffer after the receives were reposted
 * → {@code ConnectionHandler.onMessage} → {@code ReceivePath.onCompleted} returns whether the send
 * loop is due, and {@code Connection.handleCompletion} runs it, granting the reposted receives.
 *
 * <h2>Buffers</h2>
 * Per connection, one receive region ((ReceiveCreditMax + 1) x MaxReceiveSize) is registered once
 * after negotiation and sliced into slots; the send buffers start with a few slots and grow by
 * registered chunks up to the usable send credits + 1. A message sent is copied once into send
 * slots; a single-fragment message received is handed up as a read-only view of its receive slot
 * during the callback; a fragmented one is copied once into a reassembly buffer bounded by
 * MaxFragmentedRecvSize, and receive slots are reposted as soon as their bytes were consumed. The
 * steady-state send and receive paths allocate nothing: send-queue entries, RDMA operations and the
 * serial context's queue are pooled or preallocated.
 *
 * <h2>Interpretations of the specification</h2>
 * <ul>
 * <li>A-8: a RESPONSE_REQUESTED message is answered promptly with Flags 0.</li>
 * <li>A-13: receives posted during negotiation are granted by the first Data Transfer message.</li>
 * <li>A-15 / peer-lessons 3: empty credit grants go out only when the peer holds fewer than
 * {@code creditRefillFraction} x its target; grants otherwise ride on the next message.</li>
 * <li>A-16: the last Send Credit is spent only together with a grant that includes one more
 * receive (R-3.1.5.9-04), so two peers at one credit each settle.</li>
 * <li>A-27 / peer-lessons 4: grants and flags ride on the next fragment; no other message is sent
 * between the fragments of one upper-layer message.</li>
 * <li>A-30: a continuation fragment must satisfy DataLength + RemainingDataLength =
 * FragmentReassemblyRemaining.</li>
 * </ul>
 */
package smbdirect.impl.engine;
