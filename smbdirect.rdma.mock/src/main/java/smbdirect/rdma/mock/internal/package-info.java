/**
 * The in-JVM RDMA fabric behind {@link smbdirect.rdma.mock.MockFabric}: the implementation of
 * the provider SPI that every engine test runs on. Not exported.
 *
 * <h2>Where each concern lives</h2>
 * <table>
 * <caption>The classes of the fabric</caption>
 * <tr><th>class</th><th>owns</th></tr>
 * <tr><td>{@code FabricImpl}</td><td>providers, the listener table, the endpoint registry, keys,
 * addresses and ports, the DETERMINISTIC action queue, the THREADED delivery workers, the leak
 * report</td></tr>
 * <tr><td>{@code MockDevice}</td><td>one simulated device: its capabilities, listeners and
 * endpoints, device faults (removal, refused connections, failed registrations)</td></tr>
 * <tr><td>{@code MockListener}, {@code ConnectRequestImpl}</td><td>listening, and a connection
 * request in flight from the active endpoint to a listener</td></tr>
 * <tr><td>{@code MockQueuePair}</td><td>a queue pair: state, connection setup, registrations
 * ({@code MockRegion}, {@code IntMap}), posting of pooled work requests ({@code Wr}), the
 * inspection API; it states the lock protocol of the fabric</td></tr>
 * <tr><td>{@code Execution}</td><td>what a send-queue work request does at the peer, with an
 * RNIC's checks and punishments</td></tr>
 * <tr><td>{@code FaultInjection}</td><td>the faults a test arms on an endpoint</td></tr>
 * <tr><td>{@code MockTeardown}</td><td>breaks, disconnect, close, crash, a removed device</td></tr>
 * <tr><td>{@code Deliverable}, {@code Event}, {@code DeliveryWorker}</td><td>the callbacks of an
 * endpoint or listener: queued as pooled events under the connection's lock, delivered one at a
 * time outside it, inline, on a worker thread or when stepped</td></tr>
 * <tr><td>{@code RawPeerImpl}</td><td>a scripted far end for tests, built on the SPI</td></tr>
 * </table>
 *
 * <h2>How a Send travels</h2>
 * {@code MockQueuePair.postSend} → {@code postSendQueue}: under the connection's lock the state and
 * the queue depth are checked and a pooled {@code Wr} is filled → it executes at once (INLINE,
 * THREADED) or waits for its {@code TransmitTicket} to be stepped (DETERMINISTIC) →
 * {@code Execution.execute}: the faults armed, the local region, then {@code send}: the peer's
 * next posted receive is consumed, checked and filled, and both completions are queued as
 * {@code Event}s (or the connection breaks, {@code MockTeardown}) → after the lock is released,
 * {@code signal} has {@code Deliverable} deliver them: {@code onCompletion} at the sender and the
 * receiver, each in its queue's order, never under a lock.
 */
package smbdirect.rdma.mock.internal;
