package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.verbs.internal.disni.DisniNativeAccess;

/** The probe names the missing piece; the sysfs heuristic picks device, transport and address. */
class VerbsProbeTest {

    @TempDir
    Path sys;

    private static boolean libdisniOnLibraryPath() {
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.exists(Path.of(dir, System.mapLibraryName("disni")))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void withoutLibdisniTheRealDisniProbeReportsTheLibraryPath() {
        // the pom gives the test JVM a java.library.path without native libraries, so that this runs everywhere
        assertFalse(libdisniOnLibraryPath(), "libdisni is on the test JVM's java.library.path "
                + System.getProperty("java.library.path") + ": the module's surefire argLine should leave it out");
        VerbsProbe probe = new VerbsProbe(new DisniNativeAccess(), new SysfsDevices(sys));
        VerbsProbe.Result first = probe.probe(VerbsSettings.defaults());
        assertFalse(first.available());
        assertTrue(first.reason().startsWith("disni: libdisni not on java.library.path ("), first.reason());
        assertTrue(first.reason().contains(System.getProperty("java.library.path")), first.reason());
        assertTrue(first.status().startsWith("unavailable: disni: libdisni not on java.library.path"), first.status());
        // a second activation sees NoClassDefFoundError from the failed static initialiser
        VerbsProbe.Result second = probe.probe(VerbsSettings.defaults());
        assertFalse(second.available());
        assertTrue(second.reason().contains("libdisni"), second.reason());
        assertNull(second.backend());
    }

    @Test
    void missingRdmaCoreLibrariesAreNamed() {
        String reason = VerbsProbe.describeLoadFailure(new UnsatisfiedLinkError(
                "/usr/local/lib/libdisni.so.0.0.0: librdmacm.so.1: cannot open shared object file"));
        assertTrue(reason.startsWith("librdmacm or libibverbs missing"), reason);
        assertTrue(reason.contains("rdma-core"), reason);
    }

    @Test
    void libraryLoadedByAnotherClassLoaderIsNamed() {
        String reason = VerbsProbe.describeLoadFailure(new UnsatisfiedLinkError(
                "Native Library /usr/local/lib/libdisni.so already loaded in another classloader"));
        assertTrue(reason.contains("restart the JVM"), reason);
    }

    @Test
    void wrongJniVersionIsRefused() {
        VerbsProbe.Result r = new VerbsProbe(new Native(31), new SysfsDevices(sys)).probe(VerbsSettings.defaults());
        assertTrue(r.reason().contains("JNI version 31"), r.reason());
    }

    @Test
    void missingSunNioChExportIsNamedWithTheFlag() {
        Native n = new Native(32);
        n.directBufferFailure = new IllegalAccessError("class com.ibm.disni.util.MemoryUtils cannot access class "
                + "sun.nio.ch.DirectBuffer (in module java.base) because module java.base does not export sun.nio.ch");
        VerbsProbe.Result r = new VerbsProbe(n, new SysfsDevices(sys)).probe(VerbsSettings.defaults());
        assertTrue(r.reason().contains("--add-exports java.base/sun.nio.ch=ALL-UNNAMED"), r.reason());
        assertTrue(r.reason().contains("org.osgi.framework.system.packages.extra=sun.nio.ch"), r.reason());
    }

    @Test
    void noRdmaDeviceIsNamed() {
        VerbsProbe.Result r = new VerbsProbe(new Native(32), new SysfsDevices(sys.resolve("absent")))
                .probe(VerbsSettings.defaults());
        assertTrue(r.reason().startsWith("disni: no RDMA device"), r.reason());
    }

    @Test
    void configuredDeviceThatDoesNotExistIsNamedWithThePresentOnes() throws IOException {
        device("mlx5_0", "1: CA", "InfiniBand", "ib0");
        VerbsProbe.Result r = new VerbsProbe(new Native(32), new SysfsDevices(sys))
                .probe(settings("irdma0", "", "AUTO"));
        assertTrue(r.reason().contains("'irdma0'") && r.reason().contains("[mlx5_0]"), r.reason());
    }

    @Test
    void eventChannelFailureIsNamed() throws IOException {
        device("siw0", "4: RNIC", null, "eth0");
        Native n = new Native(32);
        n.openFailure = new IOException("No such device");
        VerbsProbe.Result r = new VerbsProbe(n, new SysfsDevices(sys), name -> List.of(ip("198.51.100.4")))
                .probe(VerbsSettings.defaults());
        assertTrue(r.reason().startsWith("disni: rdma_create_event_channel failed (No such device)"), r.reason());
    }

    @Test
    void iwarpDeviceWithItsInterfaceAddressIsSelected() throws IOException {
        device("irdma0", "4: RNIC", "Ethernet", "ens1f0");
        Native n = new Native(32);
        Map<String, List<InetAddress>> interfaces = Map.of("ens1f0", List.of(ip("fe80::1"), ip("198.51.100.7")));
        VerbsProbe.Result r = new VerbsProbe(n, new SysfsDevices(sys), interfaces::get).probe(VerbsSettings.defaults());
        assertTrue(r.available(), r.status());
        assertEquals("available", r.status());
        assertEquals("irdma0", r.device());
        assertEquals(TransportType.IWARP, r.transportType());
        assertEquals(ip("198.51.100.7"), r.bindAddress().getAddress());
        assertSame(n.backend, r.backend());
    }

    @Test
    void transportHeuristicReadsNodeTypeAndLinkLayer() throws IOException {
        device("mlx5_0", "1: CA", "InfiniBand", "ib0");
        device("mlx5_1", "1: CA", "Ethernet", "ens2");
        device("irdma0", "4: RNIC", "Ethernet", "ens3");
        SysfsDevices devices = new SysfsDevices(sys);
        assertEquals(List.of("irdma0", "mlx5_0", "mlx5_1"), devices.devices());
        assertEquals(TransportType.INFINIBAND, devices.transportType("mlx5_0"));
        assertEquals(TransportType.ROCE, devices.transportType("mlx5_1"));
        assertEquals(TransportType.IWARP, devices.transportType("irdma0"));
        assertNull(devices.transportType("absent"));
        assertEquals(List.of("ens2"), devices.netDevices("mlx5_1"));
    }

    /**
     * Software devices have no {@code device/net}: rxe names its interface in the GID table
     * ({@code gid_attrs/ndevs/0}); siw, iWARP, has no network device in its GID table (reading
     * {@code ndevs/0} fails with EINVAL), its GID 0 is the interface's MAC followed by zeros. As Linux
     * 6.1 shows them in the siw VM.
     */
    @Test
    void softwareDevicesFindTheirInterfaceThroughTheGidTable() throws IOException {
        Path root = Files.createDirectories(sys.resolve("class").resolve("infiniband"));
        Path net = Files.createDirectories(sys.resolve("class").resolve("net"));
        for (String[] ndev : new String[][] {{"eth0", "52:54:00:12:34:56"}, {"eth1", "52:54:00:12:34:57"},
                {"lo", "00:00:00:00:00:00"}}) {
            Files.writeString(Files.createDirectories(net.resolve(ndev[0])).resolve("address"), ndev[1] + "\n");
        }
        Path siw = Files.createDirectories(root.resolve("siw0").resolve("ports").resolve("1"));
        Files.writeString(root.resolve("siw0").resolve("node_type"), "4: RNIC\n");
        Files.writeString(Files.createDirectories(siw.resolve("gids")).resolve("0"),
                "5254:0012:3456:0000:0000:0000:0000:0000\n");
        Files.createDirectories(siw.resolve("gid_attrs").resolve("ndevs"));
        Path rxe = Files.createDirectories(root.resolve("rxe0").resolve("ports").resolve("1"));
        Files.writeString(root.resolve("rxe0").resolve("node_type"), "1: CA\n");
        Files.writeString(Files.createDirectories(rxe.resolve("gid_attrs").resolve("ndevs")).resolve("0"), "eth1\n");
        Files.writeString(Files.createDirectories(rxe.resolve("gids")).resolve("0"),
                "fe80:0000:0000:0000:5054:00ff:fe12:3457\n");
        SysfsDevices devices = new SysfsDevices(root);
        assertEquals(List.of("eth0"), devices.netDevices("siw0"));
        assertEquals(List.of("eth1"), devices.netDevices("rxe0"));

        VerbsProbe.Result r = new VerbsProbe(new Native(32), devices,
                name -> name.equals("eth0") ? List.of(ip("10.0.2.15")) : List.of()).probe(settings("siw0", "", "AUTO"));
        assertTrue(r.available(), r.status());
        assertEquals(ip("10.0.2.15"), r.bindAddress().getAddress());
        assertEquals(TransportType.IWARP, r.transportType());
    }

    @Test
    void aGidThatIsNoMacNamesNoInterface() {
        assertEquals("52:54:00:12:34:56", SysfsDevices.macOfGid("5254:0012:3456:0000:0000:0000:0000:0000"));
        assertNull(SysfsDevices.macOfGid("fe80:0000:0000:0000:5054:00ff:fe12:3456"), "a RoCE GID");
        assertNull(SysfsDevices.macOfGid("0000:0000:0000:0000:0000:0000:0000:0000"), "an empty GID entry");
        assertNull(SysfsDevices.macOfGid(null));
    }

    @Test
    void configuredTransportAndBindAddressOverrideSysfs() throws IOException {
        device("rxe0", "1: CA", "Ethernet", "eth0");
        VerbsProbe.Result r = new VerbsProbe(new Native(32), new SysfsDevices(sys), name -> List.of())
                .probe(settings("rxe0", "203.0.113.9", "IWARP"));
        assertTrue(r.available(), r.status());
        assertEquals(TransportType.IWARP, r.transportType());
        assertEquals(ip("203.0.113.9"), r.bindAddress().getAddress());
    }

    @Test
    void ipv6BindAddressIsRefused() throws IOException {
        device("rxe0", "1: CA", "Ethernet", "eth0");
        VerbsProbe.Result r = new VerbsProbe(new Native(32), new SysfsDevices(sys))
                .probe(settings("rxe0", "2001:db8::5", "AUTO"));
        assertTrue(r.reason().contains("not IPv4"), r.reason());
    }

    @Test
    void deviceWithoutIpv4AddressAsksForBindAddress() throws IOException {
        device("mlx5_0", "1: CA", "Ethernet", "ens9");
        VerbsProbe.Result r = new VerbsProbe(new Native(32), new SysfsDevices(sys), name -> List.of(ip("fe80::2")))
                .probe(VerbsSettings.defaults());
        assertTrue(r.reason().contains("no IPv4 address on the network interface(s) [ens9]"), r.reason());
    }

    private static VerbsSettings settings(String device, String bind, String transport) {
        VerbsSettings d = VerbsSettings.defaults();
        return new VerbsSettings(device, bind, transport, d.cqSize(), d.maxSendWorkRequests(),
                d.maxReceiveWorkRequests(), d.maxMessageSize(), d.maxReadDepth(), d.maxRegionSize(), d.busyPolling(),
                d.pollBatch(), d.eventTimeoutMillis(), d.resolveTimeoutMillis(), d.flushTimeoutMillis(),
                d.retryCount(), d.rnrRetryCount(), d.listenBacklog(), d.sendWithInvalidate());
    }

    private void device(String name, String nodeType, String linkLayer, String netdev) throws IOException {
        Path dir = Files.createDirectories(sys.resolve(name));
        Files.writeString(dir.resolve("node_type"), nodeType + "\n");
        if (linkLayer != null) {
            Path port = Files.createDirectories(dir.resolve("ports").resolve("1"));
            Files.writeString(port.resolve("link_layer"), linkLayer + "\n");
        }
        Files.createDirectories(dir.resolve("device").resolve("net").resolve(netdev));
    }

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Native steps that succeed unless told otherwise. */
    private static final class Native implements NativeAccess {
        final int version;
        final FakeBackend backend = new FakeBackend();
        LinkageError directBufferFailure;
        IOException openFailure;

        Native(int version) {
            this.version = version;
        }

        @Override
        public int loadLibrary() {
            return version;
        }

        @Override
        public void checkDirectBufferAccess() {
            if (directBufferFailure != null) {
                throw directBufferFailure;
            }
        }

        @Override
        public VerbsBackend openBackend() throws IOException {
            if (openFailure != null) {
                throw openFailure;
            }
            return backend;
        }
    }
}
