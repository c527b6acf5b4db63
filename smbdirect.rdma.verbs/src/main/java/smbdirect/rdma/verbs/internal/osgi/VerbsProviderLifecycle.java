package smbdirect.rdma.verbs.internal.osgi;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.concurrent.Executors;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.verbs.internal.VerbsProbe;
import smbdirect.rdma.verbs.internal.VerbsRdmaProvider;
import smbdirect.rdma.verbs.internal.VerbsSettings;

/**
 * What the component does, without OSGi types: probe, then register the {@link RdmaProvider} only
 * if the probe succeeded, and always register a {@link VerbsStatus}. Not thread-safe: driven by the
 * component's activate/deactivate.
 */
final class VerbsProviderLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsProviderLifecycle.class);
    static final int RANKING = 100;
    /** Service property: the backend in use ({@code rdma-core}, {@code disni}). */
    static final String BACKEND = "smbdirect.rdma.backend";
    /** Service property: the backends tried and not taken, each with its reason (absent when none). */
    static final String BACKEND_NOTES = "smbdirect.rdma.backend.notes";

    /** Registers services; returns a handle that unregisters. */
    interface Registrar {
        Runnable register(Class<?> type, Object service, Dictionary<String, Object> properties);
    }

    private final Function<VerbsSettings, VerbsProbe.Result> probe;
    private final Registrar registrar;
    private VerbsRdmaProvider provider;
    private Runnable providerRegistration;
    private Runnable statusRegistration;

    VerbsProviderLifecycle(Function<VerbsSettings, VerbsProbe.Result> probe, Registrar registrar) {
        this.probe = probe;
        this.registrar = registrar;
    }

    /** Probes with {@code settings} and registers; an invalid configuration only registers the status. */
    VerbsProbe.Result start(VerbsSettings settings) {
        return start(settings, true);
    }

    /**
     * As {@link #start(VerbsSettings)}; {@code configured} says whether an operator configured the
     * provider (PID smbdirect.rdma.verbs). Unconfigured, a machine without a usable RDMA stack is
     * the ordinary case (a runtime on the mock or software iWARP): one INFO line says why nothing
     * was registered. Configured, the same is a WARN: the operator asked for RDMA.
     */
    VerbsProbe.Result start(VerbsSettings settings, boolean configured) {
        return register(settings, probe.apply(settings), configured);
    }

    /** The configuration could not be turned into settings: register only the status. */
    VerbsProbe.Result invalidConfiguration(String message) {
        return register(null, VerbsProbe.Result.unavailable("invalid configuration: " + message), true);
    }

    /** {@code configured}: an operator configured the provider (a failure is a WARN, else INFO). */
    private VerbsProbe.Result register(VerbsSettings settings, VerbsProbe.Result result, boolean configured) {
        if (result.available()) {
            provider = new VerbsRdmaProvider(settings, result.backend(), result.bindAddress(), result.transportType(),
                    result.deviceAttributes(), result.notes(), System::nanoTime);
            provider.start(Executors.defaultThreadFactory());
            Dictionary<String, Object> props = new Hashtable<>();
            props.put(RdmaProvider.PROVIDER_NAME, VerbsRdmaProvider.NAME);
            props.put(RdmaProvider.TRANSPORT_TYPE, result.transportType().name());
            props.put("service.ranking", RANKING);
            props.put(VerbsStatus.STATUS, result.status());
            props.put("smbdirect.rdma.device", result.device());
            props.put("smbdirect.rdma.bindAddress", result.bindAddress().getAddress().getHostAddress());
            putBackend(props, result);
            providerRegistration = registrar.register(RdmaProvider.class, provider, props);
            LOG.info("verbs RDMA provider registered: {}", provider.describeSettings());
        } else {
            if (configured) {
                LOG.warn("verbs RDMA provider not registered: {}", result.reason());
            } else {
                LOG.info("verbs RDMA provider not registered: {} (not configured; etc/smbdirect.rdma.verbs.cfg"
                        + " makes this a warning)", result.reason());
            }
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(RdmaProvider.PROVIDER_NAME, VerbsRdmaProvider.NAME);
        props.put(VerbsStatus.STATUS, result.status());
        putBackend(props, result);
        boolean available = result.available();
        String status = result.status();
        statusRegistration = registrar.register(VerbsStatus.class, new VerbsStatus() {
            @Override
            public boolean available() {
                return available;
            }

            @Override
            public String status() {
                return status;
            }

            @Override
            public String toString() {
                return status;
            }
        }, props);
        return result;
    }

    private static void putBackend(Dictionary<String, Object> props, VerbsProbe.Result result) {
        if (result.backendName() != null) {
            props.put(BACKEND, result.backendName());
        }
        if (result.notes() != null && !result.notes().isEmpty()) {
            props.put(BACKEND_NOTES, result.notes());
        }
    }

    void stop() {
        if (providerRegistration != null) {
            providerRegistration.run();
            providerRegistration = null;
        }
        if (statusRegistration != null) {
            statusRegistration.run();
            statusRegistration = null;
        }
        if (provider != null) {
            provider.shutdown();
            provider = null;
        }
    }
}
