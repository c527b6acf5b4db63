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
 * whichever thread finds it idle) runs every state change of a connection, one task at a time.
 * Provider completions run inline when the context is idle and are queued when they arrive
 * re-entrantly from inside a post call.</li>
 * <li>Classes are named after the ADM of [MS-SMBD] 3.1.1.1: {@code Connection} (the ADM and the
 * state machine), {@code CreditManager} (3.1.5.9 with posted-but-ungranted receives counted apart,
 * A-13), {@code OutMessage} (an entry of Connection.SendQueue, fragmented by 3.1.5.4),
 * {@code Reassembler} (3.1.5.8), {@code DescriptorSlicer} (3.1.4.5 / 3.1.4.6),
 * {@link smbdirect.impl.engine.KeepaliveRequested}, {@link smbdirect.impl.engine.Role}.</li>
 * </ul>
 *
 * <h2>Buffers</h2>
 * Per connection, one receive region ((ReceiveCreditMax + 1) x MaxReceiveSize) and one send region
 * are registered once after negotiation and sliced into slots. A message sent is copied once into
 * send slots; a single-fragment message received is handed up as a read-only view of its receive
 * slot during the callback; a fragmented one is copied once into a reassembly buffer bounded by
 * MaxFragmentedRecvSize, and receive slots are reposted as soon as their bytes were consumed. The
 * steady-state receive path allocates nothing; a send issued while the connection's serial context
 * is idle, or from inside one of its callbacks, reuses a pooled send-queue entry and allocates
 * nothing either (a send that has to queue behind other threads' work gets a new entry).
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
