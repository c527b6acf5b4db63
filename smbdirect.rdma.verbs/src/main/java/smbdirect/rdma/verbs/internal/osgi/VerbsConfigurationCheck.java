package smbdirect.rdma.verbs.internal.osgi;

import java.util.Map;

import org.osgi.annotation.bundle.Header;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkUtil;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.ConfigurationCheck;

/**
 * The verbs provider's own checks of its configuration ({@code smbdirect.rdma.verbs}), for the
 * settings guard: the conversion {@link VerbsProviderComponent} runs
 * ({@link VerbsProviderComponent#settings}), which refuses beyond the metatype send and receive
 * queue depths that together exceed the completion queue they share.
 * Registered by the bundle's activator (this class), so that it is there before Declarative
 * Services hands the component its first configuration. Stateless.
 */
@Header(name = Constants.BUNDLE_ACTIVATOR, value = "${@class}")
public final class VerbsConfigurationCheck implements ConfigurationCheck, BundleActivator {

    @Override
    public void check(Map<String, ?> properties) {
        VerbsProviderComponent.settings(ComponentProperties.read(VerbsConfiguration.class, properties));
    }

    /** Registers the check for its configuration PID; it is unregistered with the bundle. */
    @Override
    public void start(BundleContext context) {
        context.registerService(ConfigurationCheck.class, this,
                FrameworkUtil.asDictionary(Map.of(ConfigurationCheck.CONFIGURATION_PID, VerbsProviderComponent.PID)));
    }

    @Override
    public void stop(BundleContext context) {
        // unregistered with the bundle
    }
}
