package smbdirect.rdma.verbs.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.verbs.internal.SysfsDevices;
import smbdirect.rdma.verbs.internal.VerbsProbe;
import smbdirect.rdma.verbs.internal.VerbsSettings;
import smbdirect.rdma.verbs.internal.disni.DisniNativeAccess;

/** The provider service exists only when the probe succeeds; the status service always. */
class VerbsProviderLifecycleTest {

    @TempDir
    Path sys;

    record Registration(Class<?> type, Object service, Dictionary<String, Object> properties) {
    }

    private final List<Registration> registered = new ArrayList<>();
    private final List<Registration> unregistered = new ArrayList<>();

    private VerbsProviderLifecycle.Registrar registrar() {
        return (type, service, properties) -> {
            Registration r = new Registration(type, service, properties);
            registered.add(r);
            return () -> unregistered.add(r);
        };
    }

    @Test
    void unavailableProbeRegistersOnlyTheStatusWithTheReason() {
        VerbsProbe failing = new VerbsProbe(new DisniNativeAccess(), new SysfsDevices(sys));
        VerbsProviderLifecycle lifecycle = new VerbsProviderLifecycle(failing::probe, registrar());
        VerbsProbe.Result result = lifecycle.start(VerbsSettings.defaults());
        // the sysfs tree is an empty directory: no device, with or without libdisni on this machine
        assertFalse(result.available(), result.status());
        assertEquals(1, registered.size());
        Registration status = registered.get(0);
        assertEquals(VerbsStatus.class, status.type());
        assertEquals("verbs", status.properties().get(RdmaProvider.PROVIDER_NAME));
        String text = (String) status.properties().get(VerbsStatus.STATUS);
        assertTrue(text.startsWith("unavailable: "), text);
        assertFalse(((VerbsStatus) status.service()).available());
        assertEquals(text, ((VerbsStatus) status.service()).status());
        lifecycle.stop();
        assertEquals(registered, unregistered);
    }

    @Test
    void invalidConfigurationRegistersOnlyTheStatus() {
        VerbsProviderLifecycle lifecycle = new VerbsProviderLifecycle(null, registrar());
        lifecycle.invalidConfiguration("smbdirect.rdma.verbs: cqSize = 1 is invalid (must be >= 2)");
        assertEquals(1, registered.size());
        assertEquals("unavailable: invalid configuration: smbdirect.rdma.verbs: cqSize = 1 is invalid (must be >= 2)",
                registered.get(0).properties().get(VerbsStatus.STATUS));
    }

    @Test
    void availableProbeRegistersTheProviderRankedAboveTheMock() {
        VerbsProviderLifecycle lifecycle = new VerbsProviderLifecycle(settings -> new VerbsProbe.Result(new NullBackend(),
                "irdma0", TransportType.IWARP, new InetSocketAddress("198.51.100.7", 0), null), registrar());
        lifecycle.start(VerbsSettings.defaults());
        assertEquals(2, registered.size());
        Registration provider = registered.get(0);
        assertEquals(RdmaProvider.class, provider.type());
        assertEquals("verbs", provider.properties().get(RdmaProvider.PROVIDER_NAME));
        assertEquals(100, provider.properties().get("service.ranking"));
        assertEquals("IWARP", provider.properties().get(RdmaProvider.TRANSPORT_TYPE));
        assertEquals("available", provider.properties().get(VerbsStatus.STATUS));
        assertEquals("verbs", ((RdmaProvider) provider.service()).name());
        assertEquals(TransportType.IWARP, ((RdmaProvider) provider.service()).transportType());
        assertEquals("available", registered.get(1).properties().get(VerbsStatus.STATUS));
        lifecycle.stop();
        assertEquals(2, unregistered.size());
    }

    @Test
    void bothServicesNameTheChosenBackendAndWhyOthersWereNotTaken() {
        VerbsProviderLifecycle lifecycle = new VerbsProviderLifecycle(settings -> new VerbsProbe.Result(new NullBackend(),
                "disni", "irdma0", TransportType.IWARP, new InetSocketAddress("198.51.100.7", 0), null, null,
                "rdma-core: needs JDK 22+"), registrar());
        lifecycle.start(VerbsSettings.defaults());
        for (Registration r : registered) {
            assertEquals("disni", r.properties().get(VerbsProviderLifecycle.BACKEND), r.type().toString());
            assertEquals("rdma-core: needs JDK 22+", r.properties().get(VerbsProviderLifecycle.BACKEND_NOTES));
        }
        String described = ((RdmaProvider) registered.get(0).service()).describeSettings();
        assertTrue(described.contains("bind address 198.51.100.7"), described);
        assertTrue(described.endsWith("other backends: rdma-core: needs JDK 22+"), described);
        lifecycle.stop();
    }

    @Test
    void anUnavailableProbeStillNamesEveryBackendItTried() {
        VerbsProviderLifecycle lifecycle = new VerbsProviderLifecycle(settings -> VerbsProbe.Result.unavailable(
                "rdma-core: needs JDK 22+; disni: libdisni not on java.library.path"), registrar());
        lifecycle.start(VerbsSettings.defaults());
        assertEquals(1, registered.size());
        assertEquals("unavailable: rdma-core: needs JDK 22+; disni: libdisni not on java.library.path",
                registered.get(0).properties().get(VerbsStatus.STATUS));
        assertEquals(null, registered.get(0).properties().get(VerbsProviderLifecycle.BACKEND));
        lifecycle.stop();
    }
}
