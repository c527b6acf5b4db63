package smbdirect.rdma.iwarp.internal;

/** An RDMA Read Request the peer sent (one IRD slot, RFC 5040 §5.4): I/O thread only. */
final class InboundRead {
    int msn;
    int sinkStag;
    long sinkTo;
    /** RDMA Read Message Size, unsigned. */
    long size;
    int sourceStag;
    long sourceTo;
    /** The source region once checked at the start of the Read Response. */
    IwarpRegion source;
    /** Payload bytes of the Read Response put into FPDUs. */
    int sent;
    boolean started;
}
