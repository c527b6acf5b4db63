package smbdirect.rdma.verbs.internal.osgi;

import java.nio.file.Path;
import java.util.List;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.Designate;

import smbdirect.rdma.verbs.internal.DisniAccess;
import smbdirect.rdma.verbs.internal.RdmaCoreAccessLoader;
import smbdirect.rdma.verbs.internal.SysfsDevices;
import smbdirect.rdma.verbs.internal.VerbsProbe;
import smbdirect.rdma.verbs.internal.VerbsSettings;
import smbdirect.rdma.verbs.internal.disni.DisniNativeAccess;

/**
 * The verbs provider's component. Immediate, so the probe runs at start; it registers the
 * {@code RdmaProvider} service ({@code smbdirect.provider=verbs}, {@code service.ranking=100}) itself
 * through the bundle context, and only when a backend (rdma-core on JDK 22+, or libdisni with
 * {@code sun.nio.ch} access) and a device are usable. Otherwise it logs one line naming the missing piece
 * (INFO while the provider is not configured, WARN once {@code smbdirect.rdma.verbs} is) and registers only a
 * {@link VerbsStatus} with {@code smbdirect.provider.status=unavailable: <reason>}. A configuration
 * change reactivates it (probe again). Thread-safety: SCR serialises activate and deactivate.
 */
@Component(immediate = true, service = {}, configurationPid = VerbsProviderComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = VerbsConfiguration.class)
public final class VerbsProviderComponent {

    /** The configuration PID. */
    static final String PID = "smbdirect.rdma.verbs";

    private VerbsProviderLifecycle lifecycle;

    @Activate
    void activate(BundleContext context, VerbsConfiguration config, java.util.Map<String, Object> componentProperties) {
        lifecycle = new VerbsProviderLifecycle(
                new VerbsProbe(List.of(RdmaCoreAccessLoader.load(), new DisniAccess(new DisniNativeAccess())),
                        new SysfsDevices(Path.of("/sys/class/infiniband")))::probe,
                (type, service, properties) -> {
                    ServiceRegistration<?> registration = context.registerService(type.getName(), service, properties);
                    return registration::unregister;
                });
        VerbsSettings settings;
        try {
            settings = settings(config);
        } catch (IllegalArgumentException e) {
            lifecycle.invalidConfiguration(e.getMessage());
            return;
        }
        // a configuration from Config Admin carries its PID; the defaults alone do not
        lifecycle.start(settings, componentProperties.containsKey(org.osgi.framework.Constants.SERVICE_PID));
    }

    @Deactivate
    void deactivate() {
        if (lifecycle != null) {
            lifecycle.stop();
            lifecycle = null;
        }
    }

    /**
     * The configuration as settings: what the component applies and what its
     * {@link VerbsConfigurationCheck} checks.
     *
     * @throws smbdirect.api.settings.SettingRefusedException naming the first refused attribute
     */
    static VerbsSettings settings(VerbsConfiguration c) {
        return new VerbsSettings(c.deviceName(), c.bindAddress(), c.transportType(), c.cqSize(),
                c.maxSendWorkRequests(), c.maxReceiveWorkRequests(), c.maxMessageSize(), c.maxReadDepth(),
                c.maxRegionSize(), c.busyPolling(), c.pollBatch(), c.eventTimeoutMillis(), c.resolveTimeoutMillis(),
                c.flushTimeoutMillis(), c.retryCount(), c.rnrRetryCount(), c.listenBacklog(), c.sendWithInvalidate(),
                c.backend(), c.connectTimeoutMillis(), c.endConnectionsOnPortDown(), c.completionGroups());
    }
}
