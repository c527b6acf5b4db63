package smbdirect.rdma.iwarp;

/**
 * A snapshot of an {@link IwarpProvider}'s state. Immutable.
 *
 * @param listeners open listeners
 * @param endpoints endpoints created and not yet closed
 * @param connections TCP connections held (connecting, in MPA setup, established or closing)
 * @param pendingRequests accepted TCP connections whose MPA Request is awaited or undecided
 * @param terminatesSent Terminate messages sent (protocol or protection errors found here)
 * @param terminatesReceived Terminate messages received from peers
 */
public record IwarpStatistics(int listeners, int endpoints, int connections, int pendingRequests,
        long terminatesSent, long terminatesReceived) {
}
