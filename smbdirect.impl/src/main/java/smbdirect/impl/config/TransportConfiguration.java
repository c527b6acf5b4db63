package smbdirect.impl.config;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Configuration of the SMB Direct transport, PID {@value #PID}: the component property type of the
 * OSGi transport component and the attribute names, defaults and checks of the plain-Java entry
 * point's settings ({@link TransportConfigurations#fromProperties}).
 *
 * <p>Attribute names are the ADM names of [MS-SMBD] 3.1.1.1 where the spec has one; the unit is
 * part of the name where it is not bytes or a count. Defaults are Windows' (spec appendix B notes
 * 2, 3, 4 and 8). Values that are negotiated (credits, sizes, read depths) apply to connections
 * negotiated after the change; timers apply to live connections too. A configuration with a bad
 * value is refused as a whole: one log line names the attribute and the value, and the last good
 * settings stay in force.
 */
@ObjectClassDefinition(
        name = "SMB Direct Transport",
        description = "Credits, message sizes, timers and the RDMA provider of the SMB Direct ([MS-SMBD]) transport."
                + " Negotiated values (credits, sizes, read depths) apply to connections negotiated after a change;"
                + " timers apply to live connections too. A bad value refuses the whole change; the last good"
                + " settings stay in force and the log names the attribute.")
public @interface TransportConfiguration {

    /** The configuration PID (also the name of the OSGi transport component). */
    String PID = "smbdirect.transport";


    int RECEIVE_CREDIT_MAX_DEFAULT = 255;
    int SEND_CREDIT_TARGET_DEFAULT = 255;
    int MAX_SEND_SIZE_DEFAULT = 1364;
    int MAX_RECEIVE_SIZE_DEFAULT = 8192;
    int MAX_FRAGMENTED_RECV_SIZE_DEFAULT = 1048576;
    int MAX_READ_WRITE_SIZE_DEFAULT = 8388608;
    long KEEPALIVE_INTERVAL_SECONDS_DEFAULT = 120;
    long KEEPALIVE_RESPONSE_TIMEOUT_SECONDS_DEFAULT = 5;
    long ACTIVE_NEGOTIATION_TIMEOUT_SECONDS_DEFAULT = 120;
    long PASSIVE_NEGOTIATION_TIMEOUT_SECONDS_DEFAULT = 5;
    long CREDIT_GRANT_TIMEOUT_MILLIS_DEFAULT = 5000;
    double CREDIT_REFILL_FRACTION_DEFAULT = 0.9;
    int INBOUND_READ_DEPTH_DEFAULT = 8;
    int OUTBOUND_READ_DEPTH_DEFAULT = 8;
    int MAX_CONNECTIONS_PER_LISTENER_DEFAULT = 4096;
    int MAX_NEGOTIATING_PER_LISTENER_DEFAULT = 256;
    long RECEIVE_BUFFER_BUDGET_MB_DEFAULT = 4096;
    long DRAIN_TIMEOUT_SECONDS_DEFAULT = 10;
    String PROVIDER_TARGET_DEFAULT = "(smbdirect.provider=*)";

    @AttributeDefinition(name = "Receive credit max", min = "1", max = "65535",
            description = "Connection.ReceiveCreditMax: the most receive credits (posted receive buffers) granted"
                    + " to the peer. Windows: 255. Applies to new connections.")
    int receiveCreditMax() default RECEIVE_CREDIT_MAX_DEFAULT;

    @AttributeDefinition(name = "Send credit target", min = "1", max = "65535",
            description = "Connection.SendCreditTarget: the Send Credits asked of the peer (CreditsRequested)."
                    + " Windows: 255. Applies to new connections.")
    int sendCreditTarget() default SEND_CREDIT_TARGET_DEFAULT;

    @AttributeDefinition(name = "Max send size (bytes)", min = "128", max = "1048576",
            description = "Connection.MaxSendSize offered in negotiation: the largest Data Transfer message this"
                    + " side sends, in bytes. Windows: 1364. Applies to new connections.")
    int maxSendSize() default MAX_SEND_SIZE_DEFAULT;

    @AttributeDefinition(name = "Max receive size (bytes)", min = "128", max = "1048576",
            description = "Connection.MaxReceiveSize: the largest Data Transfer message this side accepts, in"
                    + " bytes (spec floor 128, R-3.1.5.6-07). Windows: 8192. Applies to new connections.")
    int maxReceiveSize() default MAX_RECEIVE_SIZE_DEFAULT;

    @AttributeDefinition(name = "Max fragmented receive size (bytes)", min = "131072", max = "1073741824",
            description = "Connection.MaxFragmentedRecvSize: the largest upper-layer message this side reassembles,"
                    + " in bytes (spec floor 131072, R-3.1.5.6-08). Windows: 1048576. Applies to new connections.")
    int maxFragmentedRecvSize() default MAX_FRAGMENTED_RECV_SIZE_DEFAULT;

    @AttributeDefinition(name = "Max read/write size (bytes)", min = "4096", max = "1073741824",
            description = "Connection.MaxReadWriteSize: the largest single RDMA Read or Write, in bytes; offered"
                    + " when passive, the cap when active. Windows: 8388608. Applies to new connections.")
    int maxReadWriteSize() default MAX_READ_WRITE_SIZE_DEFAULT;

    @AttributeDefinition(name = "Keepalive interval (seconds)", min = "1", max = "86400",
            description = "Connection.KeepaliveInterval: idle time in seconds before a keepalive is sent"
                    + " (Idle Connection Timer, 3.1.6.2). Windows: 120. Applies to live connections.")
    long keepaliveIntervalSeconds() default KEEPALIVE_INTERVAL_SECONDS_DEFAULT;

    @AttributeDefinition(name = "Keepalive response timeout (seconds)", min = "1", max = "3600",
            description = "Seconds to wait for any message after a keepalive before the connection is closed."
                    + " Windows: 5. Applies to live connections.")
    long keepaliveResponseTimeoutSeconds() default KEEPALIVE_RESPONSE_TIMEOUT_SECONDS_DEFAULT;

    @AttributeDefinition(name = "Active negotiation timeout (seconds)", min = "1", max = "3600",
            description = "Negotiation Timer of the active side (3.1.4.1), covering connect and negotiation, in"
                    + " seconds. Windows: 120. Applies to new connections.")
    long activeNegotiationTimeoutSeconds() default ACTIVE_NEGOTIATION_TIMEOUT_SECONDS_DEFAULT;

    @AttributeDefinition(name = "Passive negotiation timeout (seconds)", min = "1", max = "3600",
            description = "Negotiation Timer of the passive side (3.1.7.2), from connection arrival to the"
                    + " Negotiate Request, in seconds. Windows: 5. Applies to new connections.")
    long passiveNegotiationTimeoutSeconds() default PASSIVE_NEGOTIATION_TIMEOUT_SECONDS_DEFAULT;

    @AttributeDefinition(name = "Credit grant timeout (milliseconds)", min = "0", max = "3600000",
            description = "Send Credit Grant Timer: a connection holding no Send Credit while it has something to"
                    + " send for this many milliseconds is closed; 0 disables it. Windows: 5000. Applies to live"
                    + " connections.")
    long creditGrantTimeoutMillis() default CREDIT_GRANT_TIMEOUT_MILLIS_DEFAULT;

    @AttributeDefinition(name = "Credit refill fraction", type = AttributeType.DOUBLE, min = "0.001", max = "1.0",
            description = "Receives are refilled and credits granted at once, in an empty message when nothing else"
                    + " is going out, when the credits the peer holds fall below this fraction of its target (never"
                    + " for one missing credit); in (0, 1]. Default 0.9: the peer's credits count the messages still"
                    + " in the sockets and queues between the two ends, so a late grant leaves the sender idle."
                    + " Applies to live connections.")
    double creditRefillFraction() default CREDIT_REFILL_FRACTION_DEFAULT;

    @AttributeDefinition(name = "Inbound read depth (IRD)", min = "1", max = "255",
            description = "IRD offered: RDMA Reads the peer may have outstanding against this side. Default 8."
                    + " Applies to new connections.")
    int inboundReadDepth() default INBOUND_READ_DEPTH_DEFAULT;

    @AttributeDefinition(name = "Outbound read depth (ORD)", min = "1", max = "255",
            description = "ORD offered: RDMA Reads this side may have outstanding. Default 8. Applies to new"
                    + " connections.")
    int outboundReadDepth() default OUTBOUND_READ_DEPTH_DEFAULT;

    @AttributeDefinition(name = "Max connections per listener", min = "1", max = "1048576",
            description = "Live connections one listener keeps; further connection requests are rejected."
                    + " Default 4096.")
    int maxConnectionsPerListener() default MAX_CONNECTIONS_PER_LISTENER_DEFAULT;

    @AttributeDefinition(name = "Max negotiating per listener", min = "1", max = "1048576",
            description = "Connections one listener keeps in negotiation at once; further connection requests are"
                    + " rejected. Default 256.")
    int maxNegotiatingPerListener() default MAX_NEGOTIATING_PER_LISTENER_DEFAULT;

    @AttributeDefinition(name = "Receive buffer budget (MiB)", min = "1", max = "1048576",
            description = "MiB of posted receive buffers the whole transport may hold; a connection that would"
                    + " exceed it is refused cleanly. Must hold one connection (receiveCreditMax x maxReceiveSize)."
                    + " Default 4096.")
    long receiveBufferBudgetMB() default RECEIVE_BUFFER_BUDGET_MB_DEFAULT;

    @AttributeDefinition(name = "Drain timeout (seconds)", min = "0", max = "3600",
            description = "When the transport stops (runtime stop, SIGTERM, component deactivation) or an RDMA"
                    + " provider is withdrawn (its configuration changed, a hot swap), new connections are refused"
                    + " at once and each established connection is given this many seconds to finish what is in"
                    + " flight (messages handed over and not yet acknowledged, RDMA Reads and Writes, a message"
                    + " being received or delivered); it closes as soon as nothing is, or when the time runs out,"
                    + " with reason SHUTDOWN or PROVIDER_REPLACED. 0 closes at once. Default 10.")
    long drainTimeoutSeconds() default DRAIN_TIMEOUT_SECONDS_DEFAULT;

    @AttributeDefinition(name = "RDMA provider filter",
            description = "LDAP filter over the RdmaProvider service properties selecting the provider new"
                    + " connections and listeners use; among matching providers the highest service.ranking wins."
                    + " Connections on a provider that no longer matches keep running until they close or the"
                    + " provider leaves. Example: (smbdirect.provider=verbs).")
    String provider_target() default PROVIDER_TARGET_DEFAULT;
}
