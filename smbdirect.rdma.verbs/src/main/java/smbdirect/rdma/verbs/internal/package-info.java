/**
 * The verbs provider: the RDMA provider SPI over libibverbs and librdmacm, reached through one seam,
 * {@link smbdirect.rdma.verbs.internal.VerbsBackend} (DiSNI in production, package {@code disni};
 * a recording fake and a software loopback device in the tests). Not exported.
 *
 * <h2>The classes</h2>
 * <ul>
 * <li>{@link smbdirect.rdma.verbs.internal.VerbsRdmaProvider}: the {@code RdmaProvider}; one RDMA
 * CM event channel with its CM thread, and one {@link smbdirect.rdma.verbs.internal.CompletionGroup}
 * per device (protection domain, shared completion queue, the one thread that delivers every
 * callback of its endpoints).</li>
 * <li>{@link smbdirect.rdma.verbs.internal.VerbsEndpoint}: one RC queue pair and its CM identifier;
 * SPI calls become work requests ({@link smbdirect.rdma.verbs.internal.SendRequest},
 * {@link smbdirect.rdma.verbs.internal.WorkQueue}), completions and CM events become callbacks
 * ({@link smbdirect.rdma.verbs.internal.VerbsWorkCompletion}).
 * {@link smbdirect.rdma.verbs.internal.VerbsListener} and
 * {@link smbdirect.rdma.verbs.internal.VerbsConnectRequest}: the passive side;
 * {@link smbdirect.rdma.verbs.internal.VerbsMemoryRegion}: a registration.</li>
 * <li>{@link smbdirect.rdma.verbs.internal.VerbsProbe} (through
 * {@link smbdirect.rdma.verbs.internal.NativeAccess}) and
 * {@link smbdirect.rdma.verbs.internal.SysfsDevices}: whether the provider can run here, and if not
 * which piece is missing; {@link smbdirect.rdma.verbs.internal.VerbsSettings}: its validated
 * configuration.</li>
 * <li>{@link smbdirect.rdma.verbs.internal.VerbsConstants} and
 * {@link smbdirect.rdma.verbs.internal.StatusMapper}: the rdma-core numbers and their SPI
 * meanings.</li>
 * </ul>
 *
 * <h2>How a completion travels</h2>
 * The device's completion thread ({@code CompletionGroup}) polls the completion queue into a reused
 * {@link smbdirect.rdma.verbs.internal.CompletionBatch} → the high 32 bits of the wr_id name the
 * endpoint (slot and generation; a closed endpoint's completion is dropped) →
 * {@code VerbsEndpoint} takes the oldest entry of that work queue (the caller's wrId and the request
 * type) → the handler's {@code onCompletion}. CM events reach the same thread, so an endpoint's
 * callbacks are never concurrent and {@code onDisconnected} comes after the last flushed
 * completion.
 */
package smbdirect.rdma.verbs.internal;
