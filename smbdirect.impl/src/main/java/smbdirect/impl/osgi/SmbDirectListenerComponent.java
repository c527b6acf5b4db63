package smbdirect.impl.osgi;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;

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

import smbdirect.api.AcceptHandler;
import smbdirect.impl.config.ConfigurationValues;
import smbdirect.impl.config.ListenerConfiguration;
import smbdirect.impl.engine.SettingsException;
import smbdirect.impl.osgi.settings.LastGoodSettings;
import smbdirect.impl.transport.ProviderFilter;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.impl.transport.RelocatingListener;

/**
 * A configured listening endpoint (factory PID {@value #FACTORY_PID}). It hands each accepted,
 * negotiated connection to the whiteboard {@link AcceptHandler} selected by
 * {@code acceptHandler.target} (dynamic, greedy: a better ranked handler takes over for new
 * connections). While no handler is present the endpoint is not bound and its DTO shows WAITING with
 * the reason, so peers are refused at connection time rather than negotiated and dropped.
 *
 * <p>Configuration: a change of name, address, port or provider filter re-opens the endpoint; any
 * other change leaves it alone. A configuration that cannot work (a port that is no number or out of
 * range, an unknown address, a broken filter) is refused with one ERROR line naming the
 * configuration, the file it came from, the attribute and the value: a running endpoint keeps its
 * last good settings; a new one opens on the last good settings the settings guard kept before a
 * restart, else is not opened until its configuration is corrected (deleting the
 * configuration deactivates the component and closes the endpoint). Thread-safe: DS serializes
 * activation, modification and deactivation; the endpoint reference is volatile.
 */
@Component(name = SmbDirectListenerComponent.FACTORY_PID, service = {}, immediate = true,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = ListenerConfiguration.class, factory = true)
public class SmbDirectListenerComponent {

    /** The factory PID (also the component name). */
    public static final String FACTORY_PID = ListenerConfiguration.FACTORY_PID;

    private static final Logger LOG = LoggerFactory.getLogger(SmbDirectListenerComponent.class);

    /** What an endpoint is opened with; equal settings leave a running endpoint alone. */
    record Endpoint(String name, InetSocketAddress address, ProviderFilter filter) {
    }

    private final ListenerHost host;
    private volatile RelocatingListener listener;
    private volatile Endpoint endpoint;
    private volatile String handlerFilter;
    private volatile AcceptHandler handler;
    /** The PID under which a refused configuration is shown, or {@code null}. */
    private volatile String refusedPid;
    /** Where the settings guard keeps the last good configurations (null outside a framework with storage). */
    private final Path lastGood;

    @Activate
    public SmbDirectListenerComponent(@Reference(name = "host") ListenerHost host, ListenerConfiguration config,
            Map<String, Object> properties, BundleContext context) {
        this(host, config, properties, LastGoodSettings.folder(context));
    }

    /** For tests: {@code lastGood} is where the settings guard keeps the last good configurations, or null. */
    SmbDirectListenerComponent(ListenerHost host, ListenerConfiguration config, Map<String, Object> properties,
            Path lastGood) {
        this.host = host;
        this.lastGood = lastGood;
        apply(config, properties);
    }

    /** For tests: no last good configurations kept. */
    SmbDirectListenerComponent(ListenerHost host, ListenerConfiguration config, Map<String, Object> properties) {
        this(host, config, properties, (Path) null);
    }

    /** For tests: a configuration without raw properties. */
    SmbDirectListenerComponent(ListenerHost host, ListenerConfiguration config) {
        this.host = host;
        this.lastGood = null;
        Endpoint e = endpoint(config, Map.of());
        open(e, config.acceptHandler_target());
    }

    @Modified
    void modified(ListenerConfiguration config, Map<String, Object> properties) {
        apply(config, properties);
    }

    private void apply(ListenerConfiguration config, Map<String, Object> properties) {
        Endpoint e;
        try {
            e = endpoint(config, properties);
        } catch (IllegalArgumentException refused) {
            String pid = ConfigurationValues.pid(properties, FACTORY_PID);
            if (listener == null && openLastGood(pid, properties, refused)) {
                return;
            }
            LOG.error("Configuration {}{} not applied, {}; {}", pid, ConfigurationValues.source(properties), refused.getMessage(),
                    listener == null ? "the listener is not opened" : "the listener keeps its last good settings");
            if (listener == null) {
                refusedPid = pid;
                host.configurationRefused(pid, refusedDTO(properties, "configuration " + pid
                        + ConfigurationValues.source(properties) + " not applied, " + refused.getMessage()));
            }
            return;
        }
        if (refusedPid != null) {
            host.configurationRefused(refusedPid, null);
            refusedPid = null;
        }
        String filter = config.acceptHandler_target();
        RelocatingListener current = listener;
        if (current != null && e.equals(endpoint)) {
            handlerFilter = filter;
            return;
        }
        if (current != null) {
            LOG.info("Listener {} re-opens with its new configuration{}", endpoint.name(), ConfigurationValues.source(properties));
            current.close();
        }
        open(e, filter);
    }

    /**
     * At activation, over a refused configuration: opens the endpoint on the last good settings the
     * settings guard kept (in force before the restart), if it kept any that work. The guard of this
     * bundle is not yet active when Declarative Services hands this component its configuration, so
     * it cannot have put them back yet; it does so a moment later, and this endpoint then stays as it
     * is.
     */
    private boolean openLastGood(String pid, Map<String, Object> properties, IllegalArgumentException refused) {
        Map<String, Object> kept = LastGoodSettings.read(lastGood, pid);
        if (kept == null) {
            return false;
        }
        ListenerConfiguration good = ConfigurationValues.proxy(ListenerConfiguration.class, kept);
        Endpoint e;
        try {
            e = endpoint(good, kept);
        } catch (IllegalArgumentException alsoRefused) {
            return false;
        }
        LOG.error("Configuration {}{} not applied, {}; the listener opens on the last good settings, kept in {}", pid,
                ConfigurationValues.source(properties), refused.getMessage(), lastGood);
        open(e, good.acceptHandler_target());
        return true;
    }

    private synchronized void open(Endpoint e, String filter) {
        endpoint = e;
        handlerFilter = filter;
        RelocatingListener l = host.openConfigured(e.name(), e.address(), e.filter(),
                "no AcceptHandler service matches " + filter);
        AcceptHandler h = handler;
        if (h != null) {
            l.setAcceptHandler(h, null);
        }
        listener = l;
        LOG.debug("Listener {} configured at {}", e.name(), e.address());
    }

    /**
     * Checks raw configuration properties as a modification would, without applying them.
     *
     * @throws IllegalArgumentException naming the first refused attribute and its value
     */
    public static void check(Map<String, ?> properties) {
        endpoint(ConfigurationValues.proxy(ListenerConfiguration.class, properties), properties);
    }

    static Endpoint endpoint(ListenerConfiguration config, Map<String, ?> properties) {
        ConfigurationValues.check(ListenerConfiguration.class, properties);
        String name = config.name() == null || config.name().isBlank() ? "smb" : config.name().trim();
        return new Endpoint(name, address(config), providerFilter(config.provider_target()));
    }

    static InetSocketAddress address(ListenerConfiguration config) {
        if (config.port() < 0 || config.port() > 65535) {
            throw new SettingsException("port", config.port(), "must be in [0, 65535]");
        }
        String host = config.bindAddress() == null ? "" : config.bindAddress().trim();
        if (host.isEmpty()) {
            throw new SettingsException("bindAddress", "", "empty");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), config.port());
        } catch (UnknownHostException e) {
            throw new SettingsException("bindAddress", host, "unknown host");
        }
    }

    static ProviderFilter providerFilter(String target) {
        if (target == null || target.isBlank()) {
            return null;
        }
        try {
            return ProviderFilter.parse(target.trim());
        } catch (InvalidSyntaxException e) {
            throw new SettingsException("provider.target", target, "not an LDAP filter: " + e.getMessage());
        }
    }

    @Reference(name = "acceptHandler", cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY,
            unbind = "unbindAcceptHandler")
    void bindAcceptHandler(AcceptHandler h) {
        handler = h;
        RelocatingListener l = listener;
        if (l != null) {
            l.setAcceptHandler(h, null);
        }
    }

    void unbindAcceptHandler(AcceptHandler h) {
        if (handler == h) {
            handler = null;
            RelocatingListener l = listener;
            if (l != null) {
                l.setAcceptHandler(null, "no AcceptHandler service matches " + handlerFilter);
            }
        }
    }

    /**
     * What stands for a listener without an endpoint whose configuration is refused: its configured
     * name, address and port as written, state FAILED, {@code why} as detail.
     */
    static ListenerDTO refusedDTO(Map<String, ?> properties, String why) {
        ListenerDTO d = new ListenerDTO();
        Object name = properties.get("name");
        d.name = name instanceof String s && !s.isBlank() ? s.trim() : "smb";
        d.address = properties.get("bindAddress") + ":" + properties.get("port");
        d.state = "FAILED";
        d.stateDetail = why;
        return d;
    }

    @Deactivate
    void deactivate() {
        String refused = refusedPid;
        if (refused != null) {
            host.configurationRefused(refused, null);
        }
        RelocatingListener l = listener;
        if (l != null) {
            l.close();
            LOG.info("Listener {} at {} closed", endpoint.name(), endpoint.address());
        }
    }

    /** The endpoint, or {@code null} while its configuration is refused (for tests). */
    RelocatingListener listener() {
        return listener;
    }
}
