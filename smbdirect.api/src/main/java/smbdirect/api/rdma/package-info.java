/**
 * The RDMA provider SPI: what the SMB Direct engine needs from an RDMA stack, modelled on the
 * verbs nouns (connection manager, queue pair, memory region, work completion).
 *
 * <p>A provider ({@code mock}, {@code verbs}) registers an {@link smbdirect.api.rdma.RdmaProvider}
 * service with the property {@link smbdirect.api.rdma.RdmaProvider#PROVIDER_NAME} and a
 * {@code service.ranking}.
 *
 * <h2>Reliable-connected semantics</h2>
 * An endpoint is a reliable-connected queue pair: message boundaries are kept; each Send consumes
 * exactly one receive posted by the peer; a Send that finds no posted receive at the peer
 * (receiver not ready, RNR retry count 0) or that is longer than the posted receive breaks the
 * connection on both sides; RDMA Read and Write are checked against the peer's live memory region
 * (token, access, bounds) and a violation breaks the connection.
 *
 * <h2>iWARP</h2>
 * On iWARP (RDMAP over DDP over MPA over TCP, RFC 5040/5041/5044) there is no acknowledgement and
 * no receiver-not-ready retry: a Send or RDMA Write completes with SUCCESS once it was handed to TCP,
 * and a completed Write is placed at the peer only when the peer reaches it on the stream (a later
 * Read Response or message of the peer shows it). A failure at the receiver (no receive posted, a
 * receive too short, a bad token, access right or bounds for a Write) reaches the sender as the
 * peer's Terminate message: the sender's connection ends with {@code QP_ERROR} and a detail naming
 * the Terminate's layer, type and code, everything not yet completed is flushed, and the receiver
 * ends too. An RDMA Read that the peer refuses completes with {@code REMOTE_ACCESS_ERROR} as
 * everywhere. The responder of a connection sends nothing before the initiator's first message
 * arrived (RFC 5044 §7.1.2): its posted Sends, Writes and Reads wait until then.
 *
 * <h2>Callbacks</h2>
 * <ul>
 * <li>Callbacks for one endpoint (or one listener) are never concurrent with each other.</li>
 * <li>Completions of one work queue (send queue, receive queue) arrive in the order the work
 * requests were posted, each exactly once.</li>
 * <li>A provider never calls a handler while holding a lock of its own; a handler may call back
 * into the provider. A provider may deliver a callback synchronously from inside a {@code post}
 * call (inline completion), so handlers must tolerate re-entry.</li>
 * <li>{@link smbdirect.api.rdma.RdmaEndpointHandler#onDisconnected} is the last callback of an
 * endpoint: before it, every work request still outstanding has completed (with
 * {@link smbdirect.api.rdma.CompletionStatus#FLUSHED} if it could not execute).</li>
 * <li>Handlers must not block: they run on provider threads.</li>
 * </ul>
 *
 * <h2>Buffers</h2>
 * Memory is registered per endpoint (RFC 5042: registrations are scoped to their connection).
 * Work requests name a registered region, an offset and a length; the region's bytes belong to the
 * provider from the post until the completion.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package smbdirect.api.rdma;
