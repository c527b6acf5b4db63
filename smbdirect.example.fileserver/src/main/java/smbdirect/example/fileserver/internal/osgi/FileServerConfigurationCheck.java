package smbdirect.example.fileserver.internal.osgi;

import java.util.Map;

import org.osgi.annotation.bundle.Header;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkUtil;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.ConfigurationCheck;

/**
 * The file server's own checks of its configuration ({@code smbdirect.example.fileserver}), for the
 * settings guard: the conversion {@link FileServerComponent} runs ({@link ServerLifecycle#configured}),
 * which refuses beyond the metatype a share name with forbidden characters, a directory that is
 * missing, relative, not a directory, unreadable or (unless read-only) not writable, a listen address
 * that is not HOST:PORT, a user without password or a password without user, nobody able to log
 * on, and a provider name that is none.
 * Registered by the bundle's activator (this class), so that it is there before Declarative
 * Services hands the component its first configuration. Stateless.
 */
@Header(name = Constants.BUNDLE_ACTIVATOR, value = "${@class}")
public final class FileServerConfigurationCheck implements ConfigurationCheck, BundleActivator {

    @Override
    public void check(Map<String, ?> properties) {
        ServerLifecycle.configured(ComponentProperties.read(FileServerConfiguration.class, properties), properties);
    }

    /** Registers the check for its configuration PID; it is unregistered with the bundle. */
    @Override
    public void start(BundleContext context) {
        context.registerService(ConfigurationCheck.class, this,
                FrameworkUtil.asDictionary(Map.of(ConfigurationCheck.CONFIGURATION_PID, ServerLifecycle.PID)));
    }

    @Override
    public void stop(BundleContext context) {
        // unregistered with the bundle
    }
}
