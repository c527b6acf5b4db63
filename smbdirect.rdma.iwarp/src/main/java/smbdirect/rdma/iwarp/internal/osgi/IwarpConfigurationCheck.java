package smbdirect.rdma.iwarp.internal.osgi;

import java.util.Map;

import org.osgi.annotation.bundle.Header;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkUtil;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.ConfigurationCheck;

/**
 * The software iWARP provider's own checks of its configuration ({@code smbdirect.rdma.iwarp}), for
 * the settings guard: the conversion {@link IwarpProviderComponent} runs
 * ({@link IwarpProviderLifecycle#convert}), which refuses beyond the metatype a maximum FPDU size that is
 * no multiple of 4 from 64, socket buffers below 4096 bytes, RTR frames without MPA revision 2, and
 * listen addresses that are no IP literals.
 * Registered by the bundle's activator (this class), so that it is there before Declarative
 * Services hands the component its first configuration. Stateless.
 */
@Header(name = Constants.BUNDLE_ACTIVATOR, value = "${@class}")
public final class IwarpConfigurationCheck implements ConfigurationCheck, BundleActivator {

    @Override
    public void check(Map<String, ?> properties) {
        IwarpProviderLifecycle.convert(ComponentProperties.read(IwarpConfiguration.class, properties), properties);
    }

    /** Registers the check for its configuration PID; it is unregistered with the bundle. */
    @Override
    public void start(BundleContext context) {
        context.registerService(ConfigurationCheck.class, this,
                FrameworkUtil.asDictionary(Map.of(ConfigurationCheck.CONFIGURATION_PID, IwarpProviderLifecycle.PID)));
    }

    @Override
    public void stop(BundleContext context) {
        // unregistered with the bundle
    }
}
