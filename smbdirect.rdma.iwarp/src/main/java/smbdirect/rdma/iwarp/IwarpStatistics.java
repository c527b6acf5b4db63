package smbdirect.rdma.iwarp;

/**
 * A snapshot of an {@link IwarpProvider}'s state. Immutable.
 *
 * @param listeners open listeners
 * @param endpoints endpoints created and not yet closed
 * @param connections TCP connections held (connecting, in MPA setup, established or closing)
 * @param pendingRequests accepted TCP connections whose MPA Request is awaited or undecided
 * @param registrations memory registrations alive on the provider's endpoints (each reachable by
 *     its peer only with the access it was granted)
 * @param terminatesSent Terminate messages sent (protocol or protection errors found here)
 * @param terminatesReceived Terminate messages received from peers
 * @param internalErrors failures inside the provider that ended a connection (or a task) through
 *     its internal-error path instead of a protocol check: 0 unless the provider has a defect;
 *     each one is logged at ERROR with its stack trace
 */
public record IwarpStatistics(int listeners, int endpoints, int connections, int pendingRequests, int registrations,
        long terminatesSent, long terminatesReceived, long internalErrors) {
}
