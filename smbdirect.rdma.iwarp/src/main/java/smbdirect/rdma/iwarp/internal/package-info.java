/**
 * The software iWARP provider: RDMAP (RFC 5040), DDP (RFC 5041) and MPA (RFC 5044, RFC 6581) over
 * TCP sockets, behind the provider SPI {@code smbdirect.api.rdma}. Not exported; the way in is
 * {@link smbdirect.rdma.iwarp.IwarpProvider} (or the OSGi component in {@code internal.osgi}).
 *
 * <h2>Shape</h2>
 * <ul>
 * <li>Threads: {@code ioThreads} {@code IoLoop}s, each a selector, a queue of control tasks, a
 * lock-free work list of endpoints with new work requests, and {@code Deadline}s. A connection
 * lives on one loop: its {@code Channel} (the socket and its graceful end) hands ready events to
 * its owner, an {@code IoHandler}: the MPA setup first, then the endpoint. Everything of a
 * connection, the handler's callbacks included, runs on its loop; only posting, registering and
 * the SPI's connection calls come from other threads ({@code IwarpEndpoint} states its lock).</li>
 * <li>An endpoint is a small core, {@code IwarpEndpoint} (state, SPI, I/O dispatch), plus one class
 * per concern, created with it; they collaborate through small package-private methods. The wire
 * codecs are in {@code internal.wire}.</li>
 * <li>Zero allocation per operation in steady state: work requests are pooled in rings
 * ({@code WorkRequestRing}), headers and trailers come from preallocated arenas, payload is read and
 * written in place through views of the registered memory ({@code IwarpRegion}).</li>
 * </ul>
 *
 * <h2>Where each concern lives</h2>
 * <table>
 * <caption>The classes of the provider</caption>
 * <tr><th>class</th><th>owns</th></tr>
 * <tr><td>{@code IwarpDevice}, {@code IwarpListener}</td><td>the loops, the connection caps, the
 * listening sockets; accepted connections are spread over the loops</td></tr>
 * <tr><td>{@code PassiveSetup}, {@code ActiveSetup}</td><td>MPA connection setup (RFC 5044 §7.1,
 * RFC 6581): the responder reads the Request, is the {@code RdmaConnectRequest} and writes the
 * Reply; the initiator connects, writes the Request and reads the Reply; both with their timeouts;
 * the decisions are {@code MpaNegotiation}'s, the frames {@code MpaSetup}'s</td></tr>
 * <tr><td>{@code IwarpEndpoint}</td><td>the SPI endpoint: its state and lock, entering RDMA mode
 * ({@code establish}), the I/O dispatch of RDMA mode</td></tr>
 * <tr><td>{@code RegionTable}, {@code IwarpRegion}</td><td>registrations: STags, base addresses,
 * rights, the views the transmit and receive paths use</td></tr>
 * <tr><td>{@code SendAndReceiveQueues} ({@code WorkRequestRing}, {@code SendWr}, {@code RecvWr})</td><td>posting,
 * flushing, and completions in post order (one {@code MutableWorkCompletion} of the SPI, refilled)</td></tr>
 * <tr><td>{@code Transmitter}</td><td>the send queue and the peer's Read Requests
 * ({@code InboundReads}) into FPDUs, gathering writes, PAD and CRC</td></tr>
 * <tr><td>{@code Receiver}</td><td>MPA framing and CRC of the stream, staged or direct reads, the
 * peer's Terminate</td></tr>
 * <tr><td>{@code Placement}</td><td>DDP placement and RDMAP dispatch: the checks of each segment,
 * where its payload goes, what it completes; our Read Requests waiting for their Response
 * ({@code OutboundReads})</td></tr>
 * <tr><td>{@code ReadAhead}</td><td>the prediction of the FPDUs after the one being read, into
 * posted receives and the sink of our RDMA Read, checked before anything counts</td></tr>
 * <tr><td>{@code Termination}</td><td>our Terminates and the peer's (RFC 5040 §4.8)</td></tr>
 * <tr><td>{@code Invalidation}</td><td>local invalidate, Send with Invalidate, the check of a
 * request's own region</td></tr>
 * <tr><td>{@code IwarpTeardown}</td><td>the end, once, for any cause: Terminate, FIN, FLUSHED, the last
 * callback</td></tr>
 * <tr><td>{@code PathFpdu}, {@code Words}</td><td>the FPDU size of a path; settings and counters
 * in words</td></tr>
 * </table>
 *
 * <h2>How an FPDU travels from the socket to a completion</h2>
 * The loop's selector finds the socket readable → {@code Channel.onReady} → the owner,
 * {@code IwarpEndpoint.onReady} → {@code Receiver.onReadable}: while the peer's FPDUs are small, one
 * read takes up to 128 KiB of the stream into the loop's staging buffer ({@code IoLoop.staging}),
 * which {@code Receiver.feed} frames piece by piece into the same places the direct read uses; for
 * large FPDUs one scattering read takes the rest of the current FPDU's payload straight into
 * {@code Placement.target()} (a {@code IwarpRegion} view: the posted receive of a Send, the
 * registration an RDMA Write names, the sink of our Read), its PAD and CRC, the first 20 bytes of the
 * next FPDU and, for Sends and Read Responses, the FPDUs {@code ReadAhead} predicts → {@code Receiver.startFpdu} checks the header (DDP and RDMAP version,
 * opcode, ULPDU_Length) → {@code Placement.start} checks the segment for its opcode (QN, MSN, MO, a
 * posted receive long enough; STag, key, rights, bounds; the oldest outstanding Read; IRD) and
 * chooses its target → the CRC32C runs over the bytes in place → {@code Receiver.finishFpdu}
 * checks the CRC → {@code Placement.finish}: the last segment of a Send completes its
 * {@code RecvWr} (a Send with Invalidate through {@code Invalidation.remoteInvalidate}), the last
 * of a Read Response completes our Read's {@code SendWr}, a Read Request joins
 * {@code InboundReads} for the {@code Transmitter} → {@code ReadAhead.replay} hands the predicted
 * FPDUs to the same checks, or spills them → {@code SendAndReceiveQueues.deliver} frees the ring slots at the
 * head of both queues and calls {@code onCompletion} in post order. A failed check goes to
 * {@code Termination.failReceive} → {@code IwarpTeardown.end}: the Terminate after the rest of a partly
 * written FPDU, FIN, every outstanding request FLUSHED, {@code onDisconnected}.
 *
 * <h2>How a post travels to the socket</h2>
 * {@code IwarpEndpoint.postSend} (any thread) → {@code SendAndReceiveQueues.postSend}: the region checked
 * ({@code RegionTable.usable}), then under the endpoint's lock the state and the room checked, the
 * next pooled {@code SendWr} of the send queue's {@code WorkRequestRing} filled and published →
 * {@code IoLoop.schedule} puts the endpoint on the loop's work list (the selector is woken only
 * when the loop sleeps) → on the loop, {@code IwarpEndpoint.runScheduled} → {@code Transmitter.pump}:
 * the next request (between messages at most 4 Read Responses in a row while the send queue waits;
 * the responder's gate opens with the initiator's first FPDU), its region checked
 * ({@code Invalidation.checkLocal}), cut into DDP segments of the connection's FPDU size
 * ({@code PathFpdu}), each FPDU a header from the arena, a view of the registered memory and its
 * PAD and CRC, up to 64 FPDUs in one gathering write; what TCP does not take waits for OP_WRITE →
 * a Send or RDMA Write whose last FPDU was written is done ({@code SendAndReceiveQueues.completionsReady}) →
 * {@code SendAndReceiveQueues.deliver} → {@code onCompletion}. An RDMA Read goes out as a Read Request and
 * waits in {@code OutboundReads} for its Read Response (above). A local invalidate needs no wire.
 *
 * <h2>How a connection is set up</h2>
 * Passive: {@code IwarpListener} accepts → {@code PassiveSetup} reads the MPA Request on a loop →
 * the listener's handler gets it as the {@code RdmaConnectRequest} → {@code createEndpoint},
 * {@code accept} → {@code PassiveSetup.sendReply} writes the Reply → {@code IwarpEndpoint.establish}
 * creates the {@code Transmitter} and {@code Receiver}. Active: {@code connect} →
 * {@code ActiveSetup} opens the TCP connection, writes the Request, reads the Reply →
 * {@code MpaNegotiation.reply} → {@code IwarpEndpoint.establish} → the initiator's gate opens (its
 * RTR frame first when peer-to-peer was negotiated).
 */
package smbdirect.rdma.iwarp.internal;
