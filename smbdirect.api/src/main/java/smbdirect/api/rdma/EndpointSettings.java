package smbdirect.api.rdma;

/**
 * Sizing of a queue pair.
 *
 * @param sendQueueDepth send work requests (Sends, RDMA Reads and Writes, invalidates) that may be
 *     outstanding at once
 * @param receiveQueueDepth receives that may be posted at once
 */
public record EndpointSettings(int sendQueueDepth, int receiveQueueDepth) {
    public EndpointSettings {
        if (sendQueueDepth < 1 || receiveQueueDepth < 1) {
            throw new IllegalArgumentException("queue depths must be positive: send " + sendQueueDepth
                    + ", receive " + receiveQueueDepth);
        }
    }
}
