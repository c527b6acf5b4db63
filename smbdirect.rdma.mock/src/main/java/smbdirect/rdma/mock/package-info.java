/**
 * Control API of the in-JVM RDMA fabric: an {@link smbdirect.api.rdma.RdmaProvider} with
 * reliable-connected queue-pair semantics for tests and benchmarks.
 *
 * <p>Entry point: {@link smbdirect.rdma.mock.MockFabric#builder()}. A fabric holds providers
 * ({@link smbdirect.rdma.mock.MockProvider}, one per simulated device, each with its own IP
 * address), the endpoints they create ({@link smbdirect.rdma.mock.MockEndpoint}) and the
 * listeners. Fault injection lives on providers and endpoints; a test can be the far end of a
 * connection at the message level with a {@link smbdirect.rdma.mock.RawPeer}.
 *
 * <h2>What the fabric punishes, like an RNIC</h2>
 * <ul>
 * <li>A Send consumes exactly one receive posted by the peer (FIFO). No posted receive:
 * {@link smbdirect.api.rdma.CompletionStatus#RECEIVER_NOT_READY} at the sender (RNR retry 0).
 * A message longer than the receive: {@code LOCAL_LENGTH_ERROR} at the receiver,
 * {@code REMOTE_INVALID_REQUEST} at the sender. Both break the connection on both sides with
 * {@link smbdirect.api.rdma.DisconnectCause#QP_ERROR}.</li>
 * <li>RDMA Read and Write are checked against a live region of the peer endpoint (token, access,
 * address range): {@code REMOTE_ACCESS_ERROR} at the issuer, broken connection.</li>
 * <li>A Send with Invalidate naming no valid region of the receiver: {@code REMOTE_INVALID_REQUEST}
 * at the sender, {@code LOCAL_PROTECTION_ERROR} on the consumed receive, broken connection.</li>
 * <li>A work request naming an invalidated, deregistered or foreign local region, or bytes
 * outside it: {@code LOCAL_PROTECTION_ERROR}, broken connection.</li>
 * <li>Posting beyond the queue depth, or on an endpoint that is not connected, throws
 * {@link smbdirect.api.rdma.RdmaException}. A queue slot is free again once its completion has
 * been handed to the handler (before the handler runs).</li>
 * <li>Every break flushes the work requests that had not executed with
 * {@code FLUSHED}, each exactly once, after the completions already generated, and then delivers
 * {@code onDisconnected} as the last callback.</li>
 * </ul>
 *
 * <h2>Buffers</h2>
 * Bytes move when a work request executes: inside the {@code post} call in
 * {@link smbdirect.rdma.mock.DeliveryMode#INLINE} and {@link smbdirect.rdma.mock.DeliveryMode#THREADED},
 * when stepped in {@link smbdirect.rdma.mock.DeliveryMode#DETERMINISTIC}. A consumer that changes a
 * buffer between post and completion therefore sends the changed bytes in deterministic mode, as
 * hardware may. {@link smbdirect.api.rdma.MemoryRegion#buffer()} returns the same view on every
 * call; the fabric uses absolute operations on a view of its own, so the consumer may move the
 * view's position and limit freely. Registrations need direct buffers.
 *
 * <h2>Threads</h2>
 * See {@link smbdirect.rdma.mock.DeliveryMode}. Every type of this package is thread-safe unless
 * its documentation says otherwise. The fabric never calls a handler while holding a lock of its
 * own.
 *
 * <h2>A handler that throws</h2>
 * Every failure of a handler is logged and listed in {@link smbdirect.rdma.mock.MockFabric#leaks()}.
 * An {@link Error} ({@link AssertionError} included: a test's own check) also goes up to the thread
 * that delivered the callback, once the fabric's state is consistent again: out of
 * {@code step()} or {@code runUntilIdle()} in {@link smbdirect.rdma.mock.DeliveryMode#DETERMINISTIC},
 * out of the {@code post} call in {@link smbdirect.rdma.mock.DeliveryMode#INLINE}; a
 * {@link smbdirect.rdma.mock.DeliveryMode#THREADED} worker logs it and goes on. A
 * {@link RuntimeException} does not stop delivery.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("3.0.0")
package smbdirect.rdma.mock;
