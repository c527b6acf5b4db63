package smbdirect.impl.osgi;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.AcceptHandler;

/**
 * A configured listening endpoint (factory PID {@value #FACTORY_PID}). It hands each accepted,
 * negotiated connection to the whiteboard {@link AcceptHandler} selected by
 * {@code acceptHandler.target} (dynamic, greedy: a better ranked handler takes over for new
 * connections). While no handler is present the endpoint is not bound and its DTO shows WAITING with
 * the reason, so peers are refused at connection time rather than negotiated and dropped.
 *
 * <p>A configuration change re-creates the endpoint. A configuration that cannot work (bad address,
 * port, or filter) fails activation with a message naming the attribute and value, visible in the
 * SCR runtime and the log. Thread-safe.
 */
@Component(name = SmbDirectListenerComponent.FACTORY_PID, service = {}, immediate = true,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = ListenerConfig.class, factory = true)
public class SmbDirectListenerComponent {

    /** The factory PID (also the component name). */
    public static final String FACTORY_PID = "smbdirect.listener";

    private static final Logger LOG = LoggerFactory.getLogger(SmbDirectListenerComponent.class);

    private final RelocatingListener listener;
    private final String handlerFilter;
    private volatile AcceptHandler handler;

    @Activate
    public SmbDirectListenerComponent(@Reference(name = "host") ListenerHost host, ListenerConfig config) {
        String name = config.name() == null || config.name().isBlank() ? "smb" : config.name().trim();
        InetSocketAddress address = address(config);
        ProviderFilter filter = providerFilter(config.provider_target());
        handlerFilter = config.acceptHandler_target();
        listener = host.openConfigured(name, address, filter, "no AcceptHandler service matches " + handlerFilter);
        LOG.debug("Listener {} configured at {}", name, address);
    }

    static InetSocketAddress address(ListenerConfig config) {
        if (config.port() < 0 || config.port() > 65535) {
            throw new IllegalArgumentException(FACTORY_PID + ": port=" + config.port() + " refused: must be in [0, 65535]");
        }
        String host = config.bindAddress() == null ? "" : config.bindAddress().trim();
        if (host.isEmpty()) {
            throw new IllegalArgumentException(FACTORY_PID + ": bindAddress is empty");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), config.port());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(FACTORY_PID + ": bindAddress=" + host + " refused: unknown host", e);
        }
    }

    static ProviderFilter providerFilter(String target) {
        if (target == null || target.isBlank()) {
            return null;
        }
        try {
            return ProviderFilter.parse(target.trim());
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException(
                    FACTORY_PID + ": provider.target=" + target + " refused: not an LDAP filter: " + e.getMessage(), e);
        }
    }

    @Reference(name = "acceptHandler", cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY,
            unbind = "unbindAcceptHandler")
    void bindAcceptHandler(AcceptHandler h) {
        handler = h;
        listener.setAcceptHandler(h, null);
    }

    void unbindAcceptHandler(AcceptHandler h) {
        if (handler == h) {
            handler = null;
            listener.setAcceptHandler(null, "no AcceptHandler service matches " + handlerFilter);
        }
    }

    @Deactivate
    void deactivate() {
        listener.close();
    }

    /** The endpoint (for tests). */
    RelocatingListener listener() {
        return listener;
    }
}
