package smbdirect.impl.osgi;

import java.util.Map;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

import smbdirect.api.settings.ConfigurationCheck;

/**
 * A listener's own checks of its configuration (factory PID {@code smbdirect.listener}), for the
 * settings guard: {@link SmbDirectListenerComponent#check}, the conversion the component runs.
 * Stateless.
 */
@Component(service = ConfigurationCheck.class, configurationPolicy = ConfigurationPolicy.IGNORE,
        property = ConfigurationCheck.CONFIGURATION_PID + "=" + SmbDirectListenerComponent.FACTORY_PID)
public final class ListenerConfigurationCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        SmbDirectListenerComponent.check(properties);
    }
}
