package smbdirect.impl.osgi.settings;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import smbdirect.impl.control.SettingsFindings;
import smbdirect.impl.transport.ProviderFilter;

/**
 * Says in Karaf's shell, where the change is made, what the {@link SettingsGuard} makes of a
 * configuration saved by {@code config:update} or by {@code config:property-set -p PID key value}
 * (which saves at once): after the command, one line for a refused value
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
    /** This listener's session variable: the PID whose last good settings the line says are put back. */
    static final String PENDING_PUT_BACK = "smbdirect.configReport.putBack";
    /** How long the line waits for the put-back it announces (bounded: a shell is not held up for long). */
    static final Duration PUT_BACK_WAIT = Duration.ofSeconds(5);

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
        session.put(PENDING_PUT_BACK, null);
        String[] direct = propertySetWithPid(command);
        if (direct != null) {
            reportPropertySet(session, direct[0], direct[1], direct[2]);
            return;
        }
        if (!isConfigUpdate(command) || !(session.get(EDITED_PID) instanceof String pid)) {
            return;
        }
        Map<String, Object> values = values(session.get(EDITED_PROPS));
        if (values == null) {
            return;
        }
        String factoryPid = Boolean.TRUE.equals(session.get(EDITED_FACTORY)) ? pid : factoryOf(pid);
        pend(session, pid, guard.verdict(pid, factoryPid, values));
    }

    private static void pend(CommandSession session, String pid, String verdict) {
        if (verdict != null) {
            session.put(PENDING, "Configuration " + pid + ": " + verdict);
            session.put(PENDING_PUT_BACK, verdict.contains(SettingsGuard.PUTS_BACK) ? pid : null);
        }
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Object result) {
        Object line = session.get(PENDING);
        if (line != null) {
            session.put(PENDING, null);
            if (session.get(PENDING_PUT_BACK) instanceof String pid) {
                // said when done: the put-back's update made, its event delivered (and so File Install's
                // write of the file), before the shell takes the next command
                session.put(PENDING_PUT_BACK, null);
                try {
                    if (!guard.awaitPutBack(pid, PUT_BACK_WAIT)) {
                        line = line + " (not yet done after " + PUT_BACK_WAIT.toSeconds() + " s)";
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
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
        session.put(PENDING_PUT_BACK, null);
    }

    /**
     * {@code config:property-set -p PID key value}: Karaf saves the configuration {@code PID} with
     * {@code key} set at once, without {@code config:update}; judged as that configuration is now
     * with {@code key = value}.
     */
    private void reportPropertySet(CommandSession session, String pid, String key, String value) {
        Map<String, Object> values = new HashMap<>();
        String factoryPid = null;
        try {
            Configuration[] c = configurationAdmin.listConfigurations("(service.pid=" + ProviderFilter.escape(pid) + ")");
            if (c != null && c.length > 0) {
                factoryPid = c[0].getFactoryPid();
                Map<String, Object> now = values(c[0].getProperties());
                if (now != null) {
                    values.putAll(now);
                }
            }
        } catch (IOException | InvalidSyntaxException e) {
            return;
        }
        values.put(key, value);
        pend(session, pid, guard.verdict(pid, factoryPid, values));
    }

    /**
     * The PID, key and value of {@code config:property-set} given with {@code -p PID} or
     * {@code --pid PID} (its words split at blanks outside quotes, as the shell does); null for any
     * other command, or for {@code property-set} without a PID (which edits the session's copy,
     * judged at {@code config:update}).
     */
    static String[] propertySetWithPid(CharSequence command) {
        List<String> words = words(command.toString().strip());
        if (words.isEmpty() || !words.get(0).equals("config:property-set")) {
            return null;
        }
        String pid = null;
        List<String> arguments = new ArrayList<>();
        for (int i = 1; i < words.size(); i++) {
            String w = words.get(i);
            if ((w.equals("-p") || w.equals("--pid")) && i + 1 < words.size()) {
                pid = words.get(++i);
            } else if (w.startsWith("--pid=")) {
                pid = w.substring("--pid=".length());
            } else if (w.startsWith("-") && arguments.isEmpty()) {
                return null; // an option this report does not know: say nothing rather than guess
            } else {
                arguments.add(w);
            }
        }
        return pid == null || arguments.size() != 2 ? null : new String[] {pid, arguments.get(0), arguments.get(1)};
    }

    /** {@code line} split at blanks outside single or double quotes, the quotes removed. */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quote != 0) {
                if (ch == quote) {
                    quote = 0;
                } else {
                    word.append(ch);
                }
            } else if (ch == '"' || ch == '\'') {
                quote = ch;
                word = word == null ? new StringBuilder() : word;
            } else if (Character.isWhitespace(ch)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(ch);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
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
