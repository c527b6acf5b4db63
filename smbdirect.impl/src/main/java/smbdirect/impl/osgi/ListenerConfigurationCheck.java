package smbdirect.impl.osgi;

import java.util.Map;

import smbdirect.api.settings.ConfigurationCheck;

/**
 * A listener's own checks of its configuration (factory PID {@code smbdirect.listener}), for the
 * settings guard: {@link SmbDirectListenerComponent#check}, the conversion the component runs.
 * Registered by
 * {@link smbdirect.impl.osgi.settings.ConfigurationChecks}. Stateless.
 */
public final class ListenerConfigurationCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        SmbDirectListenerComponent.check(properties);
    }
}
