package smbdirect.api.rdma;

/** The RDMA transport a provider's device speaks. */
public enum TransportType {
    /** iWARP (RDMAP/DDP/MPA over TCP); SMB Direct listens on port 5445 and uses the 6.1 IRD/ORD header. */
    IWARP,
    /** InfiniBand reliable connected. */
    INFINIBAND,
    /** RDMA over Converged Ethernet. */
    ROCE
}
