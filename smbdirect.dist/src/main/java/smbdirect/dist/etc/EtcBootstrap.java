package smbdirect.dist.etc;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationEvent;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.dist.LogBridge;
import smbdirect.dist.PerfAcceptHandler;

/**
 * Prepares {@code etc/} when smbdirect.dist starts (start level 4: after Config Admin and Metatype,
 * before FileInstall reads {@code etc/} and before Declarative Services and the Web Console start):
 *
 * <ol>
 * <li>configurations whose file under {@code etc/} was deleted while the runtime was stopped are
 * deleted (FileInstall only notices deletions while it runs);
 * <li>at the first start (recorded in this bundle's data area under {@code data/}) the defaults the
 * runtime uses are written as files: {@code smbdirect.transport.cfg} with the Metatype defaults of
 * every attribute, and {@code smbdirect.listener-default.cfg}, the default listener (unless
 * {@code -Dsmbdirect.defaultListener=false}, or a listener file exists already);
 * <li>when no Web Console password is configured (no file, or the Felix default), a random one is
 * generated, its hash stored in {@code etc/} and the password itself in
 * {@value #GENERATED_PASSWORD_FILE}, readable by the service user only; the {@link ConsoleCredentials}
 * service tells the banner where it is. But a file edited to the Felix default while the runtime was
 * stopped gets the last good password Config Admin still holds put back, and the refusal is reported
 * (WARN, and health through the service's {@value #SETTINGS_FINDING}).
 * </ol>
 * A batch run ({@code perf}, {@link Etc#batch}) writes nothing to {@code etc/} (except a generated
 * console password when it runs the Web Console, its port given, and none is configured): when
 * {@code etc/} holds no listener file, the default listener is a configuration of this run only.
 * It also bridges the OSGi log to SLF4J ({@link LogBridge}) so that FileInstall's and SCR's
 * messages reach the runtime's log, and routes the JDK logging there ({@link #routeJdkLogging()}).
 */
public class EtcBootstrap implements BundleActivator {

    static final String TRANSPORT_PID = "smbdirect.transport";
    static final String LISTENER_FACTORY_PID = "smbdirect.listener";
    static final String DEFAULT_LISTENER = "default";
    static final String DEFAULT_LISTENER_ENABLED = "smbdirect.defaultListener";
    static final String DEFAULT_LISTENER_ADDRESS = "smbdirect.defaultListener.address";
    static final String DEFAULT_LISTENER_PORT = "smbdirect.defaultListener.port";
    /** The accept handler of the default listener. */
    static final String PERF_HANDLER_FILTER = "(" + PerfAcceptHandler.NAME_PROPERTY + "=" + PerfAcceptHandler.NAME + ")";
    static final String FIRST_START_MARKER = "etc-defaults-written";
    /** Where a generated Web Console password is kept, relative to the home (mode 600). */
    public static final String GENERATED_PASSWORD_FILE = "data/webconsole-password";

    private static final Logger LOG = LoggerFactory.getLogger(EtcBootstrap.class);

    private LogBridge logBridge;
    private volatile ServiceRegistration<ConsoleCredentials> credentials;
    private ServiceRegistration<ConfigurationListener> passwordChanges;
    /**
     * The service property through which a finding about a setting reaches the settings guard of
     * {@code smbdirect.impl} (and so health and the status page): one line, as the guard's own.
     */
    public static final String SETTINGS_FINDING = "smbdirect.settings.finding";

    @Override
    public void start(BundleContext context) throws IOException, InvalidSyntaxException {
        routeJdkLogging();
        logBridge = LogBridge.open(context);
        Path etc = Etc.directory(context);
        Files.createDirectories(etc);
        ConfigurationAdmin cm = service(context, ConfigurationAdmin.class);
        if (cm != null) {
            removeConfigurationsOfDeletedFiles(context, cm);
        } else {
            LOG.warn("Config Admin is not running: configurations of files deleted while stopped are not removed");
        }
        if (Etc.batch(context)) {
            Map<String, Object> listener = defaultListener(context, etc);
            if (cm != null && listener != null) {
                Configuration c = cm.getFactoryConfiguration(LISTENER_FACTORY_PID, DEFAULT_LISTENER, "?");
                c.update(new java.util.Hashtable<>(listener));
                LOG.info("No listener in {}: the default listener ({}:{}) serves this run only", Etc.describe(context, etc),
                        listener.get("bindAddress"), listener.get("port"));
            }
            if (!"false".equalsIgnoreCase(context.getProperty("org.apache.felix.http.enable"))) {
                // a batch run with its Web Console (port given): never with the Felix default password
                credentials = context.registerService(ConsoleCredentials.class, consoleCredentials(context, etc, null),
                        null);
            }
            return;
        }
        java.io.File marker = context.getDataFile(FIRST_START_MARKER);
        if (marker != null && !marker.exists()) {
            writeTransportDefaults(context, etc);
            writeDefaultListener(context, etc);
            Files.writeString(marker.toPath(), "the default configuration files were written to " + etc + "\n");
        }
        ConsoleCredentials console = consoleCredentials(context, etc, cm);
        java.util.Hashtable<String, Object> properties = new java.util.Hashtable<>();
        console.refused().ifPresent(finding -> properties.put(SETTINGS_FINDING, finding));
        credentials = context.registerService(ConsoleCredentials.class, console, properties);
        if (console.refused().isPresent()) {
            String putBack = String.valueOf(ConfigurationFile.read(etc.resolve(ConsolePassword.PID + ".cfg")).get("password"));
            passwordChanges = context.registerService(ConfigurationListener.class,
                    event -> forgetRefusalOnceChanged(context, event, putBack), null);
        }
    }

    /**
     * Drops the finding about a refused password put back at this start once the Web Console's
     * configuration holds another password (the operator changed it).
     */
    private void forgetRefusalOnceChanged(BundleContext context, ConfigurationEvent event, String putBack) {
        if (!ConsolePassword.PID.equals(event.getPid()) || event.getType() != ConfigurationEvent.CM_UPDATED) {
            return;
        }
        ConfigurationAdmin cm = service(context, ConfigurationAdmin.class);
        Object now = cm == null ? null : lastGoodPassword(cm);
        ServiceRegistration<ConsoleCredentials> c = credentials;
        if (now != null && !putBack.equals(now) && c != null) {
            try {
                c.setProperties(new java.util.Hashtable<>());
            } catch (IllegalStateException e) {
                // unregistered: stopping
            }
        }
    }

    @Override
    public void stop(BundleContext context) {
        if (passwordChanges != null) {
            passwordChanges.unregister();
        }
        if (credentials != null) {
            credentials.unregister();
        }
        if (logBridge != null) {
            logBridge.close();
        }
    }

    /**
     * Routes the JDK logging (java.util.logging: SPI Fly, Jetty's and other extensions' messages) to
     * SLF4J, so that every line has the runtime's one format and reaches its log file; the levels of
     * {@code etc/logback.xml} apply to it (Logback's LevelChangePropagator).
     */
    static void routeJdkLogging() {
        if (!org.slf4j.bridge.SLF4JBridgeHandler.isInstalled()) {
            org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
            org.slf4j.bridge.SLF4JBridgeHandler.install();
        }
    }

    static void removeConfigurationsOfDeletedFiles(BundleContext context, ConfigurationAdmin cm)
            throws IOException, InvalidSyntaxException {
        Configuration[] all = cm.listConfigurations("(" + ConfigurationFile.FILENAME + "=*)");
        if (all == null) {
            return;
        }
        for (Configuration c : all) {
            Object uri = c.getProperties() == null ? null : c.getProperties().get(ConfigurationFile.FILENAME);
            if (!(uri instanceof String s)) {
                continue;
            }
            Path file;
            try {
                file = ConfigurationFile.fromUri(s);
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (!Files.exists(file)) {
                LOG.info("Configuration {} removed: its file {} was deleted while the runtime was stopped", c.getPid(),
                        Etc.describe(context, file));
                c.delete();
            }
        }
    }

    /** etc/smbdirect.transport.cfg with the Metatype default of every attribute, unless it exists. */
    static void writeTransportDefaults(BundleContext context, Path etc) throws IOException {
        Path file = etc.resolve(TRANSPORT_PID + ".cfg");
        if (Files.exists(file)) {
            return;
        }
        MetaTypeService metaType = service(context, MetaTypeService.class);
        ObjectClassDefinition ocd = metaType == null ? null : find(context, metaType, TRANSPORT_PID);
        if (ocd == null) {
            LOG.warn("No Metatype for {}: {} not written (the transport runs with its built-in defaults)",
                    TRANSPORT_PID, Etc.describe(context, file));
            return;
        }
        Map<String, Object> values = new LinkedHashMap<>();
        Map<String, List<String>> comments = new LinkedHashMap<>();
        for (AttributeDefinition ad : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL)) {
            String[] d = ad.getDefaultValue();
            if (d == null || d.length == 0) {
                continue;
            }
            values.put(ad.getID(), d[0]);
            List<String> comment = new ArrayList<>(List.of("", ad.getName() + ":"));
            comment.addAll(wrap(ad.getDescription() == null ? "" : ad.getDescription(), 96));
            comments.put(ad.getID(), comment);
        }
        ConfigurationFile.write(file, values, List.of(
                ocd.getName() + " (PID " + TRANSPORT_PID + "): the defaults in force, written at the first start.",
                "Edit a value here (applied within a second) or in the Web Console (Configuration > " + ocd.getName() + ").",
                "A bad value is refused with a log line naming it; the last good settings stay in force."),
                comments, false);
        LOG.info("First start: the transport defaults written to {}", Etc.describe(context, file));
    }

    /** etc/smbdirect.listener-default.cfg, unless disabled or a listener file exists. */
    static void writeDefaultListener(BundleContext context, Path etc) throws IOException {
        Map<String, Object> values = defaultListener(context, etc);
        if (values == null) {
            return;
        }
        Object address = values.get("bindAddress");
        Object port = values.get("port");
        Path file = etc.resolve(LISTENER_FACTORY_PID + "-" + DEFAULT_LISTENER + ".cfg");
        ConfigurationFile.write(file, values, List.of(
                "The runtime's default listener (factory PID " + LISTENER_FACTORY_PID + ", name " + DEFAULT_LISTENER
                        + "), written at the first start:",
                "the embedded mock fabric's device address (pinned to the mock provider); connections go to the perf",
                "accept handler.",
                "Delete this file to close the listener; add smbdirect.listener-NAME.cfg files for more."), false);
        LOG.info("First start: the default listener ({}:{}) written to {}", address, port, Etc.describe(context, file));
    }

    /** The default listener's properties, or {@code null} when it is disabled or a listener file exists. */
    static Map<String, Object> defaultListener(BundleContext context, Path etc) throws IOException {
        if ("false".equalsIgnoreCase(context.getProperty(DEFAULT_LISTENER_ENABLED))) {
            LOG.info("Default listener disabled by {}=false", DEFAULT_LISTENER_ENABLED);
            return null;
        }
        try (DirectoryStream<Path> listeners = Files.newDirectoryStream(etc, LISTENER_FACTORY_PID + "-*.cfg")) {
            if (listeners.iterator().hasNext()) {
                return null;
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("name", DEFAULT_LISTENER);
        values.put("bindAddress", property(context, DEFAULT_LISTENER_ADDRESS, "10.0.0.1"));
        values.put("port", property(context, DEFAULT_LISTENER_PORT, "445"));
        values.put("acceptHandler.target", PERF_HANDLER_FILTER);
        // the address is the mock fabric's: the listener stays there when another provider is selected
        values.put("provider.target", "(smbdirect.provider=mock)");
        return values;
    }

    /**
     * Generates the Web Console password when none is configured: its hash goes to {@code etc/}, the
     * password itself to {@value #GENERATED_PASSWORD_FILE} (created readable and writable by the
     * service user only), never to the log or the banner. A generated password the operator has
     * changed since is removed from that file at the next start. A file edited while the runtime was
     * stopped to the Felix default ({@code admin}) or no password is refused when Config Admin
     * ({@code cm}, null in a batch run) still holds the last good password: its hash is put back into
     * the file before FileInstall reads it, so the Web Console never runs on {@code admin}, and the
     * refusal is said in one WARN line and, through the credentials' {@value #SETTINGS_FINDING}, in
     * health. Returns what the banner shows.
     */
    static ConsoleCredentials consoleCredentials(BundleContext context, Path etc, ConfigurationAdmin cm)
            throws IOException {
        Path file = etc.resolve(ConsolePassword.PID + ".cfg");
        Path generatedFile = Etc.home(context).resolve(GENERATED_PASSWORD_FILE);
        Map<String, Object> values = Files.exists(file) ? ConfigurationFile.read(file) : new LinkedHashMap<>();
        Object user = values.get("username");
        String userName = user instanceof String s && !s.isBlank() ? s : "admin";
        if (!ConsolePassword.isDefault(values.get("password"))) {
            boolean stillGenerated = !forgetChangedPassword(context, generatedFile, String.valueOf(values.get("password")))
                    && Files.exists(generatedFile);
            return new ConsoleCredentials(userName, Etc.describe(context, file),
                    stillGenerated ? Etc.describe(context, generatedFile) : null, false);
        }
        ConsolePassword passwords = new ConsolePassword(new SecureRandom());
        String lastGood = Files.exists(file) && cm != null ? lastGoodPassword(cm) : null;
        if (lastGood != null) {
            values.put("username", userName);
            values.put("password", ConsolePassword.isHashed(lastGood) ? lastGood : passwords.hash(lastGood));
            ConfigurationFile.write(file, values, List.of(
                    "Felix Web Console (PID " + ConsolePassword.PID + ").",
                    "password holds the hash of the last good password: the Felix default (admin) or none was refused",
                    "here at a start and this one put back ({sha-256}salt-iterations-hash).",
                    "Change it in the Web Console (Configuration > Apache Felix OSGi Management Console); to reset it,",
                    "stop the runtime, delete this file and start again: a new password is generated."),
                    true);
            String finding = Etc.describe(context, file) + ": password = (hidden) refused (the Felix default password "
                    + "(admin) or none is refused); the last good password was put back";
            LOG.warn("Configuration {}", finding);
            boolean stillGenerated = !forgetChangedPassword(context, generatedFile, String.valueOf(values.get("password")))
                    && Files.exists(generatedFile);
            return new ConsoleCredentials(userName, Etc.describe(context, file),
                    stillGenerated ? Etc.describe(context, generatedFile) : null, false, finding);
        }
        String password = passwords.generate();
        PasswordFile.write(generatedFile, List.of(
                "# The Web Console password generated at the first start for user " + userName + " ("
                        + Etc.describe(context, file) + " holds its hash).",
                "# Change it under Configuration > Apache Felix OSGi Management Console; this file is then removed at"
                        + " the next start.",
                password));
        values.put("username", userName);
        values.put("password", passwords.hash(password));
        ConfigurationFile.write(file, values, List.of(
                "Felix Web Console (PID " + ConsolePassword.PID + ").",
                "password holds the hash of a password generated at the first start ({sha-256}salt-iterations-hash);",
                "the password itself is in " + GENERATED_PASSWORD_FILE + " (readable by the service user only).",
                "Change it in the Web Console (Configuration > Apache Felix OSGi Management Console); to reset it,",
                "stop the runtime, delete this file and start again: a new password is generated."),
                true);
        LOG.info("Generated a Web Console password for user {}: in {} (readable by this user only), its hash in {}",
                userName, Etc.describe(context, generatedFile), Etc.describe(context, file));
        return new ConsoleCredentials(userName, Etc.describe(context, file), Etc.describe(context, generatedFile), true);
    }

    /**
     * The Web Console's password as Config Admin holds it from the last run (before FileInstall
     * reads {@code etc/} at this start); null when there is none or it is the Felix default.
     */
    static String lastGoodPassword(ConfigurationAdmin cm) {
        try {
            Configuration[] c = cm.listConfigurations("(" + org.osgi.framework.Constants.SERVICE_PID + "="
                    + ConsolePassword.PID + ")");
            Object p = c == null || c.length == 0 || c[0].getProperties() == null ? null
                    : c[0].getProperties().get("password");
            return ConsolePassword.isDefault(p) ? null : String.valueOf(p);
        } catch (IOException | InvalidSyntaxException e) {
            LOG.warn("The Web Console's configuration could not be read from Config Admin: {}", e.toString());
            return null;
        }
    }

    /**
     * Removes the generated password's file once the configured password is no longer that one;
     * returns whether it did.
     */
    static boolean forgetChangedPassword(BundleContext context, Path generatedFile, String storedHash)
            throws IOException {
        java.util.Optional<String> generated = PasswordFile.read(generatedFile);
        if (generated.isPresent() && !ConsolePassword.matches(storedHash, generated.get())) {
            Files.deleteIfExists(generatedFile);
            LOG.info("The generated Web Console password was changed: {} removed", Etc.describe(context, generatedFile));
            return true;
        }
        return false;
    }

    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.trim().split("\\s+")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }

    private static ObjectClassDefinition find(BundleContext context, MetaTypeService metaType, String pid) {
        for (Bundle b : context.getBundles()) {
            MetaTypeInformation info = metaType.getMetaTypeInformation(b);
            if (info == null) {
                continue;
            }
            for (String p : info.getPids()) {
                if (pid.equals(p)) {
                    return info.getObjectClassDefinition(pid, null);
                }
            }
        }
        return null;
    }

    private static <S> S service(BundleContext context, Class<S> type) {
        ServiceReference<S> ref = context.getServiceReference(type);
        return ref == null ? null : context.getService(ref);
    }

    private static String property(BundleContext context, String key, String fallback) {
        String value = context.getProperty(key);
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
