package smbdirect.rdma.iwarp.internal.osgi;

import java.util.Map;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.ConfigurationCheck;

/**
 * The software iWARP provider's own checks of its configuration ({@code smbdirect.rdma.iwarp}), for
 * the settings guard: the conversion {@link IwarpProviderComponent} runs
 * ({@link ProviderLifecycle#convert}), which refuses beyond the metatype a maximum FPDU size that is
 * no multiple of 4 from 64, socket buffers below 4096 bytes, RTR frames without MPA revision 2, and
 * listen addresses that are no IP literals. Stateless.
 */
@Component(service = ConfigurationCheck.class, configurationPolicy = ConfigurationPolicy.IGNORE,
        property = ConfigurationCheck.CONFIGURATION_PID + "=" + ProviderLifecycle.PID)
public final class IwarpConfigurationCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        ProviderLifecycle.convert(ComponentProperties.read(IwarpConfiguration.class, properties), properties);
    }
}
