package smbdirect.rdma.mock.internal.osgi;

import java.util.Map;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.ConfigurationCheck;

/**
 * A configured mock provider's own checks of its configuration (factory PID
 * {@code smbdirect.rdma.mock}), for the settings guard: the conversion the component runs at start
 * ({@link AbstractMockProviderComponent#capabilities}: capabilities and completion threads). Its
 * rules are those of the metatype; the check keeps the guard and the component one source. Stateless.
 */
@Component(service = ConfigurationCheck.class, configurationPolicy = ConfigurationPolicy.IGNORE,
        property = ConfigurationCheck.CONFIGURATION_PID + "=" + ConfiguredMockProviderComponent.FACTORY_PID)
public final class MockConfigurationCheck implements ConfigurationCheck {

    @Override
    public void check(Map<String, ?> properties) {
        AbstractMockProviderComponent.capabilities(ComponentProperties.read(MockProviderConfig.class, properties));
    }
}
