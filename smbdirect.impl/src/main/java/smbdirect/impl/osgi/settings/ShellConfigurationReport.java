package smbdirect.impl.osgi.settings;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Collections;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Map;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import smbdirect.impl.transport.ProviderFilter;

/**
 * Says in Karaf's shell, where the change is made, what the {@link SettingsGuard} makes of a
 * configuration saved by {@code config:update}: after the command, one line for a refused value
 * (and whether the last good settings are put back) or an unknown key, nothing when all is well.
 * Karaf's config commands keep the configuration being edited in the session
 * ({@value #EDITED_PID}, {@value #EDITED_PROPS}, {@value #EDITED_FACTORY}); they are read before
 * {@code config:update} runs, as the command clears them. Karaf's shell calls every
 * {@link CommandSessionListener} service; in a shell without Karaf's config commands nothing matches.
 *
 * <p>Thread-safe: what is found before a command is kept in its own session.
 */
@Component(service = CommandSessionListener.class)
public final class ShellConfigurationReport implements CommandSessionListener {

    /** Karaf's session variables of the configuration being edited (its config commands' names). */
    static final String EDITED_PID = "ConfigCommand.PID";
    static final String EDITED_PROPS = "ConfigCommand.Props";
    static final String EDITED_FACTORY = "ConfigCommand.Factory";
    /** This listener's session variable: the line to print once the command succeeded. */
    static final String PENDING = "smbdirect.configReport";

    private final SettingsGuard guard;
    private final ConfigurationAdmin configurationAdmin;

    @Activate
    public ShellConfigurationReport(@Reference(target = "(component.name=smbdirect.impl.osgi.settings.SettingsGuard)")
            SettingsFindings guard, @Reference ConfigurationAdmin configurationAdmin) {
        this.guard = (SettingsGuard) guard;
        this.configurationAdmin = configurationAdmin;
    }

    @Override
    public void beforeExecute(CommandSession session, CharSequence command) {
        session.put(PENDING, null);
        if (!isConfigUpdate(command) || !(session.get(EDITED_PID) instanceof String pid)) {
            return;
        }
        Map<String, Object> values = values(session.get(EDITED_PROPS));
        if (values == null) {
            return;
        }
        String factoryPid = Boolean.TRUE.equals(session.get(EDITED_FACTORY)) ? pid : factoryOf(pid);
        String verdict = guard.verdict(pid, factoryPid, values);
        if (verdict != null) {
            session.put(PENDING, "Configuration " + pid + ": " + verdict);
        }
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Object result) {
        Object line = session.get(PENDING);
        if (line != null) {
            session.put(PENDING, null);
            PrintStream console = session.getConsole();
            if (console != null) {
                console.println(line);
                console.flush();
            }
        }
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Exception exception) {
        session.put(PENDING, null);
    }

    /** {@code config:update}, with or without options. */
    static boolean isConfigUpdate(CharSequence command) {
        String c = command.toString().strip();
        return c.equals("config:update") || c.startsWith("config:update ");
    }

    private static Map<String, Object> values(Object edited) {
        Map<String, Object> values = new HashMap<>();
        if (edited instanceof Map<?, ?> m) {
            m.forEach((k, v) -> values.put(String.valueOf(k), v));
        } else if (edited instanceof Dictionary<?, ?> d) {
            for (Object k : Collections.list(d.keys())) {
                values.put(String.valueOf(k), d.get(k));
            }
        } else {
            return null;
        }
        return values;
    }

    private String factoryOf(String pid) {
        try {
            Configuration[] c = configurationAdmin.listConfigurations("(service.pid=" + ProviderFilter.escape(pid) + ")");
            return c == null || c.length == 0 ? null : c[0].getFactoryPid();
        } catch (IOException | InvalidSyntaxException e) {
            return null;
        }
    }
}
