package smbdirect.impl.osgi;

import java.util.Map;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

import smbdirect.api.settings.ConfigurationCheck;

/**
 * The transport's own checks of its configuration ({@code smbdirect.transport}), for the settings
 * guard: {@link SmbDirectTransportComponent#check}, the conversion the component runs. Stateless.
 */
@Component(service = ConfigurationCheck.class, configurationPolicy = ConfigurationPolicy.IGNORE,
        property = ConfigurationCheck.CONFIGURATION_PID + "=" + SmbDirectTransportComponent.PID)
public final class TransportConfigurationCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        SmbDirectTransportComponent.check(properties);
    }
}
