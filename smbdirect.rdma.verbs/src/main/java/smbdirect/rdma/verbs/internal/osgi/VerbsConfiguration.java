package smbdirect.rdma.verbs.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

import smbdirect.rdma.verbs.internal.VerbsSettings;

/** Metatype of the verbs provider (configuration PID {@code smbdirect.rdma.verbs}). */
@ObjectClassDefinition(name = "SMB Direct verbs RDMA provider",
        description = "RDMA provider for iWARP, InfiniBand and RoCE devices over rdma-core (libibverbs, librdmacm; "
                + "JDK 22+) or DiSNI (libdisni)")
public @interface VerbsConfiguration {

    @AttributeDefinition(name = "Backend",
            description = "How the provider reaches the RDMA stack. auto: rdma-core on JDK 22+ when libibverbs and "
                    + "librdmacm load, else DiSNI when libdisni loads; rdma-core: libibverbs and librdmacm through the "
                    + "Foreign Function & Memory API (JDK 22+, start the JVM with --enable-native-access=ALL-UNNAMED); "
                    + "disni: DiSNI 2.0 (libdisni on java.library.path)",
            options = {@Option(label = "Auto", value = "auto"), @Option(label = "rdma-core (JDK 22+)", value = "rdma-core"),
                @Option(label = "DiSNI", value = "disni")})
    String backend() default "auto";

    @AttributeDefinition(name = "Device name",
            description = "RDMA device as listed in /sys/class/infiniband (mlx5_0, irdma1, siw0, ...); empty: the first one")
    String deviceName() default "";

    @AttributeDefinition(name = "Bind address",
            description = "Address of the RDMA interface that active connections bind to (IPv6 only with rdma-core); "
                    + "empty: the first IPv4 address of the device's network interface (rdma-core: else its first IPv6 "
                    + "address)")
    String bindAddress() default "";

    @AttributeDefinition(name = "Transport type",
            description = "AUTO reads node_type/link_layer from sysfs",
            options = {@Option(label = "Auto (sysfs)", value = "AUTO"), @Option(label = "iWARP", value = "IWARP"),
                @Option(label = "InfiniBand", value = "INFINIBAND"), @Option(label = "RoCE", value = "ROCE")})
    String transportType() default "AUTO";

    @AttributeDefinition(name = "Completion queue size",
            description = "Entries of each completion queue (one per completion group), shared by the endpoints of "
                    + "that group; each endpoint reserves its send plus receive queue depth", min = "2")
    int cqSize() default 4096;

    @AttributeDefinition(name = "Completion groups",
            description = "Completion groups per device: each is a completion queue on its own completion vector "
                    + "(the device's interrupt, served by its own CPU) and the thread that handles its connections' "
                    + "completions, so connections are handled on several cores. 0: one per completion vector of the "
                    + "device (num_comp_vectors), at most one per processor; n: at most n, on vectors 0, 1, ... A new "
                    + "connection goes to the group with the fewest connections",
            min = "0", max = "256")
    int completionGroups() default 0;

    @AttributeDefinition(name = "Max send work requests", description = "Largest send queue depth per endpoint",
            min = "1")
    int maxSendWorkRequests() default 1024;

    @AttributeDefinition(name = "Max receive work requests", description = "Largest receive queue depth per endpoint",
            min = "1")
    int maxReceiveWorkRequests() default 1024;

    @AttributeDefinition(name = "Max message size", description = "Reported capability (bytes)", min = "1")
    int maxMessageSize() default 1 << 30;

    @AttributeDefinition(name = "Max read depth",
            description = "Largest IRD/ORD offered; rdma-core also bounds them by the device's max_qp_rd_atom and "
                    + "max_qp_init_rd_atom and negotiates them with the peer. DiSNI 2.0 always offers the device's "
                    + "max_qp_rd_atom: set this to it",
            min = "1", max = "255")
    int maxReadDepth() default 16;

    @AttributeDefinition(name = "Max region size", description = "Largest registration (bytes)", min = "1")
    long maxRegionSize() default 1L << 30;

    @AttributeDefinition(name = "Busy polling",
            description = "Poll the completion queue continuously (one core per device) instead of waiting for "
                    + "completion events")
    boolean busyPolling() default false;

    @AttributeDefinition(name = "Poll batch", description = "Work completions fetched per poll", min = "1",
            max = "4096")
    int pollBatch() default 32;

    @AttributeDefinition(name = "Event timeout (ms)",
            description = "How long the CM and completion threads wait in poll(2) before they look at their "
                    + "task queues again. Work handed to a completion thread (CM events, disconnects, local "
                    + "invalidation) wakes it at once where the backend can (rdma-core: an eventfd in its poll set); "
                    + "with DiSNI this bounds the extra latency of that work on an idle device",
            min = "1")
    int eventTimeoutMillis() default 10;

    @AttributeDefinition(name = "Resolve timeout (ms)",
            description = "How long address resolution, and then route resolution, may each take, given to "
                    + "rdma_resolve_addr and rdma_resolve_route (the kernel reports an error after it); a phase the "
                    + "kernel has not answered within twice this ends the connect as UNREACHABLE with a reason "
                    + "naming the phase",
            min = "1")
    int resolveTimeoutMillis() default 5000;

    @AttributeDefinition(name = "Connect timeout (ms)",
            description = "How long the connect itself (rdma_connect until the connection is established) and an "
                    + "accept (rdma_accept until established) may take; then the connection ends as CONNECT_ERROR "
                    + "with a reason naming the phase. Keep it below the engine's negotiation timeouts",
            min = "1")
    int connectTimeoutMillis() default VerbsSettings.CONNECT_TIMEOUT_MILLIS_DEFAULT;

    @AttributeDefinition(name = "Flush timeout (ms)",
            description = "How long an ending connection waits for the device to flush its work requests while its "
                    + "queue pair is not known to be in the error state (once a completion, a queue pair event or "
                    + "the CM's DISCONNECTED says it is, what is outstanding completes as FLUSHED at once)",
            min = "1")
    int flushTimeoutMillis() default 5000;

    @AttributeDefinition(name = "End connections when the port goes down",
            description = "When the device's port goes down (IBV_EVENT_PORT_ERR: the link or its interface), end every "
                    + "connection on it at once as PEER_LOST with a reason naming the port event, so that the SMB "
                    + "layer reconnects or fails over to another channel; false: leave them to the transport's "
                    + "retries (a short outage is ridden out, a longer one ends them when the retries run out)")
    boolean endConnectionsOnPortDown() default true;

    @AttributeDefinition(name = "Retry count", description = "rdma_conn_param.retry_count", min = "0", max = "7")
    int retryCount() default 6;

    @AttributeDefinition(name = "RNR retry count",
            description = "rdma_conn_param.rnr_retry_count; 0 makes a Send without a posted receive fail, as SMB Direct "
                    + "expects", min = "0", max = "7")
    int rnrRetryCount() default 0;

    @AttributeDefinition(name = "Listen backlog", min = "1")
    int listenBacklog() default 128;

    @AttributeDefinition(name = "Send with Invalidate",
            description = "rdma-core: decided per direction from the device, so leave it false: posting Send with "
                    + "Invalidate (capability sendWithInvalidate, invalidating the token an SMB client handed out with "
                    + "SMB2_CHANNEL_RDMA_V1_INVALIDATE) is on with the memory management extensions; a peer's Send "
                    + "with Invalidate invalidating our memory is on with type 2 memory windows, and on a device "
                    + "without them true states that the device invalidates ibv_reg_mr registrations and reports it "
                    + "in the receive completion (RNICs do not). DiSNI: offer both as raw opcode 9, unverified "
                    + "without hardware")
    boolean sendWithInvalidate() default false;
}
