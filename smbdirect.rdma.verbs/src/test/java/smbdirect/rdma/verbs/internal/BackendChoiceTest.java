package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.rdma.TransportType;

/**
 * The {@code backend} setting and the probe's choice: {@code auto} takes rdma-core when its
 * libraries load (JDK 22+), else DiSNI when libdisni loads, else nothing, naming every reason.
 */
class BackendChoiceTest {

    @TempDir
    Path sys;

    /** A backend whose steps succeed unless told otherwise, and that counts its loads. */
    static class Access implements BackendAccess {
        final String name;
        String loadFailure;
        List<String> devices;
        DeviceAttributes attributes;
        boolean ipv6;
        IOException devicesFailure;
        int loads;
        final FakeBackend backend = new FakeBackend();

        Access(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String load() {
            loads++;
            return loadFailure;
        }

        @Override
        public String check() {
            return null;
        }

        @Override
        public List<String> devices() throws IOException {
            if (devicesFailure != null) {
                throw devicesFailure;
            }
            return devices;
        }

        @Override
        public DeviceAttributes query(String device) {
            return attributes;
        }

        @Override
        public boolean ipv6() {
            return ipv6;
        }

        @Override
        public VerbsBackend openBackend() {
            return backend;
        }
    }

    private final Access rdmaCore = new Access("rdma-core");
    private final Access disni = new Access("disni");
    private final Map<String, List<InetAddress>> interfaces = Map.of("eth0",
            List.of(ip("fe80::5054:ff:fe12:3456%1"), ip("2001:db8::15"), ip("10.0.2.15")));

    private VerbsProbe probe() {
        return new VerbsProbe(List.of(rdmaCore, disni), new SysfsDevices(sys), name -> interfaces.getOrDefault(name,
                List.of()));
    }

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private void sysfsDevice(String name, String nodeType, String netdev) throws IOException {
        Path dir = Files.createDirectories(sys.resolve(name));
        Files.writeString(dir.resolve("node_type"), nodeType + "\n");
        Files.createDirectories(dir.resolve("device").resolve("net").resolve(netdev));
    }

    static DeviceAttributes siw(int maxCqe) {
        return new DeviceAttributes("siw0", TransportType.IWARP, -1L, 1024, 6, maxCqe, 128, 128,
                DeviceAttributes.MEM_MGT_EXTENSIONS, "0.0.0", DeviceAttributes.PORT_ACTIVE, 5, 0x7fffffff, 2);
    }

    @Test
    void autoTakesRdmaCoreWhenItsLibrariesLoadAndNeverLoadsDisni() throws IOException {
        sysfsDevice("siw0", "4: RNIC", "eth0");
        rdmaCore.devices = List.of("siw0");
        rdmaCore.attributes = siw(8192);
        VerbsProbe.Result r = probe().probe(VerbsSettings.defaults());
        assertTrue(r.available(), r.status());
        assertEquals("rdma-core", r.backendName());
        assertSame(rdmaCore.backend, r.backend());
        assertEquals(TransportType.IWARP, r.transportType(), "from ibv_device.transport_type");
        assertSame(rdmaCore.attributes, r.deviceAttributes());
        assertEquals(ip("10.0.2.15"), r.bindAddress().getAddress(), "IPv4 first");
        assertEquals("", r.notes());
        assertEquals(0, disni.loads);
    }

    @Test
    void autoFallsBackToDisniAndSaysWhyRdmaCoreWasNotTaken() throws IOException {
        sysfsDevice("irdma0", "4: RNIC", "eth0");
        rdmaCore.loadFailure = "needs JDK 22+ (the Foreign Function & Memory API); this JVM is 17.0.15";
        VerbsProbe.Result r = probe().probe(VerbsSettings.defaults());
        assertTrue(r.available(), r.status());
        assertEquals("disni", r.backendName());
        assertEquals("rdma-core: needs JDK 22+ (the Foreign Function & Memory API); this JVM is 17.0.15", r.notes());
        assertNull(r.deviceAttributes(), "DiSNI queries no device");
        assertEquals(TransportType.IWARP, r.transportType(), "from sysfs");
    }

    @Test
    void autoWithNeitherBackendRegistersNothingAndNamesBoth() {
        rdmaCore.loadFailure = "needs JDK 22+";
        disni.loadFailure = "libdisni not on java.library.path (/usr/local/lib)";
        VerbsProbe.Result r = probe().probe(VerbsSettings.defaults());
        assertFalse(r.available());
        assertEquals("unavailable: rdma-core: needs JDK 22+; disni: libdisni not on java.library.path (/usr/local/lib)",
                r.status());
        assertNull(r.backend());
    }

    @Test
    void oncePickedABackendsLaterFailureIsTheAnswer() {
        rdmaCore.devicesFailure = new IOException("ibv_get_device_list failed: errno 38 ENOSYS (Function not implemented)");
        VerbsProbe.Result r = probe().probe(VerbsSettings.defaults());
        assertFalse(r.available());
        assertTrue(r.reason().startsWith("rdma-core: ibv_get_device_list failed: errno 38 ENOSYS"), r.reason());
        assertTrue(r.reason().contains("load ib_uverbs"), r.reason());
        assertEquals(0, disni.loads, "auto chose rdma-core because its libraries load");
    }

    @Test
    void anExplicitBackendIsTheOnlyOneTried() {
        rdmaCore.loadFailure = "needs JDK 22+";
        VerbsProbe.Result r = probe().probe(VerbsSettings.defaults().withBackend("rdma-core"));
        assertEquals("unavailable: rdma-core: needs JDK 22+", r.status());
        assertEquals(0, disni.loads);
        disni.loadFailure = "libdisni not on java.library.path";
        VerbsProbe.Result d = probe().probe(VerbsSettings.defaults().withBackend("DiSNI"));
        assertEquals("unavailable: disni: libdisni not on java.library.path", d.status());
        assertEquals(1, rdmaCore.loads, "not tried for backend disni");
    }

    @Test
    void theBackendSettingIsValidatedByName() {
        assertEquals("rdma-core", VerbsSettings.defaults().withBackend(" RDMA-Core ").backend());
        assertEquals("auto", VerbsSettings.defaults().withBackend("").backend());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VerbsSettings.defaults().withBackend("ibverbs"));
        assertEquals("smbdirect.rdma.verbs: backend = ibverbs is invalid (must be auto, rdma-core or disni)",
                e.getMessage());
    }

    @Test
    void rdmaCoreTakesDevicesFromItsOwnListAndRefusesAnUnknownName() {
        rdmaCore.devices = List.of("rxe0", "siw0");
        VerbsProbe.Result r = probe().probe(new VerbsSettings("mlx5_0", "", "AUTO", 4096, 1024, 1024, 1 << 30, 16,
                1L << 30, false, 32, 10, 5000, 5000, 6, 0, 128, false));
        assertEquals("unavailable: rdma-core: RDMA device 'mlx5_0' (deviceName) not found in ibv_get_device_list "
                + "(present: [rxe0, siw0])", r.status());
        rdmaCore.devices = List.of();
        assertTrue(probe().probe(VerbsSettings.defaults()).reason()
                .startsWith("rdma-core: no RDMA device (none in ibv_get_device_list)"));
    }

    @Test
    void aCompletionQueueLargerThanTheDeviceAllowsIsRefused() throws IOException {
        sysfsDevice("siw0", "4: RNIC", "eth0");
        rdmaCore.devices = List.of("siw0");
        rdmaCore.attributes = siw(2048);
        VerbsProbe.Result r = probe().probe(VerbsSettings.defaults());
        assertEquals("unavailable: rdma-core: cqSize 4096 exceeds max_cqe 2048 of RDMA device 'siw0': lower cqSize",
                r.status());
    }

    @Test
    void rdmaCoreTakesAnIpv6BindAddressAndFindsOneWhereThereIsNoIpv4() throws IOException {
        sysfsDevice("rxe0", "1: CA", "eth1");
        rdmaCore.devices = List.of("rxe0");
        rdmaCore.ipv6 = true;
        VerbsProbe.Result r = probe().probe(new VerbsSettings("", "2001:db8::9", "AUTO", 4096, 1024, 1024, 1 << 30, 16,
                1L << 30, false, 32, 10, 5000, 5000, 6, 0, 128, false));
        assertTrue(r.available(), r.status());
        assertEquals(ip("2001:db8::9"), r.bindAddress().getAddress());
        Map<String, List<InetAddress>> v6only = Map.of("eth1", List.of(ip("fe80::1%1"), ip("2001:db8::15")));
        VerbsProbe p = new VerbsProbe(List.of(rdmaCore), new SysfsDevices(sys), v6only::get);
        assertEquals(ip("2001:db8::15"), p.probe(VerbsSettings.defaults()).bindAddress().getAddress(),
                "a global address before a link-local one");
    }

    @Test
    void onJdk17RdmaCoreSaysItNeedsJdk22() {
        BackendAccess a = RdmaCoreAccessLoader.load(17, X86_64_GLIBC, getClass().getClassLoader());
        assertEquals("rdma-core", a.name());
        assertTrue(a.load().startsWith("needs JDK 22+ (the Foreign Function & Memory API); this JVM is "), a.load());
        assertTrue(a.load().endsWith("or use backend disni"), a.load());
    }

    /** The platform whose structure layouts the rdma-core backend has. */
    private static final NativePlatform X86_64_GLIBC = new NativePlatform("Linux", "amd64", NativePlatform.GLIBC);

    @Test
    void onAnotherPlatformRdmaCoreIsRefusedBeforeAnyOfItsClassesLoad() {
        List<String> asked = new ArrayList<>();
        ClassLoader recording = new ClassLoader(null) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                asked.add(name);
                throw new ClassNotFoundException(name);
            }
        };
        BackendAccess a = RdmaCoreAccessLoader.load(25, new NativePlatform("Linux", "aarch64", NativePlatform.GLIBC),
                recording);
        assertEquals("rdma-core", a.name());
        assertEquals("its C structure layouts (ibv_context with its pthread_mutex_t, ibv_wc, ibv_send_wr, ...) are "
                + "those of Linux x86-64 (amd64) with glibc; this JVM runs on Linux aarch64 with glibc: use backend "
                + "disni (its native library is compiled on the machine)", a.load());
        assertEquals(List.of(), asked, "no class of the backend was asked for");
        VerbsProbe.Result r = new VerbsProbe(List.of(a), new SysfsDevices(Path.of("/nonexistent")))
                .probe(VerbsSettings.defaults());
        assertEquals("unavailable: rdma-core: " + a.load(), r.status());
    }

    @Test
    void aBuildWithoutTheBackendSaysSo() {
        ClassLoader without = new ClassLoader(null) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                throw new ClassNotFoundException(name);
            }
        };
        BackendAccess a = RdmaCoreAccessLoader.load(25, X86_64_GLIBC, without);
        assertEquals("this build of smbdirect.rdma.verbs carries no rdma-core backend (it was built without a JDK 22+ "
                + "compiler)", a.load());
    }

    @Test
    void theProbeTriesTheBackendsInTheGivenOrder() {
        List<String> order = new ArrayList<>();
        Access first = new Access("rdma-core") {
            @Override
            public String load() {
                order.add(name);
                return "no";
            }
        };
        Access second = new Access("disni") {
            @Override
            public String load() {
                order.add(name);
                return "no";
            }
        };
        new VerbsProbe(List.of(first, second), new SysfsDevices(sys)).probe(VerbsSettings.defaults());
        assertEquals(List.of("rdma-core", "disni"), order);
    }
}
