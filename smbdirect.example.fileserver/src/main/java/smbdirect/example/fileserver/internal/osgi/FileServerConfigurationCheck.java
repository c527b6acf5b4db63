package smbdirect.example.fileserver.internal.osgi;

import java.util.Map;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.ConfigurationCheck;

/**
 * The file server's own checks of its configuration ({@code smbdirect.example.fileserver}), for the
 * settings guard: the conversion {@link FileServerComponent} runs ({@link ServerLifecycle#configured}),
 * which refuses beyond the metatype a share name with forbidden characters, a directory that is
 * missing, relative, not a directory, unreadable or (unless read-only) not writable, a listen address
 * that is not HOST:PORT, a user without password or a password without user, nobody able to log
 * on, and a provider name that is none. Stateless.
 */
@Component(service = ConfigurationCheck.class, configurationPolicy = ConfigurationPolicy.IGNORE,
        property = ConfigurationCheck.CONFIGURATION_PID + "=" + ServerLifecycle.PID)
public final class FileServerConfigurationCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        ServerLifecycle.configured(ComponentProperties.read(FileServerConfiguration.class, properties), properties);
    }
}
