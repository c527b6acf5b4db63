package smbdirect.rdma.iwarp;

/**
 * Peer-to-peer mode of MPA revision 2 (RFC 6581 §5): whether the initiator asks for a
 * "ready to receive" (RTR) frame after the MPA Reply, and which kinds it offers. A responder
 * always answers a peer's request correctly whatever this setting is.
 */
public enum RtrMode {
    /** No peer-to-peer mode (Linux siw's default): the initiator's first FPDU is the ULP's first message. */
    NONE,
    /** Offer a zero-length RDMA Write as RTR. */
    WRITE,
    /** Offer a zero-length RDMA Read as RTR (it takes one ORD slot; the peer needs IRD of at least 1). */
    READ,
    /** Offer both, as Linux siw does when peer-to-peer is on; the responder picks (siw: Write). */
    WRITE_OR_READ
}
