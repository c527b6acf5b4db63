package smbdirect.impl.osgi;

import java.util.Map;

import smbdirect.api.settings.ConfigurationCheck;

/**
 * The transport's own checks of its configuration ({@code smbdirect.transport}), for the settings
 * guard: {@link SmbDirectTransportComponent#check}, the conversion the component runs. Registered by
 * {@link smbdirect.impl.osgi.settings.ConfigurationChecks}. Stateless.
 */
public final class TransportConfigurationCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        SmbDirectTransportComponent.check(properties);
    }
}
