package smbdirect.dist.etc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Dictionary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationEvent;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@code etc/} the truth about configuration: every configuration changed in the running
 * runtime (Web Console, Gogo, Karaf-style tools, programs) is written back to its file under
 * {@code etc/}, atomically ({@link ConfigurationFile}); a configuration that has no file yet (one created
 * in the Web Console) gets one, named {@code PID.cfg} or {@code FACTORYPID-NAME.cfg} as FileInstall
 * expects; deleting a configuration deletes its file. At its start it writes the configurations
 * changed before it started (the last good settings put back over a file refused at start). FileInstall's own write-back, which rewrites
 * files in place, is disabled in this runtime ({@code felix.fileinstall.enableConfigSave=false}).
 *
 * <p>A new file of a configuration that holds a password is readable by its owner only.
 *
 * <p>The Web Console's password is never written in plain text (the Web Console replaces a plain
 * password by its hash at once; the hash is written), and a change back to the Felix default
 * password ("admin", or no password) is refused: the previous password, as its file holds it, stays
 * in force.
 *
 * <p>A batch run ({@code perf}, {@link Etc#batch}) writes nothing: the configurations it creates
 * (the iWARP provider's for {@code perf --provider iwarp}, the default listener) are its own.
 *
 * <p>Thread-safe: Config Admin delivers events on one thread; the index of files is concurrent.
 */
@Component(service = ConfigurationListener.class, immediate = true)
public class ConfigurationFileWriter implements ConfigurationListener {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigurationFileWriter.class);

    private final Map<String, Path> files = new ConcurrentHashMap<>();
    private final Set<String> naming = ConcurrentHashMap.newKeySet();

    @Reference
    private ConfigurationAdmin configurationAdmin;

    private BundleContext context;
    private Path etc;
    private boolean batch;

    @Activate
    void activate(BundleContext bundleContext) throws IOException, InvalidSyntaxException {
        this.context = bundleContext;
        this.etc = Etc.directory(bundleContext);
        this.batch = Etc.batch(bundleContext);
        Configuration[] all = configurationAdmin.listConfigurations(null);
        if (all != null) {
            for (Configuration c : all) {
                Path f = fileOf(c.getProperties());
                if (f != null) {
                    files.put(c.getPid(), f);
                }
            }
            // a configuration changed before this component started (the last good settings put back
            // over a refused file at start) is written now; files that agree are left alone
            for (Configuration c : all) {
                if (!batch && fileOf(c.getProperties()) != null) {
                    try {
                        updated(c.getPid());
                    } catch (IOException | RuntimeException e) {
                        LOG.error("Configuration {} not written to etc/: {}", c.getPid(), e.toString(), e);
                    }
                }
            }
        }
    }

    @Override
    public void configurationEvent(ConfigurationEvent event) {
        if (batch) {
            return;
        }
        try {
            switch (event.getType()) {
                case ConfigurationEvent.CM_UPDATED -> updated(event.getPid());
                case ConfigurationEvent.CM_DELETED -> deleted(event.getPid());
                default -> {
                    // location changes do not touch files
                }
            }
        } catch (IOException | InvalidSyntaxException | RuntimeException e) {
            LOG.error("Configuration {} not written to etc/: {}", event.getPid(), e.toString(), e);
        }
    }

    private void updated(String pid) throws IOException, InvalidSyntaxException {
        Configuration c = find(pid);
        Dictionary<String, Object> props = c == null ? null : c.getProperties();
        if (props == null) {
            return;
        }
        if (ConsolePassword.PID.equals(pid) && !consolePasswordMayBeWritten(c, props)) {
            return;
        }
        Path file = fileOf(props);
        if (file == null) {
            Path named = nameFile(c, props);
            if (named != null) {
                // recorded first, so that FileInstall finds this configuration when it sees the file;
                // the update this causes comes back here and writes the file
                naming.add(pid);
                props.put(ConfigurationFile.FILENAME, ConfigurationFile.toUri(named));
                c.update(props);
            }
            return;
        }
        if (!file.startsWith(etc)) {
            return;
        }
        boolean assigned = naming.remove(pid);
        if (!assigned && !Files.exists(file)) {
            return; // its file was deleted: FileInstall deletes the configuration
        }
        boolean written = ConfigurationFile.write(file, values(props), header(c), privateFile(pid, props));
        files.put(pid, file);
        if (written) {
            LOG.info("Configuration {} written to {}", pid, Etc.describe(context, file));
        }
    }

    /**
     * Whether a new file for the configuration is readable by its owner only: the Web Console's, and
     * any configuration that holds a password (the reference file server's account), which a
     * configuration file keeps as it is given.
     */
    static boolean privateFile(String pid, Dictionary<String, ?> props) {
        Object password = props.get("password");
        return ConsolePassword.PID.equals(pid) || password instanceof String s && !s.isEmpty();
    }

    private void deleted(String pid) throws IOException {
        Path file = files.remove(pid);
        if (file != null && file.startsWith(etc) && ConfigurationFile.delete(file)) {
            LOG.info("Configuration {} deleted: {} removed", pid, Etc.describe(context, file));
        }
    }

    /**
     * Plain passwords are left to the Web Console, which stores their hash next; the default password
     * is refused in favour of the one in the file.
     */
    private boolean consolePasswordMayBeWritten(Configuration c, Dictionary<String, Object> props) throws IOException {
        Object password = props.get("password");
        if (password instanceof String s && !ConsolePassword.isHashed(s) && !ConsolePassword.isDefault(s)) {
            return false;
        }
        if (!ConsolePassword.isDefault(password)) {
            return true;
        }
        Path file = fileOf(props);
        if (file == null) {
            file = etc.resolve(ConsolePassword.PID + ".cfg"); // the Web Console's form drops the file name
        }
        Object previous = Files.exists(file) ? ConfigurationFile.read(file).get("password") : null;
        if (ConsolePassword.isDefault(previous)) {
            LOG.warn("The Web Console password is the Felix default (admin): set one under Configuration >"
                    + " Apache Felix OSGi Management Console");
            return true;
        }
        LOG.warn("Web Console password not changed: the Felix default password (admin) is refused; the previous"
                + " password stays in force");
        props.put("password", previous);
        c.update(props);
        return false;
    }

    /** A free file name for a configuration that has none (null: FileInstall could not read it back). */
    private Path nameFile(Configuration c, Dictionary<String, Object> props) {
        String pid = c.getPid();
        String factory = c.getFactoryPid();
        if (factory == null) {
            return pid.contains("-") ? null : etc.resolve(pid + ".cfg");
        }
        if (factory.contains("-")) {
            return null;
        }
        // the configuration's own name (a listener's) reads best; else the PID's unique part
        Object n = props.get("name");
        String name = n instanceof String s && !s.isBlank() ? s.strip()
                : pid.startsWith(factory + "~") ? pid.substring(factory.length() + 1) : pid.substring(pid.lastIndexOf('.') + 1);
        String base = factory + "-" + name.replaceAll("[^A-Za-z0-9._~]", "_");
        Path candidate = etc.resolve(base + ".cfg");
        for (int i = 2; Files.exists(candidate) || files.containsValue(candidate); i++) {
            candidate = etc.resolve(base + "-" + i + ".cfg");
        }
        return candidate;
    }

    private Configuration find(String pid) throws IOException, InvalidSyntaxException {
        Configuration[] c = configurationAdmin.listConfigurations("(service.pid=" + escape(pid) + ")");
        return c == null || c.length == 0 ? null : c[0];
    }

    private static Path fileOf(Dictionary<String, Object> props) {
        Object uri = props == null ? null : props.get(ConfigurationFile.FILENAME);
        if (!(uri instanceof String s)) {
            return null;
        }
        try {
            return ConfigurationFile.fromUri(s).toAbsolutePath().normalize();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Map<String, Object> values(Dictionary<String, Object> props) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String key : Collections.list(props.keys())) {
            m.put(key, props.get(key));
        }
        return m;
    }

    private static List<String> header(Configuration c) {
        return List.of("Configuration " + c.getPid() + ", written by the SMB Direct runtime when it was changed.",
                "Edit this file (the runtime applies it within a second) or use the Web Console.");
    }

    static String escape(String value) {
        StringBuilder b = new StringBuilder(value.length());
        for (char ch : value.toCharArray()) {
            if (ch == '\\' || ch == '(' || ch == ')' || ch == '*') {
                b.append('\\');
            }
            b.append(ch);
        }
        return b.toString();
    }
}
