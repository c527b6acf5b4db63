package smbdirect.rdma.verbs.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.tck.RdmaTckFixture;
import smbdirect.rdma.verbs.internal.disni.DisniNativeAccess;

/**
 * Two verbs providers on one real RDMA device (siw, rxe or an RNIC), each with its own backend and
 * RDMA CM event channel, chosen and probed as the OSGi component does. The client binds to the
 * device's address and connects to the server's listeners on the same address.
 *
 * <p>System properties: {@code smbdirect.verbs.device} (siw0, rxe0, mlx5_0, ...) and
 * {@code smbdirect.verbs.address} (an address of the device's interface) are required;
 * {@code smbdirect.verbs.backend} (default {@code rdma-core}), {@code smbdirect.verbs.busyPolling}
 * (default false), {@code smbdirect.verbs.sendWithInvalidate} (default false: without type 2
 * memory windows the provider registers with {@code ibv_reg_mr}, and a device is not known to
 * report a peer's invalidation of such a registration) and
 * {@code smbdirect.verbs.timeoutSeconds} (default 30, for slow emulated machines) are optional. Without them every test fails saying what to set: a device test that
 * does not run is not a pass.
 */
final class DeviceTckFixture extends RdmaTckFixture {

    final VerbsRdmaProvider client;
    final VerbsRdmaProvider server;
    private final InetAddress address;
    private final TransportType transport;
    private final Map<DeviceFact, String> facts;

    DeviceTckFixture() {
        String device = System.getProperty("smbdirect.verbs.device", "");
        String bind = System.getProperty("smbdirect.verbs.address", "");
        if (device.isEmpty() || bind.isEmpty()) {
            throw new IllegalStateException("needs an RDMA device: run with -Dsmbdirect.verbs.device=<siw0|rxe0|...> "
                    + "-Dsmbdirect.verbs.address=<an address of its interface> (JDK 22+, --enable-native-access=ALL-UNNAMED)");
        }
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("smbdirect.verbs.address=" + bind, e);
        }
        VerbsSettings settings = settings(device, bind);
        VerbsProbe.Result first = probe(settings);
        transport = first.transportType();
        facts = facts(first.deviceAttributes(), System.getProperty("os.version", "?"));
        client = start(settings, first);
        VerbsRdmaProvider second;
        try {
            second = start(settings, probe(settings));
        } catch (RuntimeException | Error e) {
            client.shutdown();
            throw e;
        }
        server = second;
    }

    /** The device tests' settings for {@code device} and {@code bind} (empty: derived from the device). */
    static VerbsSettings settings(String device, String bind) {
        VerbsSettings d = VerbsSettings.defaults();
        return new VerbsSettings(device, bind, "AUTO", 1024, 256, 256, d.maxMessageSize(), d.maxReadDepth(),
                d.maxRegionSize(), Boolean.getBoolean("smbdirect.verbs.busyPolling"), d.pollBatch(), 10, 5000, 5000,
                d.retryCount(), d.rnrRetryCount(), d.listenBacklog(),
                Boolean.getBoolean("smbdirect.verbs.sendWithInvalidate"),
                System.getProperty("smbdirect.verbs.backend", VerbsSettings.RDMA_CORE));
    }

    /** Probes as the component does (rdma-core, then DiSNI); fails naming why the device is not usable. */
    static VerbsProbe.Result probe(VerbsSettings settings) {
        VerbsProbe.Result r = new VerbsProbe(List.of(RdmaCoreAccessLoader.load(),
                new DisniAccess(new DisniNativeAccess())), new SysfsDevices(Path.of("/sys/class/infiniband")))
                .probe(settings);
        if (!r.available()) {
            throw new IllegalStateException("the verbs provider cannot run on " + settings.deviceName() + ": "
                    + r.status());
        }
        return r;
    }

    static VerbsRdmaProvider start(VerbsSettings settings, VerbsProbe.Result r) {
        VerbsRdmaProvider provider = new VerbsRdmaProvider(settings, r.backend(), r.bindAddress(), r.transportType(),
                r.deviceAttributes(), r.notes(), System::nanoTime);
        provider.start(Executors.defaultThreadFactory());
        return provider;
    }

    @Override
    public RdmaProvider clientProvider() {
        return client;
    }

    @Override
    public RdmaProvider serverProvider() {
        return server;
    }

    @Override
    public InetSocketAddress serverAddress(int port) {
        return new InetSocketAddress(address, port);
    }

    /**
     * InfiniBand and RoCE: the REJECTED event's status (invalid service ID) names a missing listener.
     * iWARP: a connect is a TCP connect, refused at once without a listener (rdma_connect fails with
     * ECONNREFUSED); {@code -Dsmbdirect.verbs.missingListenerUnreachable=false} for a device that
     * reports it as REJECTED instead.
     */
    @Override
    public boolean reportsMissingListenerAsUnreachable() {
        return Boolean.parseBoolean(System.getProperty("smbdirect.verbs.missingListenerUnreachable", "true"));
    }

    @Override
    public boolean sendsAndWritesCompleteOnAcknowledgement() {
        return transport != TransportType.IWARP;
    }

    @Override
    public boolean padsPrivateData() {
        return transport != TransportType.IWARP;
    }

    /**
     * What Linux siw and rxe do that the SPI contract does not allow for and that leaves the
     * provider nothing to recover the promise from, read in their 6.1 sources (Debian's 6.1.192) and
     * seen on them in the siw VM; by the device's {@code vendor_id}.
     */
    static Map<DeviceFact, String> facts(DeviceAttributes device, String kernel) {
        if (device == null) {
            return Map.of();
        }
        Map<DeviceFact, String> facts = new EnumMap<>(DeviceFact.class);
        if (device.vendorId() == DeviceAttributes.VENDOR_SIW) {
            facts.put(DeviceFact.PEER_FAILURE_SEEN_AS_DISCONNECT, "Linux siw (kernel " + kernel + ") does not tell "
                    + "the requester why its peer ended the connection: a received Terminate is only logged "
                    + "(siw_proc_terminate, drivers/infiniband/sw/siw/siw_qp_rx.c:893 in 6.1.192), no asynchronous "
                    + "event is raised, the outstanding requests are flushed and the CM reports DISCONNECTED with "
                    + "status 0 (siw_cm.c:1082, IW_CM_EVENT_CLOSE); only the refusing peer gets an event "
                    + "(IBV_EVENT_QP_ACCESS_ERR, siw_qp_rx.c:596, or IBV_EVENT_QP_REQ_ERR, siw_qp_tx.c:1172)");
            facts.put(DeviceFact.READ_WITHOUT_REMOTE_READ_SERVED, "Linux siw (kernel " + kernel + ") checks the "
                    + "source of an RDMA Read Response without access rights: siw_qp_sq_proc_tx calls "
                    + "siw_check_sgl_tx(qp->pd, wqe, 0) for it (drivers/infiniband/sw/siw/siw_qp_tx.c:833 in "
                    + "6.1.192), so a region registered without IBV_ACCESS_REMOTE_READ is read");
            facts.put(DeviceFact.INVALIDATION_NOT_REPORTED, "Linux siw (kernel " + kernel + ") invalidates the "
                    + "STag a received Send with Invalidate names, an ibv_reg_mr registration of the queue pair's "
                    + "protection domain too (siw_rdmap_complete calls siw_invalidate_stag, drivers/infiniband/sw/"
                    + "siw/siw_qp_rx.c), but rdma-core's siw provider reports no completion flags (siw_poll_cq sets "
                    + "wc_flags = 0, providers/siw/siw.c in rdma-core 44), so the receiver cannot tell");
        }
        if (device.vendorId() == DeviceAttributes.VENDOR_RXE) {
            facts.put(DeviceFact.SHORT_RECEIVE_NOT_A_LENGTH_ERROR, "Linux rxe (kernel " + kernel + ") fails a "
                    + "message longer than the receive in copy_data with -EINVAL (drivers/infiniband/sw/rxe/"
                    + "rxe_mr.c:383 in 6.1.192), which the responder takes for a malformed WQE (rxe_resp.c:556, "
                    + "only -ENOSPC is a length error): IBV_WC_LOC_QP_OP_ERR at the receiver and a REM_OP_ERR NAK, "
                    + "IBV_WC_REM_OP_ERR, at the sender, where ConnectX reports LOC_LEN_ERR and REM_INV_REQ_ERR");
        }
        return Map.copyOf(facts);
    }

    @Override
    public Map<DeviceFact, String> deviceFacts() {
        return facts;
    }

    @Override
    public Duration timeout() {
        return Duration.ofSeconds(Integer.getInteger("smbdirect.verbs.timeoutSeconds", 30));
    }

    @Override
    public void close() {
        client.shutdown();
        server.shutdown();
    }
}
