package smbdirect.rdma.iwarp.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * Metatype of the software iWARP provider (configuration PID {@code smbdirect.rdma.iwarp}); the
 * attributes are those of {@link smbdirect.rdma.iwarp.IwarpSettings}, plus the service ranking.
 */
@ObjectClassDefinition(name = "SMB Direct software iWARP provider",
        description = "RDMA over plain TCP (RFC 5040/5041/5044/6581), wire-compatible with Linux soft-iWARP (siw) "
                + "and iWARP RNICs. SMB Direct over iWARP uses TCP port 5445 ([MS-SMBD] 2.1).")
public @interface IwarpConfiguration {

    @AttributeDefinition(name = "Listen addresses",
            description = "Where a listener may open a port: ADDRESS (any port), ADDRESS:PORT, [IPV6]:PORT, * (any "
                    + "address) or *:PORT; IP literals only, several separated by commas. No port is opened except by "
                    + "an explicit listen on an address allowed here; empty: connects only. SMB Direct over iWARP "
                    + "uses port 5445.")
    String[] listenAddresses() default {"127.0.0.1:5445"};

    @AttributeDefinition(name = "MPA CRC",
            description = "Ask for CRC32C on every FPDU (RFC 5044 §6); it is used when either side asks. iWARP RNICs "
                    + "usually require it")
    boolean crc() default true;

    @AttributeDefinition(name = "Max FPDU size",
            description = "Largest FPDU sent in bytes, header, pad and CRC included: 0 (the default) sizes the FPDUs of "
                    + "each connection to its path's TCP MSS as Linux siw does (1448 on 1500-byte Ethernet, 65480 on "
                    + "loopback), or a multiple of 4 from 64 to 65536. RNICs expect FPDUs that fit a TCP segment",
            min = "0", max = "65536")
    int maxFpduSize() default 0;

    @AttributeDefinition(name = "I/O threads", description = "Threads serving the TCP connections", min = "1",
            max = "64")
    int ioThreads() default 2;

    @AttributeDefinition(name = "MPA Request timeout (ms)",
            description = "How long an accepted TCP connection may take to send its MPA Request (Linux siw: 5 s)",
            min = "1", max = "600000")
    int mpaRequestTimeoutMillis() default 5000;

    @AttributeDefinition(name = "MPA Reply timeout (ms)",
            description = "How long a connect may take up to the complete MPA Reply (Linux siw: 10 s)", min = "1",
            max = "600000")
    int mpaReplyTimeoutMillis() default 10000;

    @AttributeDefinition(name = "TCP_NODELAY", description = "Disable Nagle's algorithm (Linux siw does)")
    boolean tcpNoDelay() default true;

    @AttributeDefinition(name = "Send buffer size", description = "SO_SNDBUF in bytes; 0: the system default",
            min = "0")
    int sendBufferSize() default 0;

    @AttributeDefinition(name = "Receive buffer size", description = "SO_RCVBUF in bytes; 0: the system default",
            min = "0")
    int receiveBufferSize() default 0;

    @AttributeDefinition(name = "Connection cap",
            description = "TCP connections the provider holds at once (connecting, in MPA setup, established); further "
                    + "ones are refused", min = "1", max = "1000000")
    int maxConnections() default 1024;

    @AttributeDefinition(name = "Pending connection cap",
            description = "Accepted TCP connections whose MPA Request is not complete yet, held at once (each for at most "
                    + "the MPA Request timeout); further ones are closed at once, so that a flood of connects or half-open "
                    + "handshakes leaves the rest of the connection cap to established connections and connects",
            min = "1", max = "1000000")
    int maxPendingConnections() default 128;

    @AttributeDefinition(name = "MPA revision",
            description = "What an initiator asks for: 2 (RFC 6581 with the IRD/ORD word, as Linux siw) or 1 (RFC 5044 "
                    + "only, for peers that speak nothing else). A responder answers what the initiator asks",
            options = {@Option(label = "2 (RFC 6581)", value = "2"), @Option(label = "1 (RFC 5044)", value = "1")})
    int mpaRevision() default 2;

    @AttributeDefinition(name = "Peer-to-peer RTR",
            description = "The RTR frames an initiator offers (RFC 6581 §5); a responder answers a peer's request "
                    + "whatever this says",
            options = {@Option(label = "None (siw's default)", value = "NONE"),
                @Option(label = "Zero-length RDMA Write", value = "WRITE"),
                @Option(label = "Zero-length RDMA Read", value = "READ"),
                @Option(label = "Write or Read (the responder picks)", value = "WRITE_OR_READ")})
    String peerToPeer() default "NONE";

    @AttributeDefinition(name = "Max read depth", description = "Largest IRD and ORD of an endpoint (Linux siw: 128)",
            min = "1", max = "128")
    int maxReadDepth() default 16;

    @AttributeDefinition(name = "First FPDU delay (ms)",
            description = "How long an initiator waits after the MPA Reply before its first FPDU. Linux siw 6.1 as "
                    + "responder can leave an FPDU that arrives right after its Reply unread (its accept race); 500 "
                    + "avoids it when connecting to siw (ksmbd over siw). 0: send at once", min = "0", max = "10000")
    int firstFpduDelayMillis() default 0;

    @AttributeDefinition(name = "Service ranking",
            description = "Ranking of the RdmaProvider service (the verbs provider: 100, the mock: -100)")
    int service_ranking() default 50;
}
