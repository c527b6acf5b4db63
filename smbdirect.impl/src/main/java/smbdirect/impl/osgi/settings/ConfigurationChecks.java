package smbdirect.impl.osgi.settings;

import java.util.Map;

import org.osgi.annotation.bundle.Header;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkUtil;

import smbdirect.api.settings.ConfigurationCheck;
import smbdirect.impl.osgi.ListenerConfigurationCheck;
import smbdirect.impl.osgi.SmbDirectListenerComponent;
import smbdirect.impl.osgi.SmbDirectTransportComponent;
import smbdirect.impl.osgi.TransportConfigurationCheck;

/**
 * The bundle's activator: registers this bundle's {@link ConfigurationCheck}s (the transport's, the
 * listeners', the Web Console password's) as the provider bundles register theirs, before
 * Declarative Services starts the bundle's components, so that the {@link SettingsGuard} has them
 * from its first check on. They are unregistered with the bundle.
 */
@Header(name = Constants.BUNDLE_ACTIVATOR, value = "${@class}")
public final class ConfigurationChecks implements BundleActivator {

    @Override
    public void start(BundleContext context) {
        register(context, SmbDirectTransportComponent.PID, new TransportConfigurationCheck());
        register(context, SmbDirectListenerComponent.FACTORY_PID, new ListenerConfigurationCheck());
        register(context, SettingsGuard.CONSOLE_PID, new ConsolePasswordCheck());
    }

    private static void register(BundleContext context, String pid, ConfigurationCheck check) {
        context.registerService(ConfigurationCheck.class, check,
                FrameworkUtil.asDictionary(Map.of(ConfigurationCheck.CONFIGURATION_PID, pid)));
    }

    @Override
    public void stop(BundleContext context) {
        // unregistered with the bundle
    }
}
