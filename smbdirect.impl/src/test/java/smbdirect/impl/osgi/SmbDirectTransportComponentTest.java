package smbdirect.impl.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.osgi.LogCapture.logged;
import static smbdirect.impl.transport.Fakes.props;
import static smbdirect.impl.config.ConfigurationAnnotations.transportConfig;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.osgi.settings.LastGoodSettings;
import smbdirect.impl.transport.Fakes.FakeConnection;
import smbdirect.impl.transport.Fakes.FakeEngines;
import smbdirect.impl.transport.Fakes.FakeProvider;
import smbdirect.impl.transport.Fakes.RecordingHandler;

class SmbDirectTransportComponentTest {

    private final FakeEngines engines = new FakeEngines();
    private SmbDirectTransportComponent component;

    @AfterEach
    void deactivate() {
        if (component != null) {
            component.deactivate();
        }
    }

    @Test
    void badValueAtFirstActivationKeepsDefaultsAndStaysUsable() {
        List<String> lines = logged(() -> component = new SmbDirectTransportComponent(
                transportConfig("maxReceiveSize", 100), engines));
        assertEquals(TransportSettings.DEFAULTS, component.settings());
        List<String> errors = lines.stream().filter(l -> l.contains("ERROR")).toList();
        assertEquals(1, errors.size(), lines.toString());
        assertTrue(errors.get(0).contains("maxReceiveSize=100"), errors.get(0));

        component.addProvider(new FakeProvider("a"), props("a", 0, 1));
        assertEquals(TransportSettings.DEFAULTS, engines.get("a").settings());
        assertNotNull(component.connect(new InetSocketAddress("10.0.0.1", 445), Duration.ofSeconds(1),
                new RecordingHandler()).toCompletableFuture().getNow(null));
    }

    @Test
    void aRefusedConfigurationAtActivationRunsOnTheLastGoodSettingsTheGuardKeptNotTheDefaults(@TempDir Path data)
            throws Exception {
        // what the settings guard kept while the runtime ran; the file was then edited by hand while stopped
        Path lastGood = Files.createDirectories(data.resolve("last-good"));
        LastGoodSettings.write(lastGood, SmbDirectTransportComponent.PID, new Hashtable<>(Map.of("receiveCreditMax", 128)));
        Map<String, Object> raw = Map.of("receiveCreditMax", "0", "felix.fileinstall.filename",
                "file:/srv/etc/smbdirect.transport.cfg");
        List<String> lines = logged(() -> component = new SmbDirectTransportComponent(
                contextWithFramework(org.osgi.framework.Bundle.ACTIVE, data), transportConfig("receiveCreditMax", 0), raw,
                engines));
        assertEquals(128, component.settings().receiveCreditMax(), lines.toString());
        List<String> errors = lines.stream().filter(l -> l.contains("ERROR")).toList();
        assertEquals(1, errors.size(), lines.toString());
        assertTrue(errors.get(0).contains("from /srv/etc/smbdirect.transport.cfg not applied, receiveCreditMax=0"),
                errors.get(0));
        assertTrue(errors.get(0).contains("; the last good settings, kept in " + lastGood + ", are in force: "),
                errors.get(0));
        assertEquals(1, lines.size(), "one line says what was refused and what is in force: " + lines);
        component.addProvider(new FakeProvider("a"), props("a", 0, 1));
        assertEquals(128, engines.get("a").settings().receiveCreditMax());

        // the guard puts the same values back a moment later: nothing changes, nothing is said
        List<String> putBack = logged(() -> component.modified(transportConfig("receiveCreditMax", 128),
                Map.of("receiveCreditMax", 128)));
        assertEquals(List.of(), putBack);
        assertEquals(128, engines.get("a").settings().receiveCreditMax());
    }

    @Test
    void aRefusedConfigurationAtActivationWithNothingKeptRunsOnTheDefaults(@TempDir Path data) {
        List<String> lines = logged(() -> component = new SmbDirectTransportComponent(
                contextWithFramework(org.osgi.framework.Bundle.ACTIVE, data), transportConfig("receiveCreditMax", 0),
                Map.of("receiveCreditMax", "0"), engines));
        assertEquals(TransportSettings.DEFAULTS, component.settings());
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("ERROR") && lines.get(0).contains("not applied, receiveCreditMax=0")
                && lines.get(0).contains("; the defaults are in force (no last good settings kept)"), lines.get(0));
    }

    @Test
    void aRefusedConfigurationAtActivationOverKeptValuesRefusedTooRunsOnTheDefaultsSayingWhy(@TempDir Path data)
            throws Exception {
        // kept by an earlier version whose range allowed it
        Path lastGood = Files.createDirectories(data.resolve("last-good"));
        LastGoodSettings.write(lastGood, SmbDirectTransportComponent.PID, new Hashtable<>(Map.of("maxReceiveSize", 100)));
        List<String> lines = logged(() -> component = new SmbDirectTransportComponent(
                contextWithFramework(org.osgi.framework.Bundle.ACTIVE, data), transportConfig("receiveCreditMax", 0),
                Map.of("receiveCreditMax", "0"), engines));
        assertEquals(TransportSettings.DEFAULTS, component.settings());
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("not applied, receiveCreditMax=0") && lines.get(0).contains(
                "; the defaults are in force (the last good settings kept in " + lastGood + " are refused too, maxReceiveSize=100"),
                lines.get(0));
    }

    @Test
    void refusedModificationKeepsTheLastGoodSettings() {
        component = new SmbDirectTransportComponent(transportConfig("receiveCreditMax", 100), engines);
        component.addProvider(new FakeProvider("a"), props("a", 0, 1));
        assertEquals(100, engines.get("a").settings().receiveCreditMax());
        int seen = engines.get("a").settingsSeen.size();

        for (Object[] bad : new Object[][] { { "maxReceiveSize", 100 }, { "maxFragmentedRecvSize", 131071 },
                { "receiveCreditMax", 0 } }) {
            List<String> lines = logged(() -> component.modified(transportConfig(bad[0].toString(), bad[1]), Map.of()));
            List<String> errors = lines.stream().filter(l -> l.contains("ERROR")).toList();
            assertEquals(1, errors.size(), lines.toString());
            assertTrue(errors.get(0).contains(bad[0] + "=" + bad[1]), errors.get(0));
        }
        assertEquals(100, component.settings().receiveCreditMax());
        assertEquals(8192, component.settings().maxReceiveSize());
        assertEquals(seen, engines.get("a").settingsSeen.size(), "a refused configuration reaches no engine");
        assertEquals(100, component.getTransportDTO().settings.receiveCreditMax);
    }

    @Test
    void aValueThatIsNoNumberInItsFileIsRefusedNamingTheFileTheAttributeAndTheValue() {
        component = new SmbDirectTransportComponent(transportConfig("receiveCreditMax", 100), engines);
        Map<String, Object> raw = new HashMap<>();
        raw.put("service.pid", "smbdirect.transport");
        raw.put("felix.fileinstall.filename", "file:/srv/appliance/etc/smbdirect.transport.cfg");
        raw.put("receiveCreditMax", "lots");
        List<String> lines = logged(() -> component.modified(transportConfig(), raw));
        List<String> errors = lines.stream().filter(l -> l.contains("ERROR")).toList();
        assertEquals(1, errors.size(), lines.toString());
        assertTrue(errors.get(0).contains("smbdirect.transport from /srv/appliance/etc/smbdirect.transport.cfg not applied,"
                + " receiveCreditMax=lots refused: not a whole number (32-bit); the last good settings stay in force"),
                errors.get(0));
        assertEquals(100, component.settings().receiveCreditMax());

        raw.put("receiveCreditMax", "99999999999");
        List<String> tooBig = logged(() -> component.modified(transportConfig(), raw));
        assertTrue(tooBig.stream().anyMatch(l -> l.contains("receiveCreditMax=99999999999 refused")), tooBig.toString());
        raw.put("receiveCreditMax", " 77 ");
        assertTrue(component.configure(transportConfig("receiveCreditMax", 77), raw), "numbers in text are accepted");
        assertEquals(77, component.settings().receiveCreditMax());
    }

    @Test
    void goodModificationReachesEveryEngineAndTheDto() {
        component = new SmbDirectTransportComponent(transportConfig(), engines);
        component.addProvider(new FakeProvider("a"), props("a", 0, 1));
        component.addProvider(new FakeProvider("b"), props("b", 5, 2));
        assertTrue(component.configure(transportConfig("receiveCreditMax", 64, "keepaliveIntervalSeconds", 10L)));
        for (String p : List.of("a", "b")) {
            assertEquals(64, engines.get(p).settings().receiveCreditMax());
            assertEquals(Duration.ofSeconds(10), engines.get(p).settings().keepaliveInterval());
        }
        TransportDTO dto = component.getTransportDTO();
        assertEquals(64, dto.settings.receiveCreditMax);
        assertEquals(10, dto.settings.keepaliveIntervalSeconds);
    }

    @Test
    void badProviderTargetIsRefusedAndTheOldSelectionStays() {
        component = new SmbDirectTransportComponent(transportConfig("provider.target", "(smbdirect.provider=b)"),
                engines);
        List<String> lines = logged(() -> assertFalse(component.configure(
                transportConfig("provider.target", "(smbdirect.provider=a", "receiveCreditMax", 7))));
        assertTrue(lines.stream().anyMatch(l -> l.contains("ERROR") && l.contains("provider.target=")), lines.toString());
        assertEquals(255, component.settings().receiveCreditMax(), "refused as a whole");
        component.addProvider(new FakeProvider("a"), props("a", 10, 1));
        component.addProvider(new FakeProvider("b"), props("b", 0, 2));
        TransportDTO dto = component.getTransportDTO();
        assertEquals("b", Arrays.stream(dto.providers).filter(p -> p.selected).findFirst().orElseThrow().name);
    }

    /** A bundle context whose system bundle is in {@code systemState} (its own bundle ACTIVE). */
    private static org.osgi.framework.BundleContext contextWithFramework(int systemState) {
        return contextWithFramework(systemState, null);
    }

    /** The same, with its data area in {@code data}. */
    private static org.osgi.framework.BundleContext contextWithFramework(int systemState, Path data) {
        org.osgi.framework.Bundle system = bundleIn(systemState);
        org.osgi.framework.Bundle own = bundleIn(org.osgi.framework.Bundle.ACTIVE);
        return (org.osgi.framework.BundleContext) java.lang.reflect.Proxy.newProxyInstance(
                SmbDirectTransportComponentTest.class.getClassLoader(),
                new Class<?>[] {org.osgi.framework.BundleContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getBundle" -> args != null && args.length == 1 && (Long) args[0] == 0L ? system : own;
                    case "getDataFile" -> data == null ? null : data.resolve((String) args[0]).toFile();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static org.osgi.framework.Bundle bundleIn(int state) {
        return (org.osgi.framework.Bundle) java.lang.reflect.Proxy.newProxyInstance(
                SmbDirectTransportComponentTest.class.getClassLoader(),
                new Class<?>[] {org.osgi.framework.Bundle.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getState" -> state;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void providerWithdrawnWhileTheFrameworkStopsClosesItsConnectionsWithShutdown() throws Exception {
        FakeProvider a = new FakeProvider("a");
        RecordingHandler onA = new RecordingHandler();
        SmbDirectConnection ca = connectOverTheOnlyProvider(org.osgi.framework.Bundle.STOPPING, a, onA);
        component.removeProvider(a);
        assertFalse(ca.isOpen());
        assertEquals(List.of(CloseReason.Kind.SHUTDOWN), onA.reasons.stream().map(CloseReason::kind).toList());
    }

    @Test
    void providerWithdrawnWhileTheFrameworkRunsClosesItsConnectionsAsReplaced() throws Exception {
        FakeProvider a = new FakeProvider("a");
        RecordingHandler onA = new RecordingHandler();
        connectOverTheOnlyProvider(org.osgi.framework.Bundle.ACTIVE, a, onA);
        component.removeProvider(a);
        assertEquals(List.of(CloseReason.Kind.PROVIDER_REPLACED), onA.reasons.stream().map(CloseReason::kind).toList());
    }

    /**
     * The component in a framework whose system bundle is in {@code frameworkState}, with
     * {@code provider} as its only provider and one connection over it, reported to {@code handler}.
     */
    private SmbDirectConnection connectOverTheOnlyProvider(int frameworkState, FakeProvider provider,
            RecordingHandler handler) throws Exception {
        component = new SmbDirectTransportComponent(contextWithFramework(frameworkState), transportConfig(), Map.of(),
                engines);
        component.addProvider(provider, props(provider.name(), 0, 1));
        return component.connect(new InetSocketAddress("10.0.0.1", 445), Duration.ofSeconds(1), handler)
                .toCompletableFuture().get(1, TimeUnit.SECONDS);
    }

    @Test
    void providerLeavingClosesOnlyItsConnectionsWithProviderReplaced() throws Exception {
        component = new SmbDirectTransportComponent(transportConfig(), engines);
        FakeProvider a = new FakeProvider("a");
        FakeProvider b = new FakeProvider("b");
        component.addProvider(a, props("a", 0, 1));
        RecordingHandler onA = new RecordingHandler();
        SmbDirectConnection ca = component.connect(new InetSocketAddress("10.0.0.1", 445), Duration.ofSeconds(1), onA)
                .toCompletableFuture().get(1, TimeUnit.SECONDS);
        component.addProvider(b, props("b", 10, 2));
        RecordingHandler onB = new RecordingHandler();
        SmbDirectConnection cb = component.connect(new InetSocketAddress("10.0.0.1", 445), Duration.ofSeconds(1), onB)
                .toCompletableFuture().get(1, TimeUnit.SECONDS);
        assertEquals("a", ca.providerName());
        assertEquals("b", cb.providerName());
        assertTrue(ca.isOpen(), "a better provider leaves existing connections alone");

        component.removeProvider(a);
        assertFalse(ca.isOpen());
        assertEquals(List.of(CloseReason.Kind.PROVIDER_REPLACED), onA.reasons.stream().map(CloseReason::kind).toList());
        assertTrue(cb.isOpen());
        assertTrue(onB.reasons.isEmpty());
        TransportDTO dto = component.getTransportDTO();
        assertEquals(1, dto.connections.length);
        assertEquals(((FakeConnection) ca).id, dto.recentlyClosed[0].id, "closed connections of a gone provider stay visible");
    }

    @Test
    void deactivationShutsEveryEngineDownAndStopsTheTimerThread() throws Exception {
        component = new SmbDirectTransportComponent(transportConfig(), engines);
        component.addProvider(new FakeProvider("a"), props("a", 0, 1));
        RecordingHandler h = new RecordingHandler();
        component.connect(new InetSocketAddress("10.0.0.1", 445), Duration.ofSeconds(1), h)
                .toCompletableFuture().get(1, TimeUnit.SECONDS);
        AtomicReference<String> timerThread = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        component.timer().schedule(() -> {
            timerThread.set(Thread.currentThread().getName() + "/" + Thread.currentThread().isDaemon());
            ran.countDown();
        }, 0);
        assertTrue(ran.await(5, TimeUnit.SECONDS));
        assertEquals("smbdirect-timer/true", timerThread.get());

        component.deactivate();
        assertEquals(CloseReason.Kind.SHUTDOWN, engines.get("a").shutdownReason.kind());
        assertEquals(List.of(CloseReason.Kind.SHUTDOWN), h.reasons.stream().map(CloseReason::kind).toList());
        assertTrue(component.timer().executor().awaitTermination(5, TimeUnit.SECONDS));
        Throwable failure = component.connect(new InetSocketAddress("10.0.0.1", 445), Duration.ofSeconds(1), h)
                .toCompletableFuture().handle((c, t) -> t).get();
        assertNotNull(failure);
        component = null;
    }

    @SuppressWarnings("removal") // the deprecated lastNegotiationFailure still works
    @Test
    void noProviderMeansNoProviderErrorsAndAnEmptySelection() {
        component = new SmbDirectTransportComponent(transportConfig(), engines);
        TransportDTO dto = component.getTransportDTO();
        assertEquals(0, dto.providers.length);
        assertNull(dto.lastNegotiationFailure);
        assertEquals(255, dto.settings.receiveCreditMax);
    }
}
