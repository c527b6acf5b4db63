package smbdirect.rdma.mock.internal.osgi;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;

import smbdirect.api.rdma.RdmaProvider;

/**
 * The default mock provider: name {@code mock}, InfiniBand, ranking -100 (below the verbs
 * provider), one threaded fabric; always present while the bundle is active.
 */
@Component(name = "smbdirect.rdma.mock.default", service = RdmaProvider.class, immediate = true,
        configurationPolicy = ConfigurationPolicy.IGNORE)
public final class DefaultMockProviderComponent extends AbstractMockProviderComponent {

    @Activate
    void activate(MockProviderConfiguration config) {
        start(config);
    }

    @Deactivate
    void deactivate() {
        stop();
    }
}
