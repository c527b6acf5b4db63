package smbdirect.rdma.verbs.internal;

import java.util.Locale;

import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.settings.SettingRefusedException;

/**
 * The validated configuration of the verbs provider (configuration PID {@code smbdirect.rdma.verbs}).
 * Immutable.
 *
 * @param deviceName RDMA device ({@code mlx5_0}, {@code irdma1}, ...); empty picks the first one
 * @param bindAddress address of the RDMA interface (IPv6 with the rdma-core backend only); empty
 *     derives it from the device
 * @param transportType AUTO (from sysfs) or IWARP / INFINIBAND / ROCE
 * @param cqSize entries of each completion queue (one per completion group), shared by the endpoints
 *     of that group
 * @param maxSendWorkRequests largest send queue depth accepted per endpoint
 * @param maxReceiveWorkRequests largest receive queue depth accepted per endpoint
 * @param maxMessageSize largest message reported as capability
 * @param maxReadDepth largest IRD/ORD offered (rdma-core: also bounded by the device's
 *     max_qp_rd_atom / max_qp_init_rd_atom; DiSNI 2.0 always offers the device's max_qp_rd_atom)
 * @param maxRegionSize largest registration reported as capability
 * @param busyPolling poll the completion queue continuously instead of waiting for events
 * @param pollBatch work completions fetched per poll
 * @param eventTimeoutMillis how long a completion or CM thread waits before it looks at its queue again
 * @param resolveTimeoutMillis how long address resolution and then route resolution may each take
 *     (given to {@code rdma_resolve_addr} / {@code rdma_resolve_route}, and enforced by the provider
 *     too: a phase still unanswered after it ends the connect as UNREACHABLE naming the phase)
 * @param flushTimeoutMillis how long an ending endpoint whose queue pair is not known to be in the
 *     error state waits for flushed completions before the provider completes the rest as FLUSHED
 *     itself (with the queue pair known in error it completes them at once)
 * @param retryCount transport retries (rdma_conn_param.retry_count)
 * @param rnrRetryCount receiver-not-ready retries (0: a Send without a posted receive fails)
 * @param listenBacklog rdma_listen backlog
 * @param sendWithInvalidate Send with Invalidate where the provider cannot tell by itself. With a
 *     backend that queries the device (rdma-core) the two directions are decided from the device:
 *     posting one (capability {@code sendWithInvalidate}, so the engine invalidates the token a peer
 *     handed out for remote invalidation) is on with the memory management extensions, whatever
 *     this says; a peer's Send with Invalidate invalidating our own memory and the receive
 *     completion saying so is on with type 2 memory windows, and on a device without them this
 *     states that it invalidates {@code ibv_reg_mr} registrations and reports it (RNICs do not;
 *     Linux siw invalidates them but rdma-core's siw provider reports no completion flags). With a
 *     backend that cannot query the device (DiSNI) it turns both on: raw opcode 9, unverified
 *     without hardware
 * @param backend how the provider reaches the RDMA stack: {@code auto} (rdma-core on JDK 22+ when
 *     libibverbs loads, else DiSNI when libdisni loads), {@code rdma-core} or {@code disni}
 * @param connectTimeoutMillis how long the connect itself ({@code rdma_connect} until ESTABLISHED) and
 *     an accept ({@code rdma_accept} until ESTABLISHED) may take; then the connection ends as
 *     CONNECT_ERROR naming the phase
 * @param endConnectionsOnPortDown when the device's port goes down ({@code IBV_EVENT_PORT_ERR}), end
 *     every connection on it at once as PEER_LOST with a reason naming the port event, so that the
 *     upper layer can reconnect or fail over; false leaves them to the transport's retries (a short
 *     outage is ridden out, a longer one ends them as PEER_LOST when the retries run out)
 * @param completionGroups how many completion groups (each a completion queue on its own completion
 *     vector and the thread that delivers its endpoints' callbacks) a device may have: 0 (the
 *     default) one per completion vector of the device ({@code num_comp_vectors}), at most one per
 *     available processor; n &gt; 0 at most n, on vectors 0, 1, ... (modulo the device's). A
 *     connection is placed in the group with the fewest connections; groups are made as connections
 *     need them and retired with their last user
 */
public record VerbsSettings(
        String deviceName,
        String bindAddress,
        String transportType,
        int cqSize,
        int maxSendWorkRequests,
        int maxReceiveWorkRequests,
        int maxMessageSize,
        int maxReadDepth,
        long maxRegionSize,
        boolean busyPolling,
        int pollBatch,
        int eventTimeoutMillis,
        int resolveTimeoutMillis,
        int flushTimeoutMillis,
        int retryCount,
        int rnrRetryCount,
        int listenBacklog,
        boolean sendWithInvalidate,
        String backend,
        int connectTimeoutMillis,
        boolean endConnectionsOnPortDown,
        int completionGroups) {

    /** {@code backend}: rdma-core on JDK 22+ when libibverbs loads, else DiSNI when libdisni loads. */
    public static final String AUTO = "auto";
    /** {@code backend}: libibverbs and librdmacm through the Foreign Function &amp; Memory API (JDK 22+). */
    public static final String RDMA_CORE = "rdma-core";
    /** {@code backend}: DiSNI 2.0 (libdisni). */
    public static final String DISNI = "disni";

    /** The default of {@link #connectTimeoutMillis()} (below the engine's active negotiation timeout). */
    public static final int CONNECT_TIMEOUT_MILLIS_DEFAULT = 30_000;

    /** The largest {@link #completionGroups()}. */
    public static final int MAX_COMPLETION_GROUPS = 256;

    /** The defaults (also the Metatype defaults). */
    public static VerbsSettings defaults() {
        return new VerbsSettings("", "", "AUTO", 4096, 1024, 1024, 1 << 30, 16, 1L << 30, false, 32, 100, 5000,
                5000, 6, 0, 128, false, AUTO, CONNECT_TIMEOUT_MILLIS_DEFAULT, true, 0);
    }

    /** The settings with {@code completionGroups} 0 (one per completion vector, at most one per processor). */
    public VerbsSettings(String deviceName, String bindAddress, String transportType, int cqSize,
            int maxSendWorkRequests, int maxReceiveWorkRequests, int maxMessageSize, int maxReadDepth,
            long maxRegionSize, boolean busyPolling, int pollBatch, int eventTimeoutMillis, int resolveTimeoutMillis,
            int flushTimeoutMillis, int retryCount, int rnrRetryCount, int listenBacklog, boolean sendWithInvalidate,
            String backend, int connectTimeoutMillis, boolean endConnectionsOnPortDown) {
        this(deviceName, bindAddress, transportType, cqSize, maxSendWorkRequests, maxReceiveWorkRequests,
                maxMessageSize, maxReadDepth, maxRegionSize, busyPolling, pollBatch, eventTimeoutMillis,
                resolveTimeoutMillis, flushTimeoutMillis, retryCount, rnrRetryCount, listenBacklog, sendWithInvalidate,
                backend, connectTimeoutMillis, endConnectionsOnPortDown, 0);
    }

    /** The settings with {@code endConnectionsOnPortDown} true (the default). */
    public VerbsSettings(String deviceName, String bindAddress, String transportType, int cqSize,
            int maxSendWorkRequests, int maxReceiveWorkRequests, int maxMessageSize, int maxReadDepth,
            long maxRegionSize, boolean busyPolling, int pollBatch, int eventTimeoutMillis, int resolveTimeoutMillis,
            int flushTimeoutMillis, int retryCount, int rnrRetryCount, int listenBacklog, boolean sendWithInvalidate,
            String backend, int connectTimeoutMillis) {
        this(deviceName, bindAddress, transportType, cqSize, maxSendWorkRequests, maxReceiveWorkRequests,
                maxMessageSize, maxReadDepth, maxRegionSize, busyPolling, pollBatch, eventTimeoutMillis,
                resolveTimeoutMillis, flushTimeoutMillis, retryCount, rnrRetryCount, listenBacklog, sendWithInvalidate,
                backend, connectTimeoutMillis, true);
    }

    /** The settings with {@code connectTimeoutMillis} {@value #CONNECT_TIMEOUT_MILLIS_DEFAULT}. */
    public VerbsSettings(String deviceName, String bindAddress, String transportType, int cqSize,
            int maxSendWorkRequests, int maxReceiveWorkRequests, int maxMessageSize, int maxReadDepth,
            long maxRegionSize, boolean busyPolling, int pollBatch, int eventTimeoutMillis, int resolveTimeoutMillis,
            int flushTimeoutMillis, int retryCount, int rnrRetryCount, int listenBacklog, boolean sendWithInvalidate,
            String backend) {
        this(deviceName, bindAddress, transportType, cqSize, maxSendWorkRequests, maxReceiveWorkRequests,
                maxMessageSize, maxReadDepth, maxRegionSize, busyPolling, pollBatch, eventTimeoutMillis,
                resolveTimeoutMillis, flushTimeoutMillis, retryCount, rnrRetryCount, listenBacklog, sendWithInvalidate,
                backend, CONNECT_TIMEOUT_MILLIS_DEFAULT);
    }

    /** The settings with {@code backend} {@value #AUTO}. */
    public VerbsSettings(String deviceName, String bindAddress, String transportType, int cqSize,
            int maxSendWorkRequests, int maxReceiveWorkRequests, int maxMessageSize, int maxReadDepth,
            long maxRegionSize, boolean busyPolling, int pollBatch, int eventTimeoutMillis, int resolveTimeoutMillis,
            int flushTimeoutMillis, int retryCount, int rnrRetryCount, int listenBacklog, boolean sendWithInvalidate) {
        this(deviceName, bindAddress, transportType, cqSize, maxSendWorkRequests, maxReceiveWorkRequests,
                maxMessageSize, maxReadDepth, maxRegionSize, busyPolling, pollBatch, eventTimeoutMillis,
                resolveTimeoutMillis, flushTimeoutMillis, retryCount, rnrRetryCount, listenBacklog, sendWithInvalidate,
                AUTO);
    }

    /** These settings with another {@code backend}. */
    public VerbsSettings withBackend(String name) {
        return new VerbsSettings(deviceName, bindAddress, transportType, cqSize, maxSendWorkRequests,
                maxReceiveWorkRequests, maxMessageSize, maxReadDepth, maxRegionSize, busyPolling, pollBatch,
                eventTimeoutMillis, resolveTimeoutMillis, flushTimeoutMillis, retryCount, rnrRetryCount, listenBacklog,
                sendWithInvalidate, name, connectTimeoutMillis, endConnectionsOnPortDown, completionGroups);
    }

    /** These settings with another {@code endConnectionsOnPortDown}. */
    public VerbsSettings withEndConnectionsOnPortDown(boolean end) {
        return new VerbsSettings(deviceName, bindAddress, transportType, cqSize, maxSendWorkRequests,
                maxReceiveWorkRequests, maxMessageSize, maxReadDepth, maxRegionSize, busyPolling, pollBatch,
                eventTimeoutMillis, resolveTimeoutMillis, flushTimeoutMillis, retryCount, rnrRetryCount, listenBacklog,
                sendWithInvalidate, backend, connectTimeoutMillis, end, completionGroups);
    }

    /** These settings with other resolve and connect timeouts. */
    public VerbsSettings withTimeouts(int resolveMillis, int connectMillis) {
        return new VerbsSettings(deviceName, bindAddress, transportType, cqSize, maxSendWorkRequests,
                maxReceiveWorkRequests, maxMessageSize, maxReadDepth, maxRegionSize, busyPolling, pollBatch,
                eventTimeoutMillis, resolveMillis, flushTimeoutMillis, retryCount, rnrRetryCount, listenBacklog,
                sendWithInvalidate, backend, connectMillis, endConnectionsOnPortDown, completionGroups);
    }

    /** These settings with another {@code completionGroups}. */
    public VerbsSettings withCompletionGroups(int groups) {
        return new VerbsSettings(deviceName, bindAddress, transportType, cqSize, maxSendWorkRequests,
                maxReceiveWorkRequests, maxMessageSize, maxReadDepth, maxRegionSize, busyPolling, pollBatch,
                eventTimeoutMillis, resolveTimeoutMillis, flushTimeoutMillis, retryCount, rnrRetryCount, listenBacklog,
                sendWithInvalidate, backend, connectTimeoutMillis, endConnectionsOnPortDown, groups);
    }

    /**
     * How many completion groups a device with {@code vectors} completion vectors may have: the
     * setting, or where it is 0 one per vector, at most {@code processors}.
     */
    public int completionGroupsFor(int vectors, int processors) {
        return completionGroups > 0 ? completionGroups : Math.max(1, Math.min(Math.max(1, vectors), processors));
    }

    /**
     * As {@link #completionGroupsFor(int, int)}, for {@code device} ({@code null}: not known): where
     * the setting is 0, Linux soft-iWARP (siw) gets one. siw maps every completion queue, send queue
     * and receive queue into the process and refuses a mapping whose key passes
     * {@code SIW_UOBJ_MAX_KEY} (0x8FFFF, rdma/siw-abi.h): 144 pages a process, of which a
     * 4096-entry completion queue takes 33 and a connection's queue pair 2. It reports a completion
     * vector per CPU, but more queues would leave room for few connections (four groups: six).
     */
    public int completionGroupsFor(int vectors, int processors, DeviceAttributes device) {
        if (completionGroups == 0 && device != null && device.vendorId() == DeviceAttributes.VENDOR_SIW) {
            return 1;
        }
        return completionGroupsFor(vectors, processors);
    }

    public VerbsSettings {
        backend = backend == null || backend.isBlank() ? AUTO : backend.trim().toLowerCase(Locale.ROOT);
        require(backend.equals(AUTO) || backend.equals(RDMA_CORE) || backend.equals(DISNI), "backend", backend,
                "auto, rdma-core or disni");
        deviceName = deviceName == null ? "" : deviceName.trim();
        bindAddress = bindAddress == null ? "" : bindAddress.trim();
        transportType = transportType == null || transportType.isBlank() ? "AUTO"
                : transportType.trim().toUpperCase(Locale.ROOT);
        require(transportType.equals("AUTO") || transportType.equals("IWARP") || transportType.equals("INFINIBAND")
                || transportType.equals("ROCE"), "transportType", transportType, "AUTO, IWARP, INFINIBAND or ROCE");
        require(cqSize >= 2, "cqSize", cqSize, ">= 2");
        require(maxSendWorkRequests >= 1, "maxSendWorkRequests", maxSendWorkRequests, ">= 1");
        require(maxReceiveWorkRequests >= 1, "maxReceiveWorkRequests", maxReceiveWorkRequests, ">= 1");
        require(maxSendWorkRequests + maxReceiveWorkRequests <= cqSize, "maxSendWorkRequests + maxReceiveWorkRequests",
                maxSendWorkRequests + maxReceiveWorkRequests, "<= cqSize " + cqSize);
        require(maxMessageSize >= 1, "maxMessageSize", maxMessageSize, ">= 1");
        require(maxReadDepth >= 1 && maxReadDepth <= 255, "maxReadDepth", maxReadDepth, "1..255");
        require(maxRegionSize >= 1, "maxRegionSize", maxRegionSize, ">= 1");
        require(pollBatch >= 1 && pollBatch <= 4096, "pollBatch", pollBatch, "1..4096");
        require(eventTimeoutMillis >= 1, "eventTimeoutMillis", eventTimeoutMillis, ">= 1");
        require(resolveTimeoutMillis >= 1, "resolveTimeoutMillis", resolveTimeoutMillis, ">= 1");
        require(connectTimeoutMillis >= 1, "connectTimeoutMillis", connectTimeoutMillis, ">= 1");
        require(flushTimeoutMillis >= 1, "flushTimeoutMillis", flushTimeoutMillis, ">= 1");
        require(retryCount >= 0 && retryCount <= 7, "retryCount", retryCount, "0..7");
        require(rnrRetryCount >= 0 && rnrRetryCount <= 7, "rnrRetryCount", rnrRetryCount, "0..7");
        require(listenBacklog >= 1, "listenBacklog", listenBacklog, ">= 1");
        require(completionGroups >= 0 && completionGroups <= MAX_COMPLETION_GROUPS, "completionGroups",
                completionGroups, "0..." + MAX_COMPLETION_GROUPS + " (0: one per completion vector of the device)");
    }

    private static void require(boolean ok, String attribute, Object value, String rule) {
        if (!ok) {
            throw new SettingRefusedException(
                    "smbdirect.rdma.verbs: " + attribute + " = " + value + " is invalid (must be " + rule + ")",
                    attribute, value, "must be " + rule);
        }
    }

    /** The capabilities reported for the configured limits. */
    public RdmaCapabilities capabilities() {
        return new RdmaCapabilities(maxSendWorkRequests, maxReceiveWorkRequests, 1, 0, maxMessageSize, maxReadDepth,
                maxReadDepth, maxRegionSize, sendWithInvalidate);
    }

    /**
     * The capabilities: the configured limits, each bounded by what the device reports (queue depths
     * by {@code max_qp_wr}, the send queue by half of it where memory window binds share it, message
     * size by the port's {@code max_msg_sz}, IRD by {@code max_qp_rd_atom}, ORD by
     * {@code max_qp_init_rd_atom}, registrations by {@code max_mr_size}). Send with Invalidate, the
     * posting side ({@code IBV_WR_SEND_WITH_INV}, invalidating the peer's token), is the device's:
     * on with the memory management extensions (iWARP RDMAP and InfiniBand / RoCE both define it);
     * whether the peer's token can be invalidated is the peer's word (it asked for remote
     * invalidation). Whether our own memory can be invalidated by a peer is
     * {@link #remoteInvalidation(DeviceAttributes)}.
     *
     * @param device what the device reports, {@code null} when the backend cannot query it
     */
    public RdmaCapabilities capabilities(DeviceAttributes device) {
        if (device == null) {
            return capabilities();
        }
        long message = device.maxMsgSize() > 0 ? Math.min(maxMessageSize, device.maxMsgSize()) : maxMessageSize;
        int sendLimit = device.memoryWindows() ? device.maxQpWr() / 2 : device.maxQpWr();
        return new RdmaCapabilities(Math.min(maxSendWorkRequests, sendLimit),
                Math.min(maxReceiveWorkRequests, device.maxQpWr()), 1, 0, (int) message,
                Math.min(maxReadDepth, device.maxQpRdAtom()), Math.min(maxReadDepth, device.maxQpInitRdAtom()),
                device.maxMrSize() > 0 ? Math.min(maxRegionSize, device.maxMrSize()) : maxRegionSize,
                device.memoryManagementExtensions(), remoteInvalidation(device));
    }

    /**
     * The receiving side of Send with Invalidate: whether a peer's Send with Invalidate naming the
     * token of memory we registered for remote access invalidates it and our receive completion
     * reports it, so that an upper layer may hand its tokens out for remote invalidation (an SMB
     * client may ask for SMB2_CHANNEL_RDMA_V1_INVALIDATE). With the device's attributes: the memory
     * management extensions and type 2 memory windows (the provider exposes memory through them), or
     * the operator's {@code sendWithInvalidate} for a device that invalidates plain registrations and
     * reports it; without them: {@code sendWithInvalidate}.
     */
    public boolean remoteInvalidation(DeviceAttributes device) {
        if (device == null) {
            return sendWithInvalidate;
        }
        return device.memoryManagementExtensions() && (device.memoryWindows() || sendWithInvalidate);
    }

    /** Why {@link #capabilities(DeviceAttributes)} turns Send with Invalidate (posting it) on or off, in words. */
    public String sendWithInvalidateReason(DeviceAttributes device) {
        if (device == null) {
            return sendWithInvalidate ? "sendWithInvalidate=true (unverified: the backend cannot query the device)"
                    : "sendWithInvalidate=false and the backend cannot query the device";
        }
        if (!device.memoryManagementExtensions()) {
            return device.name() + " has no memory management extensions (IBV_DEVICE_MEM_MGT_EXTENSIONS)";
        }
        return device.name() + " posts IBV_WR_SEND_WITH_INV (memory management extensions): a token the peer "
                + "handed out for remote invalidation is invalidated by the message that ends its use";
    }

    /** Why {@link #remoteInvalidation(DeviceAttributes)} is on or off, in words. */
    public String remoteInvalidationReason(DeviceAttributes device) {
        if (device == null) {
            return sendWithInvalidate ? "sendWithInvalidate=true (unverified: the backend cannot query the device)"
                    : "sendWithInvalidate=false and the backend cannot query the device";
        }
        if (!device.memoryManagementExtensions()) {
            return device.name() + " has no memory management extensions (IBV_DEVICE_MEM_MGT_EXTENSIONS)";
        }
        if (device.memoryWindows()) {
            return "memory the peer may access is exposed through type 2 memory windows, which a peer's Send with "
                    + "Invalidate invalidates";
        }
        return sendWithInvalidate ? "sendWithInvalidate=true: the operator states that " + device.name()
                + " invalidates ibv_reg_mr registrations on a peer's Send with Invalidate and reports it"
                : device.name() + " has no type 2 memory windows, and a peer's Send with Invalidate is not known to "
                        + "invalidate an ibv_reg_mr registration and report it in the receive completion (do not hand "
                        + "tokens out for remote invalidation: no SMB2_CHANNEL_RDMA_V1_INVALIDATE; set "
                        + "sendWithInvalidate=true only for a device that does both)";
    }
}
