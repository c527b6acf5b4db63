package smbdirect.impl.osgi;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.impl.control.ConnectionControl;
import smbdirect.impl.control.TraceControl;
import smbdirect.api.CloseReason;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.impl.config.ConfigurationValues;
import smbdirect.impl.config.TransportConfiguration;
import smbdirect.impl.config.TransportConfigurations;
import smbdirect.impl.engine.SettingsException;
import smbdirect.impl.engine.TimerScheduler;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.trace.TraceSink;
import smbdirect.impl.transport.EngineFactory;
import smbdirect.impl.transport.ForwardingTransport;
import smbdirect.impl.transport.MultiProviderTransport;
import smbdirect.impl.transport.ProviderEngine;
import smbdirect.impl.transport.ProviderFilter;
import smbdirect.impl.osgi.settings.LastGoodSettings;
import smbdirect.impl.transport.RelocatingListener;

/**
 * The {@link SmbDirectTransport} service, configured by PID {@value #PID}.
 *
 * <p>RDMA providers are bound dynamically and greedily, all of them (any service carrying
 * {@code smbdirect.provider}); each gets its own engine. The configuration attribute
 * {@code provider.target} is a filter that <em>selects</em> the provider new connections and
 * listeners use (best {@code service.ranking} among the matching ones); it is deliberately not the
 * reference target, so that connections on a provider that is deselected keep running. A provider
 * that leaves takes only its own connections with it; listeners re-open on the next selected
 * provider. The service itself stays registered whatever the providers do.
 *
 * <p>Drain: when a provider's service is withdrawn (reconfigured, updated, a hot swap) its
 * connections are drained before the unbind returns (so the provider still works meanwhile): new
 * connections on it are refused, each established one may finish what is in flight for
 * {@code drainTimeoutSeconds} and closes with reason PROVIDER_REPLACED, or SHUTDOWN when the
 * framework (or this bundle) is stopping. On deactivation every engine drains the same way and
 * closes with SHUTDOWN.
 *
 * <p>Configuration: {@link #configure} is the single validate-then-apply path of activation and
 * modification. A configuration with a bad value is refused as a whole, with one ERROR line naming
 * the attribute and the value; the last good settings stay in force and the component stays
 * active. At activation those are the ones the settings guard kept before the restart, else the
 * defaults.
 *
 * <p>Owns one timer thread ({@value TimerScheduler#THREAD_NAME}) shared by all engines; on
 * deactivation every engine drains and shuts down with reason SHUTDOWN and the thread stops.
 * Thread-safe.
 */
@Component(name = SmbDirectTransportComponent.PID, service = { SmbDirectTransport.class, ListenerHost.class, TraceControl.class,
        ConnectionControl.class },
        immediate = true, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = TransportConfiguration.class)
public class SmbDirectTransportComponent extends ForwardingTransport implements SmbDirectTransport, ListenerHost,
        TraceControl, ConnectionControl {

    /** The configuration PID (also the component name). */
    public static final String PID = TransportConfiguration.PID;

    private static final Logger LOG = LoggerFactory.getLogger(SmbDirectTransportComponent.class);

    /** How long a shutdown waits beyond the drain time for the connections to be released. */
    private static final long SHUTDOWN_WAIT_SECONDS = 10;

    private final TimerScheduler timer;
    /** The bundle context (null outside OSGi): tells whether the framework is stopping. */
    private final BundleContext context;
    private final MultiProviderTransport transport;
    private final ListenerEventWhiteboard whiteboard = new ListenerEventWhiteboard();

    @Activate
    public SmbDirectTransportComponent(BundleContext context, TransportConfiguration config, Map<String, Object> properties) {
        this(context, config, properties, EngineFactory::create);
    }

    SmbDirectTransportComponent(TransportConfiguration config, ProviderEngine.Factory engines) {
        this(null, config, Map.of(), engines);
    }

    SmbDirectTransportComponent(TransportConfiguration config, Map<String, ?> properties, ProviderEngine.Factory engines) {
        this(null, config, properties, engines);
    }

    SmbDirectTransportComponent(BundleContext context, TransportConfiguration config, Map<String, ?> properties,
            ProviderEngine.Factory engines) {
        this(context, new TimerScheduler(), engines, config, properties);
    }

    private SmbDirectTransportComponent(BundleContext context, TimerScheduler timer, ProviderEngine.Factory engines,
            TransportConfiguration config, Map<String, ?> properties) {
        this(context, timer, new MultiProviderTransport(engines, timer, TransportSettings.DEFAULTS, defaultFilter()),
                config, properties);
    }

    /** The {@link SmbDirectTransport} calls go to {@code transport}, over every provider. */
    private SmbDirectTransportComponent(BundleContext context, TimerScheduler timer, MultiProviderTransport transport,
            TransportConfiguration config, Map<String, ?> properties) {
        super(transport);
        this.context = context;
        this.timer = timer;
        this.transport = transport;
        transport.setListenerEventHandler(whiteboard);
        String source = ConfigurationValues.source(properties);
        try {
            apply(checked(config, properties), source);
        } catch (SettingsException refused) {
            activateOverRefused(source, refused);
        }
    }

    /**
     * At activation, over a refused configuration: the last good settings the settings guard kept
     * (in force before the restart), rather than the defaults, said in one ERROR line. The guard of
     * this bundle is not yet active when Declarative Services hands this component its
     * configuration, so it cannot have put them back yet; it does so a moment later, and this
     * component then sees no change.
     */
    private void activateOverRefused(String source, SettingsException refused) {
        Path folder = LastGoodSettings.folder(context);
        Map<String, Object> kept = LastGoodSettings.read(folder, PID);
        String why = "no last good settings kept";
        if (kept != null) {
            try {
                Checked good = checked(ConfigurationValues.proxy(TransportConfiguration.class, kept), kept);
                transport.configure(good.settings(), good.filter());
                LOG.error("Configuration {}{} not applied, {}; the last good settings, kept in {}, are in force: {}", PID,
                        source, refused.getMessage(), folder, good.settings());
                return;
            } catch (SettingsException alsoRefused) {
                why = "the last good settings kept in " + folder + " are refused too, " + alsoRefused.getMessage();
            }
        }
        LOG.error("Configuration {}{} not applied, {}; the defaults are in force ({})", PID, source, refused.getMessage(),
                why);
    }

    @Override
    public void setTraceSink(TraceSink sink) {
        transport.setTraceSink(sink);
    }

    @Modified
    void modified(TransportConfiguration config, Map<String, Object> properties) {
        configure(config, properties);
    }

    /** {@link #configure(TransportConfiguration, Map)} of a configuration that has no raw properties to check. */
    boolean configure(TransportConfiguration config) {
        return configure(config, Map.of());
    }

    /**
     * Validates {@code config} (first the raw {@code properties}: values that are no number of the
     * attribute's type) and applies it, or refuses it and keeps the settings in force. Log lines name
     * the file a configuration came from (FileInstall's {@code felix.fileinstall.filename}).
     *
     * @return whether the configuration was applied
     */
    boolean configure(TransportConfiguration config, Map<String, ?> properties) {
        Checked checked;
        String source = ConfigurationValues.source(properties);
        try {
            checked = checked(config, properties);
        } catch (SettingsException e) {
            LOG.error("Configuration {}{} not applied, {}; the last good settings stay in force", PID, source,
                    e.getMessage());
            return false;
        }
        apply(checked, source);
        return true;
    }

    /** Applies checked settings, saying what changed. */
    private void apply(Checked checked, String source) {
        TransportSettings settings = checked.settings();
        ProviderFilter filter = checked.filter();
        TransportSettings before = transport.settings();
        ProviderFilter filterBefore = transport.selection();
        transport.configure(settings, filter);
        if (!filter.equals(filterBefore)) {
            LOG.info("Configuration {}: provider.target={}", PID, filter);
        }
        if (!settings.equals(before)) {
            LOG.info("Configuration {}{} applied: {}", PID, source, settings);
        }
    }

    /**
     * Checks raw configuration properties as {@link #configure} would, without applying them.
     *
     * @throws SettingsException naming the first refused attribute and its value
     */
    public static void check(Map<String, ?> properties) {
        checked(ConfigurationValues.proxy(TransportConfiguration.class, properties), properties);
    }

    /** A configuration's settings and provider filter, once checked. */
    private record Checked(TransportSettings settings, ProviderFilter filter) {
    }

    /**
     * Checks {@code config} (first its raw {@code properties}) and builds what it says.
     *
     * @throws SettingsException naming the first refused attribute and its value
     */
    private static Checked checked(TransportConfiguration config, Map<String, ?> properties) {
        ConfigurationValues.check(TransportConfiguration.class, properties);
        return new Checked(TransportConfigurations.toSettings(config), parseTarget(config.provider_target()));
    }

    private static ProviderFilter parseTarget(String target) {
        String text = target == null || target.isBlank() ? TransportConfiguration.PROVIDER_TARGET_DEFAULT : target.trim();
        try {
            return ProviderFilter.parse(text);
        } catch (InvalidSyntaxException e) {
            throw new SettingsException("provider.target", text, "not an LDAP filter: " + e.getMessage());
        }
    }

    private static ProviderFilter defaultFilter() {
        return parseTarget(TransportConfiguration.PROVIDER_TARGET_DEFAULT);
    }

    @Reference(name = "providers", service = RdmaProvider.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY,
            target = "(" + RdmaProvider.PROVIDER_NAME + "=*)", unbind = "removeProvider",
            updated = "updatedProvider")
    void addProvider(RdmaProvider provider, Map<String, Object> properties) {
        transport.addProvider(provider, properties);
    }

    /**
     * The whiteboard of listener events: every {@link ListenerEventHandler} service is told of the
     * events of every listener of the transport.
     */
    @Reference(name = "listenerEventHandlers", service = ListenerEventHandler.class,
            cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            unbind = "removeListenerEventHandler")
    void addListenerEventHandler(ListenerEventHandler handler) {
        whiteboard.add(handler);
    }

    void removeListenerEventHandler(ListenerEventHandler handler) {
        whiteboard.remove(handler);
    }

    void updatedProvider(RdmaProvider provider, Map<String, Object> properties) {
        transport.updateProvider(provider, properties);
    }

    /**
     * Returns once the provider's engine has drained and closed its connections and listeners
     * (bounded by the drain time and {@value #SHUTDOWN_WAIT_SECONDS} s more), so that the provider is
     * not used after the unbind, as DS requires, and the connections end cleanly while the provider
     * still works. The reason is SHUTDOWN when the framework or this bundle is stopping (the runtime
     * withdraws its providers), PROVIDER_REPLACED otherwise.
     */
    void removeProvider(RdmaProvider provider) {
        long wait = waitSeconds();
        try {
            transport.removeProvider(provider, stopping()).toCompletableFuture().get(wait, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Connections of a leaving RDMA provider did not close within {} s", wait, e);
        }
    }

    /** Whether the framework, or this bundle, is stopping (false outside OSGi). */
    private boolean stopping() {
        if (context == null) {
            return false;
        }
        try {
            return context.getBundle(0).getState() == Bundle.STOPPING
                    || context.getBundle().getState() == Bundle.STOPPING;
        } catch (IllegalStateException | NullPointerException e) {
            return true; // the context is no longer valid: the bundle stops
        }
    }

    private long waitSeconds() {
        return transport.settings().drainTimeout().toSeconds() + SHUTDOWN_WAIT_SECONDS;
    }

    @Deactivate
    void deactivate() {
        long wait = waitSeconds();
        try {
            transport.shutdown().toCompletableFuture().get(wait, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("SMB Direct transport did not shut down cleanly within {} s", wait, e);
        } finally {
            timer.close();
        }
    }

    @Override
    public CompletionStage<Void> closeConnection(long id, String provider, CloseReason reason) {
        return transport.closeConnection(id, provider, reason);
    }

    @Override
    public RelocatingListener openConfigured(String name, InetSocketAddress bindAddress,
            ProviderFilter providerFilter, String whyWaiting) {
        return transport.openConfigured(name, bindAddress, providerFilter, whyWaiting);
    }

    @Override
    public void configurationRefused(String key, ListenerDTO shown) {
        transport.configurationRefused(key, shown);
    }

    /** The settings in force (for tests and diagnostics). */
    TransportSettings settings() {
        return transport.settings();
    }

    /** The timer thread's scheduler. */
    TimerScheduler timer() {
        return timer;
    }
}
