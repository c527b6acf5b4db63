/**
 * The verbs provider: SMB Direct's {@code RdmaProvider} on RDMA NICs (iWARP, RoCE, InfiniBand) and
 * on Linux's software devices (siw, rxe), private to the bundle.
 *
 * <p>How it is put together:
 * <ul>
 * <li>{@code VerbsRdmaProvider} owns one RDMA CM event channel and its
 * thread, and one {@code CompletionGroup} per device (protection
 * domain, shared completion queue, the one thread that delivers every callback of its endpoints);
 * {@code VerbsEndpoint} is one queue pair with its
 * {@code OutstandingRequests} records and its memory regions and windows.</li>
 * <li>Every native call goes through the {@code VerbsBackend} seam:
 * the rdma-core backend ({@code internal.rdmacore}, JDK 22+, no native build) or DiSNI
 * ({@code internal.disni}). What a backend cannot do it says in its features, and the provider works
 * around it; a native call that fails is a {@code NativeCallException}
 * naming the call and errno.</li>
 * <li>{@code VerbsProbe} decides at activation whether the provider
 * can run here (backend, device, address, limits, CM) and names what is missing;
 * {@code StatusMapper} turns verbs completion statuses and device
 * events into the SPI's outcomes and disconnect causes.</li>
 * </ul>
 * The OSGi component and its configuration live in {@code internal.osgi}.
 */
package smbdirect.rdma.verbs.internal;
