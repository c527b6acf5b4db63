package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.Inet4Address;
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
 * Decides whether the verbs provider can run here, and if not names the missing piece and how to
 * install it. Steps: load libdisni (and check its JNI version), check DiSNI's direct-buffer access
 * ({@code sun.nio.ch}), select the RDMA device and its IPv4 address from sysfs / configuration,
 * open the RDMA CM event channel. Stateless.
 */
public final class VerbsProbe {

    /** The outcome: either a backend and selection, or the reason the provider is unavailable. */
    public record Result(VerbsBackend backend, String device, TransportType transportType,
            InetSocketAddress bindAddress, String reason) {

        public boolean available() {
            return reason == null;
        }

        /** The {@code smbdirect.provider.status} value. */
        public String status() {
            return available() ? "available" : "unavailable: " + reason;
        }

        public static Result unavailable(String reason) {
            return new Result(null, null, null, null, reason);
        }
    }

    private final NativeAccess access;
    private final SysfsDevices sysfs;
    private final Function<String, List<InetAddress>> interfaceAddresses;

    public VerbsProbe(NativeAccess access, SysfsDevices sysfs) {
        this(access, sysfs, VerbsProbe::addressesOf);
    }

    VerbsProbe(NativeAccess access, SysfsDevices sysfs, Function<String, List<InetAddress>> interfaceAddresses) {
        this.access = access;
        this.sysfs = sysfs;
        this.interfaceAddresses = interfaceAddresses;
    }

    public Result probe(VerbsSettings settings) {
        int version;
        try {
            version = access.loadLibrary();
        } catch (IOException | LinkageError e) {
            return Result.unavailable(describeLoadFailure(e));
        }
        if (version != VerbsConstants.DISNI_JNI_VERSION) {
            return Result.unavailable("libdisni has JNI version " + version + " but the embedded DiSNI 2.0 needs "
                    + VerbsConstants.DISNI_JNI_VERSION + ": build libdisni from the DiSNI 2.0 sources");
        }
        try {
            access.checkDirectBufferAccess();
        } catch (IllegalAccessError | NoClassDefFoundError e) {
            return Result.unavailable("java.base/sun.nio.ch is not accessible to DiSNI (" + e.getMessage()
                    + "): start the JVM with --add-exports java.base/sun.nio.ch=ALL-UNNAMED and export sun.nio.ch "
                    + "as a system package (org.osgi.framework.system.packages.extra=sun.nio.ch)");
        }
        List<String> devices = sysfs.devices();
        String device;
        if (!settings.deviceName().isEmpty()) {
            if (!devices.contains(settings.deviceName())) {
                return Result.unavailable("RDMA device '" + settings.deviceName() + "' (deviceName) not found under "
                        + sysfs.root() + (devices.isEmpty() ? " (no RDMA device)" : " (present: " + devices + ")"));
            }
            device = settings.deviceName();
        } else if (devices.isEmpty()) {
            if (settings.bindAddress().isEmpty() || settings.transportType().equals("AUTO")) {
                return Result.unavailable("no RDMA device (" + sysfs.root() + " is empty or missing): load the RNIC "
                        + "driver (irdma, mlx5_ib, bnxt_re, ... or siw/rdma_rxe for software RDMA) and rdma_ucm");
            }
            device = "";
        } else {
            device = devices.get(0);
        }
        TransportType transport;
        if (!settings.transportType().equals("AUTO")) {
            transport = TransportType.valueOf(settings.transportType());
        } else {
            transport = sysfs.transportType(device);
            if (transport == null) {
                return Result.unavailable("the transport of RDMA device '" + device + "' is unknown (no node_type/"
                        + "link_layer under " + sysfs.root() + "): configure transportType");
            }
        }
        InetAddress address;
        if (!settings.bindAddress().isEmpty()) {
            try {
                address = InetAddress.getByName(settings.bindAddress());
            } catch (UnknownHostException e) {
                return Result.unavailable("bindAddress '" + settings.bindAddress() + "' is not an address");
            }
            if (!(address instanceof Inet4Address)) {
                return Result.unavailable("bindAddress '" + settings.bindAddress()
                        + "' is not IPv4 (DiSNI 2.0 supports sockaddr_in only)");
            }
        } else {
            List<String> interfaces = sysfs.netDevices(device);
            address = null;
            for (String name : interfaces) {
                for (InetAddress a : interfaceAddresses.apply(name)) {
                    if (a instanceof Inet4Address && address == null) {
                        address = a;
                    }
                }
            }
            if (address == null) {
                return Result.unavailable("no IPv4 address on the network interface(s) " + interfaces
                        + " of RDMA device '" + device + "': configure bindAddress");
            }
        }
        VerbsBackend backend;
        try {
            backend = access.openBackend();
        } catch (IOException | LinkageError | RuntimeException e) {
            return Result.unavailable("rdma_create_event_channel failed (" + e.getMessage() + "): load rdma_ucm and "
                    + "make /dev/infiniband/rdma_cm accessible to this user");
        }
        return new Result(backend, device, transport, new InetSocketAddress(address, 0), null);
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
