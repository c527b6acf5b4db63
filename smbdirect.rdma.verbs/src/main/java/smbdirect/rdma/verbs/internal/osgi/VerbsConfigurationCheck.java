package smbdirect.rdma.verbs.internal.osgi;

import java.util.Map;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.ConfigurationCheck;

/**
 * The verbs provider's own checks of its configuration ({@code smbdirect.rdma.verbs}), for the
 * settings guard: the conversion {@link VerbsProviderComponent} runs
 * ({@link VerbsProviderComponent#settings}), which refuses beyond the metatype send and receive
 * queue depths that together exceed the completion queue they share. Stateless.
 */
@Component(service = ConfigurationCheck.class, configurationPolicy = ConfigurationPolicy.IGNORE,
        property = ConfigurationCheck.CONFIGURATION_PID + "=" + VerbsProviderComponent.PID)
public final class VerbsConfigurationCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        VerbsProviderComponent.settings(ComponentProperties.read(VerbsConfiguration.class, properties));
    }
}
