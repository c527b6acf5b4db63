package smbdirect.impl.osgi.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import org.apache.felix.webconsole.spi.ConfigurationHandler;
import org.apache.felix.webconsole.spi.ValidationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.BundleListener;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

import smbdirect.api.settings.ConfigurationCheck;
import smbdirect.api.settings.SettingRefusedException;

/**
 * The guard over one configuration ({@code smbdirect.transport}, one attribute
 * {@code receiveCreditMax} in [1, 65535]) held by a Config Admin stand-in: what it keeps, what it
 * puts back, what it reports.
 */
class SettingsGuardTest {

    private static final String PID = "smbdirect.transport";

    @TempDir
    Path data;

    /** Config Admin's copy of the configuration and every update the guard made. */
    private Hashtable<String, Object> stored = new Hashtable<>();
    private final List<Hashtable<String, Object>> updates = new ArrayList<>();
    /** Holds the guard's own thread at its next look into Config Admin until counted down. */
    private volatile java.util.concurrent.CountDownLatch guardThreadMayGo = new java.util.concurrent.CountDownLatch(0);
    private SettingsGuard guard;
    /** The state of the bundle holding the metatype, and the guard's listener to bundle events. */
    private volatile int bundleState = Bundle.ACTIVE;
    private final Bundle bundle = proxy(Bundle.class, (p, m, a) -> m.getName().equals("getState") ? bundleState : null);
    private BundleListener bundleListener;
    /** The {@code smbdirect.settings.finding} properties of other bundles' services. */
    private final List<String> othersFindings = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The services the guard registered, by interface name. */
    private final java.util.Map<String, Object> registered = new java.util.concurrent.ConcurrentHashMap<>();
    /** The transport's own check in this test: an odd number of credits is refused. */
    private final ConfigurationCheck evenCredits = properties -> {
        Object v = properties.get("receiveCreditMax");
        if (v != null && Long.parseLong(String.valueOf(v).strip()) % 2 != 0) {
            throw new SettingRefusedException("receiveCreditMax", v, "must be even");
        }
    };

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, java.lang.reflect.InvocationHandler h) {
        return (T) Proxy.newProxyInstance(SettingsGuardTest.class.getClassLoader(), new Class<?>[] {type}, h);
    }

    private SettingsGuard guard() throws Exception {
        AttributeDefinition credits = proxy(AttributeDefinition.class, (p, m, a) -> switch (m.getName()) {
            case "getID", "getName" -> "receiveCreditMax";
            case "getType" -> AttributeDefinition.INTEGER;
            case "getCardinality" -> 0;
            case "validate" -> {
                long v = Long.parseLong(((String) a[0]).strip());
                yield v < 1 || v > 65535 ? "not in [1, 65535]" : "";
            }
            default -> null;
        });
        ObjectClassDefinition ocd = proxy(ObjectClassDefinition.class, (p, m, a) ->
                m.getName().equals("getAttributeDefinitions") ? new AttributeDefinition[] {credits} : null);
        MetaTypeInformation info = proxy(MetaTypeInformation.class, (p, m, a) -> switch (m.getName()) {
            case "getPids" -> new String[] {PID};
            case "getFactoryPids" -> new String[0];
            case "getObjectClassDefinition" -> ocd;
            default -> null;
        });
        MetaTypeService metaType = proxy(MetaTypeService.class, (p, m, a) -> info);
        BundleContext context = proxy(BundleContext.class, (p, m, a) -> switch (m.getName()) {
            case "getDataFile" -> data.resolve((String) a[0]).toFile();
            case "getBundles" -> new Bundle[] {bundle};
            case "addBundleListener" -> bundleListener = (BundleListener) a[0];
            case "registerService" -> {
                registered.put((String) a[0], a[1]);
                yield null;
            }
            case "getServiceReferences" -> String.valueOf(a[1]).equals("(" + SettingsGuard.SETTINGS_FINDING + "=*)")
                    && !othersFindings.isEmpty() ? othersFindings.stream().map(f -> proxy(ServiceReference.class,
                            (p2, m2, a2) -> m2.getName().equals("getProperty") && SettingsGuard.SETTINGS_FINDING.equals(a2[0])
                                    ? f : null)).toArray(ServiceReference[]::new) : null;
            default -> null;
        });
        Configuration configuration = proxy(Configuration.class, (p, m, a) -> {
            synchronized (this) {
                switch (m.getName()) {
                    case "getPid":
                        return PID;
                    case "getFactoryPid":
                        return null;
                    case "getProperties":
                        return new Hashtable<String, Object>(stored);
                    case "update":
                        @SuppressWarnings("unchecked") Dictionary<String, Object> d = (Dictionary<String, Object>) a[0];
                        Hashtable<String, Object> u = new Hashtable<>();
                        for (String k : java.util.Collections.list(d.keys())) {
                            u.put(k, d.get(k));
                        }
                        u.put("service.pid", PID);
                        stored = u;
                        updates.add(u);
                        return null;
                    default:
                        return null;
                }
            }
        });
        ConfigurationAdmin cm = proxy(ConfigurationAdmin.class, (p, m, a) -> {
            if (!m.getName().equals("listConfigurations")) {
                return null;
            }
            if (Thread.currentThread().getName().equals("smbdirect-settings")) {
                guardThreadMayGo.await();
            }
            return new Configuration[] {configuration};
        });
        return new SettingsGuard(cm, metaType, context, false);
    }

    private void holds(Object... keyValues) {
        Hashtable<String, Object> h = new Hashtable<>();
        h.put("service.pid", PID);
        h.put("felix.fileinstall.filename", "file:/appliance/etc/smbdirect.transport.cfg");
        for (int i = 0; i < keyValues.length; i += 2) {
            h.put((String) keyValues[i], keyValues[i + 1]);
        }
        synchronized (this) {
            stored = h;
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (guard != null) {
            guard.deactivate();
        }
    }

    @Test
    void aRefusedValueIsReplacedByTheLastGoodOneAndReportedUntilAnotherGoodChange() throws Exception {
        guard = guard();
        holds("receiveCreditMax", "128");
        guard.check(PID);
        assertTrue(guard.findings().isEmpty(), guard.findings().toString());
        assertTrue(Files.exists(data.resolve("last-good/" + PID + ".config")), "kept in the data area");

        holds("receiveCreditMax", "0");
        guard.check(PID);
        assertEquals(1, updates.size());
        assertEquals("128", String.valueOf(updates.get(0).get("receiveCreditMax")));
        assertEquals("file:/appliance/etc/smbdirect.transport.cfg", updates.get(0).get("felix.fileinstall.filename"),
                "put back into its file");
        String finding = guard.findings().get(0);
        assertTrue(finding.startsWith(Path.of("/appliance/etc/smbdirect.transport.cfg")
                + ": receiveCreditMax = 0 refused (not in [1, 65535]); the last good settings were put back"), finding);

        guard.check(PID); // the update that put them back
        assertEquals(List.of(finding), guard.findings(), "what was refused stays reported");
        holds("receiveCreditMax", "64");
        guard.check(PID);
        assertTrue(guard.findings().isEmpty(), "another good change clears it: " + guard.findings());
        assertEquals(1, updates.size());
    }

    @Test
    void theWebConsoleFormIsRefusedWhatTheGuardRefusesBeforeAnythingIsSaved() throws Exception {
        guard = guard();
        guard.registerConsoleFormCheck();
        ConfigurationHandler form = (ConfigurationHandler) registered.get(ConfigurationHandler.class.getName());
        assertTrue(form instanceof ConsoleFormCheck, "registered as the Web Console's configuration handler: "
                + registered);
        Hashtable<String, Object> posted = new Hashtable<>();
        posted.put("receiveCreditMax", 0); // the form's values are typed by the metatype
        ValidationException e = assertThrows(ValidationException.class, () -> form.updateConfiguration(null, PID, posted));
        assertEquals("Not saved: receiveCreditMax = 0 refused (not in [1, 65535]); the settings in force stay as they are.",
                e.getMessage());
        assertTrue(updates.isEmpty(), "nothing saved: " + updates);

        posted.put("receiveCreditMax", 128);
        form.updateConfiguration(null, PID, posted);
        // the component's own check, as the guard runs it
        guard.addCheck(evenCredits, java.util.Map.of(ConfigurationCheck.CONFIGURATION_PID, PID));
        posted.put("receiveCreditMax", 127);
        e = assertThrows(ValidationException.class, () -> form.updateConfiguration("", PID, posted));
        assertEquals("Not saved: receiveCreditMax = 127 refused (must be even); the settings in force stay as they are.",
                e.getMessage());
        // an unknown key is no refusal; other bundles' configurations are theirs to check
        posted.put("receiveCreditMax", 128);
        posted.put("recieveCreditMax", 64);
        form.updateConfiguration(null, PID, posted);
        posted.put("receiveCreditMax", 0);
        form.updateConfiguration(null, "org.example.other", posted);
        assertTrue(updates.isEmpty(), "the check saves nothing itself: " + updates);
    }

    @Test
    void aFindingAnotherBundleReportsAsAServicePropertyIsAmongTheFindingsWhileTheServiceHasIt() throws Exception {
        guard = guard();
        assertEquals(List.of(), guard.findings());
        String line = "etc/org.apache.felix.webconsole.internal.servlet.OsgiManager.cfg: password = (hidden) refused (the "
                + "Felix default password (admin) or none is refused); the last good password was put back";
        othersFindings.add(line);
        assertEquals(List.of(line), guard.findings());
        othersFindings.clear();
        assertEquals(List.of(), guard.findings());
    }

    @Test
    void keptSettingsThatAreRefusedThemselvesAreForgottenNotPutBackForEver() throws Exception {
        guard = guard();
        holds("receiveCreditMax", "128");
        guard.check(PID);
        Path kept = data.resolve("last-good/" + PID + ".config");
        Files.writeString(kept, Files.readString(kept).replace("128", "0")); // checks made stricter since
        holds("receiveCreditMax", "0");
        guard.check(PID);
        assertTrue(updates.isEmpty(), "nothing put back: " + updates);
        assertFalse(Files.exists(kept));
        assertTrue(guard.findings().get(0).endsWith("not applied, and no earlier good settings are kept"),
                guard.findings().toString());
    }

    @Test
    void aGoodChangeHandedToItsComponentIsTheLastGoodAtOnceBeforeTheGuardsThreadSeesIt() throws Exception {
        guard = guard();
        holds("receiveCreditMax", "128");
        guard.check(PID);
        Hashtable<String, Object> good = new Hashtable<>();
        good.put("service.pid", PID);
        good.put("receiveCreditMax", "100");
        guard.modifyConfiguration(null, good); // delivered; the guard's thread has not checked it yet
        Hashtable<String, Object> refused = new Hashtable<>();
        refused.put("service.pid", PID);
        refused.put("receiveCreditMax", "0");
        guard.modifyConfiguration(null, refused);
        assertEquals("100", String.valueOf(refused.get("receiveCreditMax")), "the change just before, not the older one");
    }

    @Test
    void aRefusalStaysReportedWhenSomeoneElsePutsTheLastGoodBackBeforeTheGuardsThreadDoes() throws Exception {
        // the Web Console's password: its file writer puts the previous password back on its own, and
        // the guard's check of that update may run before the guard's own put-back
        guard = guard();
        holds("receiveCreditMax", "128");
        guard.check(PID);
        guardThreadMayGo = new java.util.concurrent.CountDownLatch(1);
        try {
            Hashtable<String, Object> delivered = new Hashtable<>();
            delivered.put("service.pid", PID);
            delivered.put("receiveCreditMax", "0");
            guard.modifyConfiguration(null, delivered);
            holds("receiveCreditMax", "128"); // put back by the other writer
            guard.check(PID);
            assertEquals(1, guard.findings().size(), guard.findings().toString());
            assertTrue(guard.findings().get(0).contains("receiveCreditMax = 0 refused"), guard.findings().toString());
        } finally {
            guardThreadMayGo.countDown();
        }
    }

    @Test
    void aGoodChangeMadeBeforeTheGuardsThreadPutsTheLastGoodBackIsNotOverwritten() throws Exception {
        // Karaf's property-set -p: a refused value, then at once a good one, before the guard's thread
        // came to put the last good settings back
        guard = guard();
        holds("receiveCreditMax", "128");
        guard.check(PID);
        guardThreadMayGo = new java.util.concurrent.CountDownLatch(1);
        Hashtable<String, Object> refused = new Hashtable<>();
        refused.put("service.pid", PID);
        refused.put("receiveCreditMax", "0");
        guard.modifyConfiguration(null, refused); // its put-back waits on the guard's thread
        holds("receiveCreditMax", "110"); // the operator's good change, in Config Admin now
        guardThreadMayGo.countDown();
        guard.deactivate(); // the guard's thread has run what it was given
        guard = null;
        assertTrue(updates.isEmpty(), "110 stays, not overwritten with the older 128: " + updates);
    }

    @Test
    void aPutBackIsAwaitedUntilTheLastGoodSettingsAreBackInConfigAdminAndInTheConfigurationsFile() throws Exception {
        // what Karaf's shell waits for before it says the last good settings are put back: its next
        // command then neither races the put-back nor writes the file while File Install writes it back
        Path cfg = data.resolve("smbdirect.transport.cfg");
        Files.writeString(cfg, "receiveCreditMax = 128\n");
        guard = guard();
        holds("receiveCreditMax", "128");
        stored.put("felix.fileinstall.filename", cfg.toUri().toString());
        guard.check(PID);
        assertTrue(guard.awaitPutBack(PID, java.time.Duration.ZERO), "the last good settings in force");
        holds("receiveCreditMax", "0"); // Karaf's property-set -p: the file first, then Config Admin
        stored.put("felix.fileinstall.filename", cfg.toUri().toString());
        Files.writeString(cfg, "receiveCreditMax = 0\n");
        assertFalse(guard.awaitPutBack(PID, java.time.Duration.ofMillis(50)), "refused, not put back yet");
        Hashtable<String, Object> restored = new Hashtable<>(stored);
        restored.put("receiveCreditMax", "128");
        synchronized (this) {
            stored = restored; // the guard's put-back in Config Admin
        }
        assertFalse(guard.awaitPutBack(PID, java.time.Duration.ofMillis(50)), "not yet in the file");
        Files.writeString(cfg, "receiveCreditMax = 128\n"); // File Install's write-back
        assertTrue(guard.awaitPutBack(PID, java.time.Duration.ofSeconds(10)), "back in both");
    }

    @Test
    void aComponentIsHandedTheLastGoodValuesInsteadOfARefusedOne() throws Exception {
        guard = guard();
        holds("receiveCreditMax", "128");
        guard.check(PID);
        Hashtable<String, Object> delivered = new Hashtable<>();
        delivered.put("service.pid", PID);
        delivered.put("receiveCreditMax", "0");
        guard.modifyConfiguration(null, delivered);
        assertEquals("128", String.valueOf(delivered.get("receiveCreditMax")));
        assertTrue(guard.findings().get(0).contains("receiveCreditMax = 0 refused"), guard.findings().toString());

        Hashtable<String, Object> good = new Hashtable<>();
        good.put("service.pid", PID);
        good.put("receiveCreditMax", "64");
        guard.modifyConfiguration(null, good);
        assertEquals("64", good.get("receiveCreditMax"), "a good value passes unchanged");
        assertNull(good.get("felix.fileinstall.filename"));
    }

    @Test
    void aValueOnlyTheComponentsOwnCheckRefusesIsRefusedByNameAndTheLastGoodSettingsAreHandedOnAndPutBack()
            throws Exception {
        guard = guard();
        guardThreadMayGo = new java.util.concurrent.CountDownLatch(1); // its re-check at the check's arrival waits
        try {
            guard.addCheck(evenCredits, java.util.Map.of(ConfigurationCheck.CONFIGURATION_PID, PID));
            holds("receiveCreditMax", "128");
            guard.check(PID);
            assertTrue(guard.findings().isEmpty(), guard.findings().toString());

            holds("receiveCreditMax", "127"); // within the metatype's range: only the component's check refuses it
            guard.check(PID);
            assertEquals(1, updates.size());
            assertEquals("128", String.valueOf(updates.get(0).get("receiveCreditMax")));
            String finding = guard.findings().get(0);
            assertTrue(finding.startsWith(Path.of("/appliance/etc/smbdirect.transport.cfg")
                    + ": receiveCreditMax = 127 refused (must be even); the last good settings were put back"), finding);

            Hashtable<String, Object> delivered = new Hashtable<>();
            delivered.put("service.pid", PID);
            delivered.put("receiveCreditMax", "125");
            guard.modifyConfiguration(null, delivered);
            assertEquals("128", String.valueOf(delivered.get("receiveCreditMax")), "the component never sees 125");
        } finally {
            guardThreadMayGo.countDown();
        }
    }

    @Test
    void withoutItsComponentsCheckAConfigurationIsCheckedAgainstItsMetatypeAlone() throws Exception {
        guard = guard();
        guardThreadMayGo = new java.util.concurrent.CountDownLatch(1);
        try {
            java.util.Map<String, Object> registered = java.util.Map.of(ConfigurationCheck.CONFIGURATION_PID, PID);
            guard.addCheck(evenCredits, registered);
            guard.removeCheck(evenCredits, registered);
            holds("receiveCreditMax", "127");
            guard.check(PID);
            assertTrue(guard.findings().isEmpty(), guard.findings().toString());
            assertEquals("127", String.valueOf(guard.readKept(PID).get("receiveCreditMax")));
            holds("receiveCreditMax", "0");
            guard.check(PID);
            assertTrue(guard.findings().get(0).contains("receiveCreditMax = 0 refused (not in [1, 65535])"),
                    guard.findings().toString());
        } finally {
            guardThreadMayGo.countDown();
        }
    }

    @Test
    void aCheckThatRefusesWithAPlainIllegalArgumentExceptionStillRefusesWithItsMessageAsTheReason() throws Exception {
        guard = guard();
        guardThreadMayGo = new java.util.concurrent.CountDownLatch(1);
        try {
            guard.addCheck(properties -> {
                if ("3".equals(properties.get("receiveCreditMax"))) {
                    throw new IllegalArgumentException("three is too few");
                }
            }, java.util.Map.of(ConfigurationCheck.CONFIGURATION_PID, PID));
            SettingsCheck.Problem p = guard.componentCheck(PID, null, java.util.Map.of("receiveCreditMax", "3"));
            assertTrue(p.refused());
            assertEquals("three is too few", p.reason());
            assertNull(guard.componentCheck(PID, null, java.util.Map.of("receiveCreditMax", "4")));
            assertNull(guard.componentCheck("smbdirect.other", null, java.util.Map.of("receiveCreditMax", "3")),
                    "a check answers for its own PID only");
        } finally {
            guardThreadMayGo.countDown();
        }
    }

    @Test
    void aConfigurationOfABundleNotStartedYetIsNeitherKeptNorRefusedUntilItStartsWithItsCheck() throws Exception {
        guard = guard();
        bundleState = Bundle.RESOLVED;
        holds("receiveCreditMax", "127");
        guard.check(PID);
        assertTrue(guard.findings().isEmpty(), guard.findings().toString());
        assertNull(guard.readKept(PID), "not kept as good before its own check could say");

        bundleState = Bundle.ACTIVE; // it starts and registers its check
        guard.addCheck(evenCredits, java.util.Map.of(ConfigurationCheck.CONFIGURATION_PID, PID));
        bundleListener.bundleChanged(new BundleEvent(BundleEvent.STARTED, bundle));
        guard.deactivate(); // waits for the guard's thread
        assertNull(guard.readKept(PID));
        assertTrue(guard.findings().get(0).contains("receiveCreditMax = 127 refused (must be even); not applied"),
                guard.findings().toString());
    }

    @Test
    void unknownConfigurationFilesAreReportedWhenTheyAreOursOrNearOneOfOursNotOtherBundlesOwn() {
        assertTrue(SettingsGuard.reported("smbdirect.transprt", "smbdirect.transport"));
        assertTrue(SettingsGuard.reported("smbdirect.unheard.of", null));
        assertTrue(SettingsGuard.reported("org.apache.felix.webconsole.internal.servlet.OsgiManagr",
                SettingsGuard.CONSOLE_PID));
        // Karaf's etc/ holds many configurations without a metatype: near one of Karaf's, they are Karaf's
        assertFalse(SettingsGuard.reported("org.apache.karaf.features", "org.apache.karaf.config"));
        assertFalse(SettingsGuard.reported("org.ops4j.pax.logging", "org.ops4j.pax.url.mvn"));
        assertFalse(SettingsGuard.reported("jmx.acl.org.apache.karaf.config", null));
    }

    /** A shell session of Karaf's: its variables, and what was printed on its console. */
    private static org.apache.felix.service.command.CommandSession session(java.util.Map<String, Object> variables,
            java.io.ByteArrayOutputStream printed) {
        java.io.PrintStream console = new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8);
        return proxy(org.apache.felix.service.command.CommandSession.class, (p, m, a) -> switch (m.getName()) {
            case "get" -> variables.get((String) a[0]);
            case "put" -> variables.put((String) a[0], a[1]);
            case "getConsole" -> console;
            default -> null;
        });
    }

    @Test
    void karafsConfigUpdateOfARefusedValueSaysSoInTheShellWhereTheChangeIsMade() throws Exception {
        guard = guard();
        holds("receiveCreditMax", "128");
        guard.check(PID);
        ShellConfigurationReport report = new ShellConfigurationReport(guard, proxy(ConfigurationAdmin.class, (p, m, a) -> null));
        java.util.Map<String, Object> variables = new java.util.HashMap<>();
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        var session = session(variables, printed);

        // config:edit smbdirect.transport, config:property-set receiveCreditMax 0, config:update
        variables.put(ShellConfigurationReport.EDITED_PID, PID);
        variables.put(ShellConfigurationReport.EDITED_PROPS, new java.util.HashMap<>(java.util.Map.of("receiveCreditMax", "0")));
        report.beforeExecute(session, "config:update");
        variables.remove(ShellConfigurationReport.EDITED_PID); // the command clears its edit
        report.afterExecute(session, "config:update", (Object) null);
        String line = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(line.startsWith("Configuration smbdirect.transport: receiveCreditMax = 0 refused (not in [1, 65535]);"
                + " the last good settings are put back (kept in "), line);
        assertTrue(line.endsWith(".config)" + System.lineSeparator()), line);

        // a good value, or another command while an edit is pending: nothing said
        printed.reset();
        variables.put(ShellConfigurationReport.EDITED_PID, PID);
        variables.put(ShellConfigurationReport.EDITED_PROPS, new java.util.HashMap<>(java.util.Map.of("receiveCreditMax", "64")));
        report.beforeExecute(session, "config:update");
        report.afterExecute(session, "config:update", (Object) null);
        variables.put(ShellConfigurationReport.EDITED_PROPS, new java.util.HashMap<>(java.util.Map.of("receiveCreditMax", "0")));
        report.beforeExecute(session, "config:property-list");
        report.afterExecute(session, "config:property-list", (Object) null);
        assertEquals("", printed.toString(java.nio.charset.StandardCharsets.UTF_8));

        // a refused update that failed: the command's own error is what the shell shows
        report.beforeExecute(session, "config:update");
        report.afterExecute(session, "config:update", new IllegalStateException("failed"));
        report.afterExecute(session, "shell:echo", (Object) null);
        assertEquals("", printed.toString(java.nio.charset.StandardCharsets.UTF_8));
    }
}
