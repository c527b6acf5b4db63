package smbdirect.rdma.iwarp.internal.osgi;

import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.iwarp.IwarpProvider;

/**
 * The software iWARP provider's component (configuration PID {@code smbdirect.rdma.iwarp},
 * required: installing the bundle registers no provider and opens nothing until an operator
 * creates the configuration, e.g. {@code etc/smbdirect.rdma.iwarp.cfg} with {@code listenAddresses},
 * or the Web Console's form; deleting it closes the provider). It registers the
 * {@link RdmaProvider} service itself ({@code smbdirect.provider=iwarp},
 * {@code smbdirect.provider.transport=IWARP}, {@code service.ranking} 50 by default) so that a
 * configuration change can be validated first and applied by re-registering: a bad value is
 * refused with an ERROR naming the attribute and the running provider stays; a good change closes
 * the old provider (its connections end with PROVIDER_SHUTDOWN) and registers a new one.
 * Thread-safety: SCR serialises activate, modified and deactivate.
 */
@Component(name = IwarpProviderLifecycle.PID, configurationPid = IwarpProviderLifecycle.PID, service = {}, immediate = true,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = IwarpConfiguration.class)
public final class IwarpProviderComponent {

    private IwarpProviderLifecycle lifecycle;

    @Activate
    void activate(BundleContext context, IwarpConfiguration config, Map<String, Object> raw) {
        lifecycle = new IwarpProviderLifecycle((provider, properties) -> {
            ServiceRegistration<RdmaProvider> registration = context.registerService(RdmaProvider.class, provider,
                    properties);
            return registration::unregister;
        }, IwarpProvider::open);
        lifecycle.configure(config, raw);
    }

    @Modified
    void modified(IwarpConfiguration config, Map<String, Object> properties) {
        lifecycle.configure(config, properties);
    }

    @Deactivate
    void deactivate() {
        if (lifecycle != null) {
            lifecycle.stop();
            lifecycle = null;
        }
    }
}
