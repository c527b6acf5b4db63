package smbdirect.ops.jmx;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.control.ConnectionControl;
import smbdirect.ops.health.TransportHealth;
import smbdirect.ops.monitor.TransportMonitor;
import smbdirect.ops.monitor.TransportMonitor.Snapshot;
import smbdirect.ops.shell.DtoText;

/**
 * JMX MBeans of the transport in domain {@value #DOMAIN}, for jconsole, VisualVM, Karaf's JMX and
 * monitoring systems: {@code smbdirect:type=Transport} (counts, negotiation failures, the settings in
 * force), {@code smbdirect:type=Provider,name=NAME}, {@code smbdirect:type=Listener,name=NAME} (the
 * address for listeners without a name) and {@code smbdirect:type=Connection,provider=NAME,id=ID},
 * whose attributes are the counters and variables of the runtime DTOs under their DTO names; a
 * connection MBean's {@code close} operation closes it (its upper layer is told LOCAL_CLOSE "closed by
 * operator (JMX)"). MBeans are registered and unregistered as providers, listeners and connections
 * come and go, with every snapshot of the {@link TransportMonitor} (each second); their values are
 * that snapshot's.
 *
 * <p>The MBean server is the one registered as an OSGi service (Karaf's), else the platform MBean
 * server. Thread-safe: snapshots arrive on the monitor's thread; registration changes are serialized.
 */
@Component(immediate = true)
public final class JmxExporter implements Consumer<Snapshot> {

    /** The JMX domain. */
    public static final String DOMAIN = "smbdirect";

    static final CloseReason OPERATOR_CLOSE = CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "closed by operator (JMX)");

    private static final Logger LOG = LoggerFactory.getLogger(JmxExporter.class);
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final TransportMonitor monitor;
    private final MBeanServer server;
    private final Map<ObjectName, DtoMBean> registered = new HashMap<>();

    private volatile ConnectionControl connectionControl;

    // the newest snapshot, indexed (replaced whole per snapshot)
    private volatile Index index = new Index(null, Map.of(), Map.of(), Map.of());

    private record Index(TransportDTO transport, Map<String, ProviderDTO> providers, Map<String, ListenerDTO> listeners,
            Map<String, ConnectionDTO> connections) {
    }

    @Activate
    public JmxExporter(@Reference TransportMonitor monitor,
            @Reference(cardinality = ReferenceCardinality.OPTIONAL, policyOption = ReferencePolicyOption.GREEDY)
            MBeanServer mbeanServer) {
        this(monitor, mbeanServer != null ? mbeanServer : ManagementFactory.getPlatformMBeanServer(), true);
    }

    JmxExporter(TransportMonitor monitor, MBeanServer server, boolean listen) {
        this.monitor = monitor;
        this.server = server;
        if (listen) {
            monitor.addListener(this);
        }
        Snapshot s = monitor.latest();
        if (s != null) {
            accept(s);
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            unbind = "unbindConnectionControl")
    void bindConnectionControl(ConnectionControl control) {
        connectionControl = control;
    }

    void unbindConnectionControl(ConnectionControl control) {
        if (connectionControl == control) {
            connectionControl = null;
        }
    }

    @Deactivate
    void deactivate() {
        monitor.removeListener(this);
        synchronized (this) {
            for (ObjectName name : new ArrayList<>(registered.keySet())) {
                unregister(name);
            }
        }
    }

    @Override
    public synchronized void accept(Snapshot snapshot) {
        TransportDTO t = snapshot.transport();
        Map<String, ProviderDTO> providers = new LinkedHashMap<>();
        for (ProviderDTO p : list(t.providers)) {
            providers.put(p.name, p);
        }
        Map<String, ListenerDTO> listeners = new LinkedHashMap<>();
        for (ListenerDTO l : list(t.listeners)) {
            listeners.put(listenerKey(l), l);
        }
        Map<String, ConnectionDTO> connections = new LinkedHashMap<>();
        for (ConnectionDTO c : list(t.connections)) {
            connections.put(TransportMonitor.key(c.provider, c.id), c);
        }
        index = new Index(t, providers, listeners, connections);

        Map<ObjectName, java.util.function.Supplier<DtoMBean>> wanted = new LinkedHashMap<>();
        wanted.put(name("type=Transport"), this::transportBean);
        providers.keySet().forEach(p -> wanted.put(name("type=Provider,name=" + value(p)), () -> providerBean(p)));
        listeners.keySet().forEach(l -> wanted.put(name("type=Listener,name=" + value(l)), () -> listenerBean(l)));
        connections.forEach((k, c) -> wanted.put(name("type=Connection,provider=" + value(c.provider) + ",id=" + c.id),
                () -> connectionBean(k, c.provider, c.id)));
        for (ObjectName n : new ArrayList<>(registered.keySet())) {
            if (!wanted.containsKey(n)) {
                unregister(n);
            }
        }
        wanted.forEach((n, bean) -> {
            if (!registered.containsKey(n)) {
                register(n, bean.get());
            }
        });
    }

    private DtoMBean transportBean() {
        List<DtoMBean.Attr> attrs = new ArrayList<>(DtoMBean.fieldsOf(TransportDTO.class, "TransportDTO.", v -> v));
        attrs.add(new DtoMBean.Attr("providers", int.class, "RDMA providers bound", v -> list(((TransportDTO) v).providers).size()));
        attrs.add(new DtoMBean.Attr("selectedProvider", String.class, "the provider new connections and listeners use",
                v -> list(((TransportDTO) v).providers).stream().filter(p -> p.selected).map(p -> p.name).findFirst().orElse(null)));
        attrs.add(new DtoMBean.Attr("listeners", int.class, "listeners", v -> list(((TransportDTO) v).listeners).size()));
        attrs.add(new DtoMBean.Attr("connections", int.class, "live connections",
                v -> list(((TransportDTO) v).connections).size()));
        attrs.add(new DtoMBean.Attr("establishedConnections", int.class, "live connections in state ESTABLISHED",
                v -> (int) list(((TransportDTO) v).connections).stream().filter(c -> "ESTABLISHED".equals(c.state)).count()));
        attrs.add(new DtoMBean.Attr("creditStalls", long.class, "credit stalls of the live connections",
                v -> list(((TransportDTO) v).connections).stream().mapToLong(c -> c.creditStalls).sum()));
        attrs.add(new DtoMBean.Attr("health", String.class,
                "the transport's health: OK, WARN or CRITICAL (the Felix Health Check tagged smbdirect)",
                v -> TransportHealth.evaluate((TransportDTO) v, monitor).status().name()));
        attrs.add(new DtoMBean.Attr("healthFindings", String.class, "the health findings, one per line, each with its status",
                v -> String.join("\n", TransportHealth.evaluate((TransportDTO) v, monitor).findings())));
        attrs.addAll(DtoMBean.fieldsOf(SettingsDTO.class, "settings in force: SettingsDTO.",
                v -> ((TransportDTO) v).settings));
        return new DtoMBean(TransportDTO.class.getName(), "The SMB Direct transport: counts and the settings in force",
                () -> index.transport(), attrs, null);
    }

    private DtoMBean providerBean(String provider) {
        List<DtoMBean.Attr> attrs = new ArrayList<>(DtoMBean.fieldsOf(ProviderDTO.class, "ProviderDTO.", v -> v));
        attrs.addAll(counters(v -> ((ProviderDTO) v).counters));
        return new DtoMBean(ProviderDTO.class.getName(), "RDMA provider " + provider,
                () -> index.providers().get(provider), attrs, null);
    }

    /**
     * The counters that only go up ({@code CountersDTO}, read by {@code get}): its scalar fields,
     * {@code connectionsClosed.KIND} for every close reason kind, and {@code violationsByRule} as text.
     */
    private static List<DtoMBean.Attr> counters(Function<Object, CountersDTO> get) {
        List<DtoMBean.Attr> attrs = new ArrayList<>(DtoMBean.fieldsOf(CountersDTO.class,
                "counter that only goes up: CountersDTO.", v -> get.apply(v)));
        for (CloseReason.Kind kind : CloseReason.Kind.values()) {
            attrs.add(new DtoMBean.Attr("connectionsClosed." + kind.name(), long.class,
                    "connections closed with reason " + kind.name() + " (only goes up)", v -> {
                        CountersDTO c = get.apply(v);
                        return c == null || c.closedByReason == null ? 0L : c.closedByReason.getOrDefault(kind.name(), 0L);
                    }));
        }
        attrs.add(new DtoMBean.Attr("violationsByRule", String.class,
                "protocol violations by the rule broken, as RULE=COUNT, ... (each only goes up)", v -> {
                    CountersDTO c = get.apply(v);
                    return c == null || c.violationsByRule == null ? "" : c.violationsByRule.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
                }));
        return attrs;
    }

    private DtoMBean listenerBean(String key) {
        List<DtoMBean.Attr> attrs = new ArrayList<>(DtoMBean.fieldsOf(ListenerDTO.class, "ListenerDTO.", v -> v));
        attrs.addAll(counters(v -> ((ListenerDTO) v).counters));
        attrs.add(new DtoMBean.Attr("lastEvent", String.class,
                "the newest listener event: time, kind (ACCEPTED, DECLINED, REFUSED_..., NEGOTIATION_...), peer, reason",
                v -> newestEvent((ListenerDTO) v, null)));
        attrs.add(new DtoMBean.Attr("lastDeclined", String.class,
                "the newest DECLINED event (the accept handler returned null or threw) with its reason",
                v -> newestEvent((ListenerDTO) v, "DECLINED")));
        return new DtoMBean(ListenerDTO.class.getName(), "Listener " + key, () -> index.listeners().get(key), attrs,
                null);
    }

    /** The newest of the listener's events (of {@code kind}, or of any) as one line, or null. */
    private static String newestEvent(ListenerDTO l, String kind) {
        for (ListenerEventDTO e : list(l.events)) {
            if (kind == null || kind.equals(e.kind)) {
                return DtoText.event(e);
            }
        }
        return null;
    }

    private DtoMBean connectionBean(String key, String provider, long id) {
        return new DtoMBean(ConnectionDTO.class.getName(), "Connection " + id + " on " + provider,
                () -> index.connections().get(key), DtoMBean.fieldsOf(ConnectionDTO.class, "ConnectionDTO.", v -> v),
                new DtoMBean.Op("close", "Closes the connection; its upper layer is told LOCAL_CLOSE \"closed by operator (JMX)\"",
                        () -> close(provider, id)));
    }

    private String close(String provider, long id) {
        ConnectionControl control = connectionControl;
        if (control == null) {
            return "connection " + id + " not closed: the transport is not running";
        }
        CompletionStage<Void> closing = control.closeConnection(id, provider, OPERATOR_CLOSE);
        if (closing == null) {
            return "connection " + id + " on " + provider + " is no live connection";
        }
        try {
            closing.toCompletableFuture().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
            return "connection " + id + " closed";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (ExecutionException | TimeoutException e) {
            return "closing connection " + id + " did not complete: " + e;
        }
    }

    private void register(ObjectName name, DtoMBean bean) {
        try {
            server.registerMBean(bean, name);
            registered.put(name, bean);
        } catch (InstanceAlreadyExistsException e) {
            LOG.warn("MBean {} is registered by someone else; not replaced", name);
        } catch (MBeanRegistrationException | NotCompliantMBeanException | RuntimeException e) {
            LOG.warn("MBean {} not registered: {}", name, e.toString());
        }
    }

    private void unregister(ObjectName name) {
        registered.remove(name);
        try {
            server.unregisterMBean(name);
        } catch (InstanceNotFoundException e) {
            // already gone
        } catch (MBeanRegistrationException | RuntimeException e) {
            LOG.warn("MBean {} not unregistered: {}", name, e.toString());
        }
    }

    static String listenerKey(ListenerDTO l) {
        return l.name != null && !l.name.isBlank() ? l.name : l.address;
    }

    static ObjectName name(String properties) {
        try {
            return new ObjectName(DOMAIN + ":" + properties);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(properties, e);
        }
    }

    /** A key property value, quoted when it holds characters ObjectName reserves. */
    static String value(String v) {
        String s = String.valueOf(v);
        for (char c : s.toCharArray()) {
            if (",=:\"*?\n\\".indexOf(c) >= 0) {
                return ObjectName.quote(s);
            }
        }
        return s;
    }

    private static <T> List<T> list(T[] a) {
        return a == null ? List.of() : List.of(a);
    }
}
