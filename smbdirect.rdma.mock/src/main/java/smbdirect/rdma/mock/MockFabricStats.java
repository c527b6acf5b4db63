package smbdirect.rdma.mock;

/**
 * Live counts of a fabric at one moment.
 *
 * @param providers providers (devices) of the fabric, removed or not
 * @param listeners listeners not closed and not failed
 * @param endpoints endpoints not closed (and not crashed)
 * @param connectedEndpoints endpoints in state {@link MockEndpoint.State#CONNECTED}
 * @param pendingConnectRequests connection requests neither accepted nor rejected
 * @param postedReceives receives posted and not yet completed
 * @param outstandingWorkRequests work requests of all queues whose completion has not been delivered
 * @param registeredRegions memory regions registered and not deregistered
 */
public record MockFabricStats(int providers, int listeners, int endpoints, int connectedEndpoints,
        int pendingConnectRequests, int postedReceives, int outstandingWorkRequests, int registeredRegions) {
}
