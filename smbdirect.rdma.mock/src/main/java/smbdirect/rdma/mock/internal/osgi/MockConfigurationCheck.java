package smbdirect.rdma.mock.internal.osgi;

import java.util.Map;

import org.osgi.annotation.bundle.Header;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkUtil;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.ConfigurationCheck;

/**
 * A configured mock provider's own checks of its configuration (factory PID
 * {@code smbdirect.rdma.mock}), for the settings guard: the conversion the component runs at start
 * ({@link AbstractMockProviderComponent#capabilities}: capabilities and completion threads). Its
 * rules are those of the metatype; the check keeps the guard and the component one source.
 * Registered by the bundle's activator (this class), so that it is there before Declarative
 * Services hands the component its first configuration. Stateless.
 */
@Header(name = Constants.BUNDLE_ACTIVATOR, value = "${@class}")
public final class MockConfigurationCheck implements ConfigurationCheck, BundleActivator {

    @Override
    public void check(Map<String, ?> properties) {
        AbstractMockProviderComponent.capabilities(ComponentProperties.read(MockProviderConfiguration.class, properties));
    }

    /** Registers the check for its configuration PID; it is unregistered with the bundle. */
    @Override
    public void start(BundleContext context) {
        context.registerService(ConfigurationCheck.class, this,
                FrameworkUtil.asDictionary(Map.of(ConfigurationCheck.CONFIGURATION_PID, ConfiguredMockProviderComponent.FACTORY_PID)));
    }

    @Override
    public void stop(BundleContext context) {
        // unregistered with the bundle
    }
}
