package smbdirect.impl.osgi.settings;

import java.util.Map;

import smbdirect.api.settings.ConfigurationCheck;
import smbdirect.api.settings.SettingRefusedException;

/**
 * The Web Console's password, checked for the settings guard: the Felix default ({@code admin}) and
 * none are refused (the value is never shown). Registered by
 * {@link smbdirect.impl.osgi.settings.ConfigurationChecks}. Stateless.
 */
public final class ConsolePasswordCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        Object password = properties.get("password");
        if (password != null && (String.valueOf(password).isBlank() || "admin".equals(password))) {
            throw new SettingRefusedException("password", "(hidden)", "the Felix default password (admin) or none is refused");
        }
    }
}
