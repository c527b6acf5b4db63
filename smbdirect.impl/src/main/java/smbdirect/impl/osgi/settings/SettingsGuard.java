package smbdirect.impl.osgi.settings;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.felix.utils.properties.ConfigurationHandler;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.BundleListener;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationEvent;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.cm.ConfigurationPlugin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.impl.control.SettingsFindings;
import smbdirect.api.settings.ConfigurationCheck;
import smbdirect.api.settings.SettingRefusedException;
import smbdirect.impl.transport.ProviderFilter;

/**
 * Keeps the last good settings of the SMB Direct configurations ({@code smbdirect.*}: the transport,
 * the listeners, the RDMA providers) and the Web Console's, also on disk and across restarts.
 *
 * <ul>
 * <li>Every configuration is checked against its metatype ({@link SettingsCheck}: strict numbers and
 * booleans, ranges, options, unknown keys with the nearest name) and then by the
 * {@link ConfigurationCheck} its component's bundle registered for its PID or factory PID (the
 * transport's, the listeners', the RDMA providers', the file server's, the Web Console password's:
 * each the conversion its component runs), whose refusal names the attribute, the value and the
 * reason as data. Without such a check, the metatype's is the only one. A configuration whose
 * metatype's bundle has not started is checked once it has (its check comes with it).</li>
 * <li>A good configuration is kept as the last good one in the bundle's data area (under the
 * framework storage, {@code data/} in the appliance), one file per PID in Config Admin's typed
 * format.</li>
 * <li>A refused configuration never reaches its component: as a {@link ConfigurationPlugin} the
 * guard hands the component the last good values instead, and it puts the last good values back
 * into Config Admin at once (whence they are written back to the configuration's file under
 * {@code etc/}), saying so in one WARN line and in {@link #findings()}. A refused configuration
 * that has never been good is left as it is: its component refuses it again at every start. The
 * exception are this bundle's own components (the transport, the listeners), which Declarative
 * Services configures before the guard is active: they refuse the value themselves and take the
 * last good values from {@link LastGoodSettings} at once.</li>
 * <li>A file under {@code etc/} whose PID no component knows and that is near a guarded PID, or
 * starts with {@code smbdirect.}, is reported with the nearest known PID.</li>
 * <li>A finding another bundle hands over as the {@value #SETTINGS_FINDING} property of a service
 * is reported while that service has it (the appliance's launcher: a Web Console password refused
 * in its file at start, before Config Admin or the guard ran).</li>
 * </ul>
 *
 * <p>The findings are shown by the health check and the Web Console status page. Thread-safe:
 * Config Admin's events and the restores run on one thread of the guard.
 */
@Component(service = {SettingsFindings.class, ConfigurationPlugin.class, ConfigurationListener.class},
        immediate = true, property = ConfigurationPlugin.CM_RANKING + ":Integer=500")
public class SettingsGuard implements SettingsFindings, ConfigurationPlugin, ConfigurationListener {

    private static final Logger LOG = LoggerFactory.getLogger(SettingsGuard.class);

    /** The Web Console's configuration PID and its password attribute. */
    static final String CONSOLE_PID = "org.apache.felix.webconsole.internal.servlet.OsgiManager";
    private static final String FILENAME = "felix.fileinstall.filename";
    /** What {@link #verdict} says when the last good settings are put back over a refused value. */
    static final String PUTS_BACK = "; the last good settings are put back (kept in ";
    /** The service property by which another bundle reports a finding about a setting (one line). */
    static final String SETTINGS_FINDING = "smbdirect.settings.finding";
    private static final Set<String> NOT_KEPT = Set.of(Constants.SERVICE_PID, ConfigurationAdmin.SERVICE_FACTORYPID,
            ConfigurationAdmin.SERVICE_BUNDLELOCATION, FILENAME);

    private final ConfigurationAdmin configurationAdmin;
    private final MetaTypeService metaType;
    private final BundleContext context;
    private final Path kept;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "smbdirect-settings");
        t.setDaemon(true);
        return t;
    });
    /** PID to what is wrong with its configuration now. */
    private final Map<String, String> problems = new ConcurrentHashMap<>();
    /**
     * PIDs whose last good settings were put back: what was refused stays reported until the
     * configuration changes to other good settings (or is deleted).
     */
    private final Set<String> putBack = ConcurrentHashMap.newKeySet();
    /** PIDs of configurations not checked because the bundle of their metatype had not started. */
    private final Set<String> waiting = ConcurrentHashMap.newKeySet();
    private final BundleListener bundles = this::bundleChanged;
    /** PID or factory PID to the check its component's bundle registered. */
    private final Map<String, ConfigurationCheck> checks = new ConcurrentHashMap<>();
    /** PID to the file it was last read from (the Web Console's form drops the file's name). */
    private final Map<String, String> files = new ConcurrentHashMap<>();
    /** The Web Console form's check ({@link ConsoleFormCheck}); null where the Web Console's SPI is not wired. */
    private volatile ServiceRegistration<?> consoleFormCheck;

    @Activate
    public SettingsGuard(@Reference ConfigurationAdmin configurationAdmin, @Reference MetaTypeService metaType,
            BundleContext context) throws IOException {
        this(configurationAdmin, metaType, context, true);
    }

    /** {@code checkAtStart}: check every configuration at once (false: tests call {@link #check}). */
    SettingsGuard(ConfigurationAdmin configurationAdmin, MetaTypeService metaType, BundleContext context,
            boolean checkAtStart) throws IOException {
        this.configurationAdmin = configurationAdmin;
        this.metaType = metaType;
        this.context = context;
        this.kept = LastGoodSettings.folder(context);
        Files.createDirectories(kept);
        context.addBundleListener(bundles);
        if (checkAtStart) {
            worker.execute(this::checkAll);
            registerConsoleFormCheck();
        }
    }

    /**
     * Registers {@link ConsoleFormCheck} as the Felix Web Console's {@code ConfigurationHandler} where
     * this bundle is wired to the Web Console's SPI (an optional import): the form then refuses what
     * the guard would refuse, before anything is saved.
     */
    void registerConsoleFormCheck() {
        try {
            Class.forName("org.apache.felix.webconsole.spi.ConfigurationHandler", false,
                    SettingsGuard.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return; // no Felix Web Console 5 in this framework
        }
        consoleFormCheck = context.registerService("org.apache.felix.webconsole.spi.ConfigurationHandler",
                new ConsoleFormCheck(this), null);
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        ServiceRegistration<?> r = consoleFormCheck;
        if (r != null) {
            consoleFormCheck = null;
            try {
                r.unregister();
            } catch (IllegalStateException e) {
                // gone with the bundle already
            }
        }
        try {
            context.removeBundleListener(bundles);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // the bundle is stopping: its listeners go with it
        }
        worker.shutdown();
        worker.awaitTermination(5, TimeUnit.SECONDS);
    }

    /**
     * What is wrong with the configurations now, one line each: the file (or PID), the key, the
     * value, the reason and what the runtime did.
     */
    @Override
    public List<String> findings() {
        List<String> all = new ArrayList<>(new TreeMap<>(problems).values());
        all.addAll(reportedByOthers());
        all.addAll(unknownFiles());
        return all;
    }

    /**
     * Findings other bundles hand the guard as data: the {@value #SETTINGS_FINDING} property of any
     * service (the appliance's launcher reports a Web Console password refused in a file at start
     * and put back before Config Admin or the guard saw it).
     */
    private List<String> reportedByOthers() {
        List<String> out = new ArrayList<>();
        try {
            ServiceReference<?>[] refs = context.getServiceReferences((String) null, "(" + SETTINGS_FINDING + "=*)");
            if (refs != null) {
                for (ServiceReference<?> r : refs) {
                    out.add(String.valueOf(r.getProperty(SETTINGS_FINDING)));
                }
            }
        } catch (InvalidSyntaxException | IllegalStateException e) {
            // a constant filter; IllegalStateException: the bundle is stopping
        }
        out.sort(null);
        return out;
    }

    /** Where the last good configurations are kept. */
    public Path keptIn() {
        return kept;
    }

    @Override
    public void configurationEvent(ConfigurationEvent event) {
        String pid = event.getPid();
        if (event.getType() == ConfigurationEvent.CM_DELETED) {
            problems.remove(pid);
            putBack.remove(pid);
            try {
                Files.deleteIfExists(keptFile(pid));
            } catch (IOException e) {
                LOG.warn("Last good configuration of {} not removed: {}", pid, e.toString());
            }
        } else if (event.getType() == ConfigurationEvent.CM_UPDATED) {
            worker.execute(() -> check(pid));
        }
    }

    @Override
    public void modifyConfiguration(ServiceReference<?> reference, Dictionary<String, Object> properties) {
        Object pid = properties.get(Constants.SERVICE_PID);
        if (!(pid instanceof String p)) {
            return;
        }
        Object factory = properties.get(ConfigurationAdmin.SERVICE_FACTORYPID);
        Map<String, Object> values = LastGoodSettings.toMap(properties);
        List<SettingsCheck.Problem> found = problems(p, factory instanceof String f ? f : null, values);
        if (found == null) {
            return;
        }
        if (found.isEmpty() || !found.get(0).refused()) {
            // kept now, before the component has it: a refused change right after it (before the guard's
            // thread saw this one's event) must get these values back, not pass as never good
            try {
                keep(p, values);
            } catch (IOException e) {
                LOG.warn("Configuration {} not kept as the last good: {}", p, e.toString());
            }
            return;
        }
        Map<String, Object> good = readKept(p);
        if (good == null || equal(good, kept(values))) {
            return;
        }
        // reported here: the dictionary handed on may be the one Config Admin keeps
        report(p, whereFrom(p, values) + ": " + join(found) + "; the last good settings were put back (kept in "
                + keptFile(p) + ")");
        for (String key : Collections.list(properties.keys())) {
            if (!NOT_KEPT.contains(key)) {
                properties.remove(key);
            }
        }
        good.forEach((k, v) -> {
            if (!NOT_KEPT.contains(k)) {
                properties.put(k, v);
            }
        });
        // marked now: another writer (the Web Console password's) may put the last good back before the
        // guard's thread does, and the check of that update must keep the refusal reported
        putBack.add(p);
        worker.execute(() -> putBackLastGood(p));
    }

    /**
     * Waits at most {@code timeout} until the last good settings of {@code pid} are back where a
     * refusal's put-back puts them: in Config Admin and, where the configuration has a file
     * ({@code felix.fileinstall.filename}, which Karaf's File Install writes back in place), in that
     * file. Karaf's shell waits for it before it says the last good settings are put back, so that its
     * next command neither races the guard's put-back (a good value typed at once after a refused one
     * overwritten by it) nor writes the file while File Install does. True when they are back (or
     * nothing is kept for {@code pid}).
     */
    public boolean awaitPutBack(String pid, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!lastGoodIsBack(pid)) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    private boolean lastGoodIsBack(String pid) {
        Map<String, Object> good = readKept(pid);
        if (good == null) {
            return true;
        }
        try {
            Configuration c = find(pid);
            Dictionary<String, Object> now = c == null ? null : c.getProperties();
            if (now == null || !equal(good, kept(LastGoodSettings.toMap(now)))) {
                return false;
            }
            Path file = fileOf(now.get(FILENAME));
            if (file == null || !Files.isRegularFile(file)) {
                return true;
            }
            Map<String, ?> written;
            if (file.getFileName().toString().endsWith(".config")) {
                try (InputStream in = Files.newInputStream(file)) {
                    written = LastGoodSettings.toMap(ConfigurationHandler.read(in));
                }
            } else {
                org.apache.felix.utils.properties.TypedProperties cfg = new org.apache.felix.utils.properties.TypedProperties();
                cfg.load(file.toFile());
                written = cfg;
            }
            Map<String, Object> inFile = new HashMap<>();
            for (String key : good.keySet()) {
                if (written.containsKey(key)) {
                    inFile.put(key, written.get(key));
                }
            }
            return equal(good, inFile);
        } catch (IOException | InvalidSyntaxException | RuntimeException e) {
            return false;
        }
    }

    /** The file a {@code felix.fileinstall.filename} value names, or null. */
    private static Path fileOf(Object name) {
        try {
            return name == null ? null : Path.of(URI.create(String.valueOf(name)));
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return null;
        }
    }

    private void checkAll() {
        checkAll(null);
    }

    /** Checks the configurations of {@code pid}: the one of that PID, or those of that factory PID. */
    void checkAllOf(String pid) {
        String escaped = ProviderFilter.escape(pid);
        checkAll("(|(" + Constants.SERVICE_PID + "=" + escaped + ")(" + ConfigurationAdmin.SERVICE_FACTORYPID + "="
                + escaped + "))");
    }

    private void checkAll(String filter) {
        try {
            Configuration[] all = configurationAdmin.listConfigurations(filter);
            if (all != null) {
                for (Configuration c : all) {
                    check(c.getPid());
                }
            }
        } catch (IOException | InvalidSyntaxException | RuntimeException e) {
            LOG.warn("Configurations not checked: {}", e.toString());
        }
    }

    /**
     * A bundle started: the configurations whose metatype it holds were left unchecked while it was
     * not active (its own check is not registered before it starts), and are checked now.
     */
    private void bundleChanged(BundleEvent event) {
        if (event.getType() == BundleEvent.STARTED && !waiting.isEmpty()) {
            for (String pid : List.copyOf(waiting)) {
                waiting.remove(pid);
                worker.execute(() -> check(pid));
            }
        }
    }

    /**
     * What the guard makes of {@code values} saved as the configuration {@code pid} (of
     * {@code factoryPid}, or null), in one line: what is refused or ignored and what the runtime does
     * about it; null when nothing is wrong or the configuration is not guarded.
     */
    String verdict(String pid, String factoryPid, Map<String, Object> values) {
        List<SettingsCheck.Problem> found = problems(pid, factoryPid, values);
        if (found == null || found.isEmpty()) {
            return null;
        }
        if (!found.get(0).refused()) {
            return join(found);
        }
        return join(found) + (readKept(pid) == null ? "; not applied, and no earlier good settings are kept"
                : PUTS_BACK + keptFile(pid) + ")");
    }

    /** Checks the configuration {@code pid} as Config Admin holds it now: keeps it, or puts back the last good. */
    void check(String pid) {
        try {
            Configuration c = find(pid);
            Dictionary<String, Object> props = c == null ? null : c.getProperties();
            if (props == null) {
                problems.remove(pid);
                return;
            }
            Map<String, Object> values = LastGoodSettings.toMap(props);
            String where = whereFrom(pid, values);
            List<SettingsCheck.Problem> found = problems(pid, c.getFactoryPid(), values);
            if (found == null) {
                return; // no metatype: nothing to check against
            }
            if (found.isEmpty() || !found.get(0).refused()) {
                if (putBack.contains(pid) && equal(readKept(pid), kept(values))) {
                    return; // the last good settings, put back: what was refused stays reported
                }
                putBack.remove(pid);
                keep(pid, values);
                if (found.isEmpty()) {
                    problems.remove(pid);
                } else {
                    report(pid, where + ": " + join(found));
                }
                return;
            }
            Map<String, Object> good = readKept(pid);
            if (good != null && equal(good, kept(values))) {
                // the kept settings are refused themselves (checks changed by an upgrade): forget them
                Files.deleteIfExists(keptFile(pid));
                putBack.remove(pid);
                good = null;
            }
            if (good == null) {
                report(pid, where + ": " + join(found) + "; not applied, and no earlier good settings are kept");
            } else {
                report(pid, where + ": " + join(found) + "; the last good settings were put back (kept in "
                        + keptFile(pid) + ")");
                putBackLastGood(pid);
            }
        } catch (IOException | InvalidSyntaxException | RuntimeException e) {
            LOG.warn("Configuration {} not checked: {}", pid, e.toString());
        }
    }

    /** Records {@code text} as what is wrong with {@code pid}; logs it once. */
    private void report(String pid, String text) {
        if (!text.equals(problems.put(pid, text))) {
            LOG.warn("Configuration {}", text);
        }
    }

    /** Puts the last good values of {@code pid} back into Config Admin (and so into its file). */
    private void putBackLastGood(String pid) {
        try {
            Configuration c = find(pid);
            Map<String, Object> good = readKept(pid);
            if (c == null || good == null) {
                return;
            }
            // this runs after the refusal: a good change made since (a shell's property-set right after
            // a refused one) is in force and must not be overwritten with older settings
            List<SettingsCheck.Problem> now = c.getProperties() == null ? null
                    : problems(pid, c.getFactoryPid(), LastGoodSettings.toMap(c.getProperties()));
            if (now == null || now.isEmpty() || !now.get(0).refused()) {
                return;
            }
            Hashtable<String, Object> restored = kept(good);
            Object file = files.get(pid);
            if (file != null) {
                restored.put(FILENAME, file);
            }
            putBack.add(pid);
            c.update(restored);
        } catch (IOException | InvalidSyntaxException | RuntimeException e) {
            LOG.warn("Configuration {}: the last good settings could not be put back: {}", pid, e.toString());
        }
    }

    /**
     * What is wrong with the configuration {@code pid}, refusals first; null when it has no metatype
     * to check against.
     */
    List<SettingsCheck.Problem> problems(String pid, String factoryPid, Map<String, Object> values) {
        if (!guarded(pid, factoryPid)) {
            return null;
        }
        Map<String, AttributeDefinition> attributes = attributes(pid, factoryPid);
        if (attributes == null) {
            return null;
        }
        List<SettingsCheck.Problem> found = new ArrayList<>(SettingsCheck.check(attributes, values));
        if (found.isEmpty() || !found.get(0).refused()) {
            SettingsCheck.Problem own = componentCheck(pid, factoryPid, values);
            if (own != null) {
                found.add(0, own);
            }
        }
        return found;
    }

    /**
     * The configurations guarded: the SMB Direct components' ({@code smbdirect.*}: the transport,
     * the listeners, the RDMA providers) and the Web Console's; other bundles' configurations (a
     * Karaf's {@code etc/}) are theirs to check.
     */
    static boolean guarded(String pid, String factoryPid) {
        String id = factoryPid != null ? factoryPid : pid;
        return id.startsWith("smbdirect.") || CONSOLE_PID.equals(pid);
    }

    /**
     * The check its component's bundle registered for {@code pid} (or its {@code factoryPid}): null
     * when the configuration passes it or no check is registered (the metatype's is then the only one).
     */
    SettingsCheck.Problem componentCheck(String pid, String factoryPid, Map<String, Object> values) {
        ConfigurationCheck check = checks.get(factoryPid != null ? factoryPid : pid);
        if (check == null) {
            return null;
        }
        try {
            check.check(Collections.unmodifiableMap(values));
            return null;
        } catch (SettingRefusedException e) {
            return new SettingsCheck.Problem(e.attribute(), e.value(), e.reason(), true);
        } catch (IllegalArgumentException e) {
            return new SettingsCheck.Problem("(configuration)", "(as saved)", String.valueOf(e.getMessage()), true);
        }
    }

    /** A component's own check, registered by its bundle for the PID or factory PID it names. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC, unbind = "removeCheck")
    void addCheck(ConfigurationCheck check, Map<String, Object> properties) {
        Object pid = properties.get(ConfigurationCheck.CONFIGURATION_PID);
        if (pid instanceof String p) {
            checks.put(p, check);
            worker.execute(() -> checkAllOf(p)); // checked against the metatype alone until now
        }
    }

    void removeCheck(ConfigurationCheck check, Map<String, Object> properties) {
        Object pid = properties.get(ConfigurationCheck.CONFIGURATION_PID);
        if (pid instanceof String p) {
            checks.remove(p, check);
        }
    }

    /** Attribute id to definition of the metatype of {@code pid} (or its factory), or null. */
    private Map<String, AttributeDefinition> attributes(String pid, String factoryPid) {
        for (Bundle b : context.getBundles()) {
            MetaTypeInformation info;
            try {
                info = metaType.getMetaTypeInformation(b);
            } catch (RuntimeException e) {
                continue;
            }
            if (info == null) {
                continue;
            }
            String id = null;
            if (contains(info.getPids(), pid)) {
                id = pid;
            } else if (factoryPid != null && contains(info.getFactoryPids(), factoryPid)) {
                id = factoryPid;
            }
            if (id == null) {
                continue;
            }
            if (b.getState() != Bundle.ACTIVE) {
                // its own check comes when it starts: until then a value only it refuses would pass
                waiting.add(pid);
                return null;
            }
            ObjectClassDefinition ocd = info.getObjectClassDefinition(id, null);
            AttributeDefinition[] ads = ocd == null ? null : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL);
            Map<String, AttributeDefinition> m = new HashMap<>();
            if (ads != null) {
                for (AttributeDefinition ad : ads) {
                    m.put(ad.getID(), ad);
                }
            }
            return m;
        }
        return null;
    }

    /** Configurations read from files whose PID no metatype knows, near a known PID or named smbdirect.*. */
    private List<String> unknownFiles() {
        List<String> out = new ArrayList<>();
        try {
            Configuration[] all = configurationAdmin.listConfigurations("(" + FILENAME + "=*)");
            if (all == null) {
                return out;
            }
            Set<String> known = new TreeSet<>();
            for (Bundle b : context.getBundles()) {
                MetaTypeInformation info = metaType.getMetaTypeInformation(b);
                if (info != null) {
                    Collections.addAll(known, info.getPids());
                    Collections.addAll(known, info.getFactoryPids());
                }
            }
            for (Configuration c : all) {
                String id = c.getFactoryPid() != null ? c.getFactoryPid() : c.getPid();
                if (known.contains(id)) {
                    continue;
                }
                String near = SettingsCheck.nearest(id, known);
                if (!reported(id, near)) {
                    continue;
                }
                Object file = LastGoodSettings.toMap(c.getProperties()).get(FILENAME);
                out.add(where(file, c.getPid()) + ": no component knows the configuration "
                        + id + (near == null ? "" : "; did you mean " + near + "?") + " (its settings are ignored)");
            }
        } catch (IOException | InvalidSyntaxException | RuntimeException e) {
            LOG.debug("Configuration files not checked", e);
        }
        return out;
    }

    /**
     * Whether a configuration {@code id} that no metatype knows, nearest to the known {@code near} (or
     * null), is reported: a {@code smbdirect.*} one, or a misspelling of a guarded PID. Other bundles'
     * configurations without a metatype (most of a Karaf's {@code etc/}: {@code org.apache.karaf.features}
     * is near {@code org.apache.karaf.config}) are theirs.
     */
    static boolean reported(String id, String near) {
        return id.startsWith("smbdirect.") || (near != null && guarded(near, null));
    }

    /** Config Admin's delivery thread (the plugin) and the guard's own thread both keep settings. */
    private synchronized void keep(String pid, Map<String, Object> values) throws IOException {
        if (CONSOLE_PID.equals(pid) && values.get("password") instanceof String s && !s.startsWith("{")) {
            return; // a plain password is never written: the Web Console hashes it next
        }
        Hashtable<String, Object> stored = kept(values);
        Map<String, Object> before = readKept(pid);
        if (before != null && equal(before, stored)) {
            return;
        }
        LastGoodSettings.write(kept, pid, stored);
    }

    /** The values of a configuration that are kept: all but the PIDs, the location and the file name. */
    private static Hashtable<String, Object> kept(Map<String, Object> values) {
        Hashtable<String, Object> stored = new Hashtable<>();
        values.forEach((k, v) -> {
            if (!NOT_KEPT.contains(k) && v != null) {
                stored.put(k, v);
            }
        });
        return stored;
    }

    /** The last good values of {@code pid}, or null when none are kept. */
    synchronized Map<String, Object> readKept(String pid) {
        return LastGoodSettings.read(kept, pid);
    }

    private Path keptFile(String pid) {
        return LastGoodSettings.file(kept, pid);
    }

    private static boolean equal(Map<String, Object> a, Map<String, Object> b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (Map.Entry<String, Object> e : a.entrySet()) {
            if (!SettingsCheck.text(e.getValue()).equals(SettingsCheck.text(b.get(e.getKey())))) {
                return false;
            }
        }
        return true;
    }

    private Configuration find(String pid) throws IOException, InvalidSyntaxException {
        Configuration[] c = configurationAdmin.listConfigurations("(service.pid=" + ProviderFilter.escape(pid) + ")");
        return c == null || c.length == 0 ? null : c[0];
    }

    /**
     * Where {@code pid}'s configuration comes from: the file it was last read from (its FileInstall
     * property in {@code values}, remembered, as the Web Console's form drops it), else "configuration PID".
     */
    private String whereFrom(String pid, Map<String, Object> values) {
        if (values.get(FILENAME) instanceof String f) {
            files.put(pid, f);
        }
        return where(files.get(pid), pid);
    }

    /** The file {@code uri} a configuration came from (FileInstall's property), else "configuration PID". */
    static String where(Object uri, String pid) {
        if (uri instanceof String s) {
            try {
                return Path.of(URI.create(s)).toString();
            } catch (IllegalArgumentException e) {
                return s;
            }
        }
        return "configuration " + pid;
    }

    private static String join(List<SettingsCheck.Problem> found) {
        List<String> parts = new ArrayList<>();
        for (SettingsCheck.Problem p : found) {
            parts.add(p.text());
        }
        return String.join("; ", parts);
    }

    private static boolean contains(String[] a, String s) {
        if (a == null) {
            return false;
        }
        for (String x : a) {
            if (x.equals(s)) {
                return true;
            }
        }
        return false;
    }
}
