package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

import smbdirect.api.rdma.TransportType;

/**
 * Decides whether the verbs provider can run here and over which backend, and if not names the
 * missing piece and how to install it. The {@code backend} setting lists the candidates: {@code auto}
 * tries rdma-core, then DiSNI, and takes the first whose native libraries load; {@code rdma-core}
 * or {@code disni} only that one. With the backend chosen: its own checks, the RDMA device (from
 * the backend's device list, or sysfs where it has none) and its address, the device's limits
 * (where the backend can query them), then the RDMA CM event channel. Every backend tried and not
 * taken is named with its reason. Stateless.
 */
public final class VerbsProbe {

    /**
     * The outcome: either a backend and selection, or the reason the provider is unavailable.
     *
     * @param backend the opened backend, {@code null} when unavailable
     * @param backendName the chosen backend ({@code rdma-core}, {@code disni}), {@code null} when none was
     * @param device the RDMA device
     * @param transportType its transport
     * @param bindAddress the local address active endpoints bind to (port 0)
     * @param deviceAttributes what the device reports, {@code null} when the backend cannot query it
     * @param reason why the provider is unavailable, {@code null} when it is available
     * @param notes the backends tried before the chosen one and why they were not taken ("" when none)
     */
    public record Result(VerbsBackend backend, String backendName, String device, TransportType transportType,
            InetSocketAddress bindAddress, DeviceAttributes deviceAttributes, String reason, String notes) {

        /** An available result without backend name, device attributes or notes (tests). */
        public Result(VerbsBackend backend, String device, TransportType transportType, InetSocketAddress bindAddress,
                String reason) {
            this(backend, null, device, transportType, bindAddress, null, reason, "");
        }

        public boolean available() {
            return reason == null;
        }

        /** The {@code smbdirect.provider.status} value. */
        public String status() {
            return available() ? "available" : "unavailable: " + reason;
        }

        public static Result unavailable(String reason) {
            return new Result(null, null, null, null, null, null, reason, "");
        }

        Result withNotes(String text) {
            return new Result(backend, backendName, device, transportType, bindAddress, deviceAttributes, reason, text);
        }
    }

    private final List<BackendAccess> backends;
    private final SysfsDevices sysfs;
    private final Function<String, List<InetAddress>> interfaceAddresses;

    /** The DiSNI backend only, whatever the {@code backend} setting says. */
    public VerbsProbe(NativeAccess disni, SysfsDevices sysfs) {
        this(List.of(new DisniAccess(disni)), sysfs, VerbsProbe::addressesOf);
    }

    /** @param backends the candidates in the order {@code auto} tries them */
    public VerbsProbe(List<BackendAccess> backends, SysfsDevices sysfs) {
        this(backends, sysfs, VerbsProbe::addressesOf);
    }

    VerbsProbe(NativeAccess disni, SysfsDevices sysfs, Function<String, List<InetAddress>> interfaceAddresses) {
        this(List.of(new DisniAccess(disni)), sysfs, interfaceAddresses);
    }

    VerbsProbe(List<BackendAccess> backends, SysfsDevices sysfs,
            Function<String, List<InetAddress>> interfaceAddresses) {
        this.backends = List.copyOf(backends);
        this.sysfs = sysfs;
        this.interfaceAddresses = interfaceAddresses;
    }

    public Result probe(VerbsSettings settings) {
        List<String> tried = new ArrayList<>();
        boolean any = false;
        for (BackendAccess access : backends) {
            if (!settings.backend().equals(VerbsSettings.AUTO) && !settings.backend().equals(access.name())) {
                continue;
            }
            any = true;
            String why = access.load();
            if (why != null) {
                tried.add(access.name() + ": " + why);
                continue;
            }
            Result result = probeWith(access, settings);
            if (!result.available()) {
                tried.add(access.name() + ": " + result.reason());
                return Result.unavailable(String.join("; ", tried));
            }
            return result.withNotes(String.join("; ", tried));
        }
        if (!any) {
            return Result.unavailable("backend " + settings.backend() + " is not built into this provider");
        }
        return Result.unavailable(String.join("; ", tried));
    }

    private Result probeWith(BackendAccess access, VerbsSettings settings) {
        String missing = access.check();
        if (missing != null) {
            return Result.unavailable(missing);
        }
        List<String> devices;
        String where;
        try {
            devices = access.devices();
        } catch (IOException e) {
            return Result.unavailable(e.getMessage() + ": load ib_uverbs, rdma_ucm and the RNIC driver (irdma, "
                    + "mlx5_ib, bnxt_re, ... or siw/rdma_rxe for software RDMA)");
        }
        if (devices == null) {
            devices = sysfs.devices();
            where = "under " + sysfs.root();
        } else {
            where = "in ibv_get_device_list";
        }
        String device;
        if (!settings.deviceName().isEmpty()) {
            if (!devices.contains(settings.deviceName())) {
                return Result.unavailable("RDMA device '" + settings.deviceName() + "' (deviceName) not found " + where
                        + (devices.isEmpty() ? " (no RDMA device)" : " (present: " + devices + ")"));
            }
            device = settings.deviceName();
        } else if (devices.isEmpty()) {
            if (settings.bindAddress().isEmpty() || settings.transportType().equals("AUTO")) {
                return Result.unavailable("no RDMA device (none " + where + "): load the RNIC driver (irdma, mlx5_ib, "
                        + "bnxt_re, ... or siw/rdma_rxe for software RDMA) and rdma_ucm");
            }
            device = "";
        } else {
            device = devices.get(0);
        }
        DeviceAttributes attributes = null;
        if (!device.isEmpty()) {
            try {
                attributes = access.query(device);
            } catch (IOException e) {
                return Result.unavailable("querying RDMA device '" + device + "' failed: " + e.getMessage());
            }
        }
        TransportType transport;
        if (!settings.transportType().equals("AUTO")) {
            transport = TransportType.valueOf(settings.transportType());
        } else {
            transport = attributes != null ? attributes.transportType() : sysfs.transportType(device);
            if (transport == null) {
                return Result.unavailable("the transport of RDMA device '" + device + "' is unknown (no node_type/"
                        + "link_layer under " + sysfs.root() + "): configure transportType");
            }
        }
        if (attributes != null && settings.cqSize() > attributes.maxCqe()) {
            return Result.unavailable("cqSize " + settings.cqSize() + " exceeds max_cqe " + attributes.maxCqe()
                    + " of RDMA device '" + device + "': lower cqSize");
        }
        InetAddress address;
        if (!settings.bindAddress().isEmpty()) {
            try {
                address = InetAddress.getByName(settings.bindAddress());
            } catch (UnknownHostException e) {
                return Result.unavailable("bindAddress '" + settings.bindAddress() + "' is not an address");
            }
            if (!(address instanceof Inet4Address) && !access.ipv6()) {
                return Result.unavailable("bindAddress '" + settings.bindAddress()
                        + "' is not IPv4 (DiSNI 2.0 supports sockaddr_in only)");
            }
        } else {
            List<String> interfaces = sysfs.netDevices(device);
            address = firstAddress(interfaces, access.ipv6());
            if (address == null) {
                return Result.unavailable("no " + (access.ipv6() ? "IPv4 or IPv6" : "IPv4")
                        + " address on the network interface(s) " + interfaces + " of RDMA device '" + device
                        + "': configure bindAddress");
            }
        }
        VerbsBackend backend;
        try {
            backend = access.openBackend();
        } catch (IOException | LinkageError | RuntimeException e) {
            return Result.unavailable("rdma_create_event_channel failed (" + e.getMessage() + "): load rdma_ucm and "
                    + "make /dev/infiniband/rdma_cm accessible to this user");
        }
        return new Result(backend, access.name(), device, transport, new InetSocketAddress(address, 0), attributes,
                null, "");
    }

    /** The first IPv4 address of the interfaces; without one, with {@code ipv6}, the first global then link-local IPv6. */
    private InetAddress firstAddress(List<String> interfaces, boolean ipv6) {
        InetAddress global6 = null;
        InetAddress local6 = null;
        for (String name : interfaces) {
            for (InetAddress a : interfaceAddresses.apply(name)) {
                if (a instanceof Inet4Address) {
                    return a;
                }
                if (a instanceof Inet6Address && ipv6) {
                    if (a.isLinkLocalAddress()) {
                        local6 = local6 == null ? a : local6;
                    } else if (!a.isLoopbackAddress()) {
                        global6 = global6 == null ? a : global6;
                    }
                }
            }
        }
        return global6 != null ? global6 : local6;
    }

    /** The reason text for a failure to load libdisni. */
    static String describeLoadFailure(Throwable e) {
        String message = String.valueOf(e.getMessage());
        if (e instanceof UnsatisfiedLinkError) {
            if (message.contains("no disni in java.library.path")) {
                return "libdisni not on java.library.path (" + System.getProperty("java.library.path")
                        + "): build libdisni 2.0 from DiSNI's sources and add its directory to -Djava.library.path";
            }
            if (message.contains("librdmacm") || message.contains("libibverbs")) {
                return "librdmacm or libibverbs missing (" + message + "): install rdma-core "
                        + "(apt-get install rdma-core libibverbs1 librdmacm1 / dnf install rdma-core libibverbs librdmacm)";
            }
            if (message.contains("already loaded in another classloader")) {
                return "libdisni is already loaded by another class loader (the bundle was updated or refreshed): "
                        + "restart the JVM";
            }
            return "libdisni could not be loaded (" + message + ")";
        }
        if (e instanceof NoClassDefFoundError && message.contains("com.ibm.disni")) {
            return "libdisni failed to load earlier in this class loader (" + message + "): install libdisni on "
                    + "java.library.path and restart the JVM";
        }
        return "DiSNI could not be initialised (" + e + ")";
    }

    private static List<InetAddress> addressesOf(String interfaceName) {
        try {
            NetworkInterface ni = NetworkInterface.getByName(interfaceName);
            return ni == null ? List.of() : new ArrayList<>(Collections.list(ni.getInetAddresses()));
        } catch (SocketException e) {
            return List.of();
        }
    }
}
