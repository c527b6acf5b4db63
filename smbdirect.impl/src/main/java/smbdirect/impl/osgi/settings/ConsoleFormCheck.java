package smbdirect.impl.osgi.settings;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.felix.webconsole.spi.ConfigurationHandler;
import org.apache.felix.webconsole.spi.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses, where the change is made, a value the {@link SettingsGuard} would refuse: the Felix Web
 * Console calls its {@link ConfigurationHandler}s before it saves a configuration from its form, and
 * answers a {@link ValidationException} with 400 and the exception's text, which the form shows; the
 * configuration, and so its file under {@code etc/}, stays as it was. Unknown keys are not refused
 * here (the form posts only the metatype's attributes). Registered by the guard where the Web
 * Console's SPI is wired ({@link SettingsGuard#registerConsoleFormCheck}). Stateless.
 */
final class ConsoleFormCheck implements ConfigurationHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleFormCheck.class);

    private final SettingsGuard guard;

    ConsoleFormCheck(SettingsGuard guard) {
        this.guard = guard;
    }

    @Override
    public void createConfiguration(String pid) {
        // nothing to check before there are values
    }

    @Override
    public void createFactoryConfiguration(String factoryPid, String name) {
        // nothing to check before there are values
    }

    @Override
    public void deleteConfiguration(String factoryPid, String pid) {
        // deleting is the component's default or its absence: never a refused value
    }

    @Override
    public void updateConfiguration(String factoryPid, String pid, Dictionary<String, Object> props)
            throws ValidationException {
        String refused = refusal(pid, factoryPid, props);
        if (refused != null) {
            LOG.warn("Configuration {} not saved from the Web Console's form: {}", pid, refused);
            throw new ValidationException("Not saved: " + refused + "; the settings in force stay as they are.");
        }
    }

    /** What is refused in {@code props} saved as {@code pid} ("key = value refused (reason)"; ...): null when nothing is. */
    String refusal(String pid, String factoryPid, Dictionary<String, Object> props) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (String k : Collections.list(props.keys())) {
            values.put(k, props.get(k));
        }
        List<SettingsCheck.Problem> found = guard.problems(pid, factoryPid == null || factoryPid.isEmpty() ? null
                : factoryPid, values);
        if (found == null || found.isEmpty() || !found.get(0).refused()) {
            return null;
        }
        List<String> refused = new ArrayList<>();
        for (SettingsCheck.Problem p : found) {
            if (p.refused()) {
                refused.add(p.text());
            }
        }
        return String.join("; ", refused);
    }
}
