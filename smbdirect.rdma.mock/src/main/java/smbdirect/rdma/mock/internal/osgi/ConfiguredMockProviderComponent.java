package smbdirect.rdma.mock.internal.osgi;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.Designate;

import smbdirect.api.rdma.RdmaProvider;

/**
 * A further mock provider per factory configuration of PID {@value #FACTORY_PID}, each on its own
 * fabric. A changed configuration restarts the provider (new fabric, live endpoints get
 * {@code PROVIDER_SHUTDOWN}).
 */
@Component(name = ConfiguredMockProviderComponent.FACTORY_PID, configurationPid = ConfiguredMockProviderComponent.FACTORY_PID,
        service = RdmaProvider.class, immediate = true, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = MockProviderConfiguration.class, factory = true)
public final class ConfiguredMockProviderComponent extends AbstractMockProviderComponent {

    /** The factory PID. */
    public static final String FACTORY_PID = "smbdirect.rdma.mock";

    @Activate
    void activate(MockProviderConfiguration config) {
        start(config);
    }

    @Deactivate
    void deactivate() {
        stop();
    }
}
