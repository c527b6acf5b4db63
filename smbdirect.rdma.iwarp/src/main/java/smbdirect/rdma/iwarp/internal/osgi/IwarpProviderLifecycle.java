package smbdirect.rdma.iwarp.internal.osgi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.SettingRefusedException;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;

/**
 * What the component does, without OSGi types: turns a configuration into {@link IwarpSettings}
 * (a bad value is refused with one ERROR naming the attribute, and the last good settings stay in
 * force), and applies a change by closing the old provider (its connections end with
 * PROVIDER_SHUTDOWN, its listeners fail) and registering a new one. Thread-safe (synchronized; SCR
 * serialises the calls anyway).
 */
final class IwarpProviderLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(IwarpProviderLifecycle.class);
    static final String PID = "smbdirect.rdma.iwarp";

    /** Registers the provider service; returns what unregisters it. */
    interface Registrar {
        Runnable register(RdmaProvider provider, Dictionary<String, Object> properties);
    }

    /** Opens a provider (IwarpProvider::open in production). */
    interface Opener {
        IwarpProvider open(String instanceName, IwarpSettings settings) throws RdmaException;
    }

    /**
     * Refuses a raw value of a boolean attribute that is not {@code true} or {@code false}, and of a
     * number attribute that is no whole number, naming the attribute and the value.
     */
    static void checkRaw(java.util.Map<String, ?> raw) {
        for (java.lang.reflect.Method m : IwarpConfiguration.class.getDeclaredMethods()) {
            String key = ComponentProperties.propertyName(m.getName());
            Object v = raw.get(key);
            if (v == null || !(v instanceof String s)) {
                continue;
            }
            String t = s.strip();
            if (m.getReturnType() == boolean.class && !t.equalsIgnoreCase("true") && !t.equalsIgnoreCase("false")) {
                throw refused(key, s, "not true or false");
            }
            if (m.getReturnType() == int.class) {
                try {
                    Integer.parseInt(t);
                } catch (NumberFormatException e) {
                    throw refused(key, s, "not a whole number");
                }
            }
        }
    }

    private static SettingRefusedException refused(String key, Object value, String reason) {
        return new SettingRefusedException(PID + ": " + key + "=" + value + " refused: " + reason, key, value, reason);
    }

    /** A configuration's settings and service ranking. */
    record Converted(IwarpSettings settings, int ranking) {
    }

    /**
     * The configuration {@code c}, whose properties as written are {@code raw}, as settings: what the
     * component applies and what its {@link IwarpConfigurationCheck} checks.
     *
     * @throws SettingRefusedException naming the first refused attribute, its value and the rule
     */
    static Converted convert(IwarpConfiguration c, java.util.Map<String, ?> raw) {
        checkRaw(raw);
        return new Converted(settings(c), value("service.ranking", c::service_ranking));
    }

    /** What a configuration did. */
    enum Outcome {
        APPLIED, UNCHANGED, REFUSED
    }

    private final Registrar registrar;
    private final Opener opener;
    private IwarpSettings settings;
    private int ranking;
    private IwarpProvider provider;
    private Runnable registration;
    private String lastRefusal;

    IwarpProviderLifecycle(Registrar registrar, Opener opener) {
        this.registrar = registrar;
        this.opener = opener;
    }

    synchronized Outcome configure(IwarpConfiguration c) {
        return configure(c, java.util.Map.of());
    }

    /**
     * Applies {@code c}, or refuses it; {@code raw} are the configuration's properties as written,
     * checked first (Declarative Services would take {@code crc = ture} as false and {@code 44x5} as 0).
     */
    synchronized Outcome configure(IwarpConfiguration c, java.util.Map<String, ?> raw) {
        IwarpSettings next;
        int nextRanking;
        try {
            Converted converted = convert(c, raw);
            next = converted.settings();
            nextRanking = converted.ranking();
        } catch (IllegalArgumentException e) {
            lastRefusal = e.getMessage();
            LOG.error("{}; {}", e.getMessage(), provider == null ? "no iWARP provider is registered"
                    : "the last good settings stay in force");
            return Outcome.REFUSED;
        }
        if (provider != null && next.equals(settings) && nextRanking == ranking) {
            return Outcome.UNCHANGED;
        }
        IwarpProvider opened;
        try {
            opened = opener.open(IwarpProvider.NAME, next);
        } catch (RdmaException e) {
            lastRefusal = "smbdirect.rdma.iwarp: " + e.getMessage();
            LOG.error("smbdirect.rdma.iwarp: the provider could not be opened with {}: {}; {}", next, e.getMessage(),
                    provider == null ? "none is registered" : "the previous one stays");
            return Outcome.REFUSED;
        }
        stopProvider();
        provider = opened;
        settings = next;
        ranking = nextRanking;
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(RdmaProvider.PROVIDER_NAME, IwarpProvider.NAME);
        props.put(RdmaProvider.TRANSPORT_TYPE, opened.transportType().name());
        props.put("service.ranking", nextRanking);
        props.put("smbdirect.iwarp.listenAddresses", next.listenAddresses().toArray(new String[0]));
        registration = registrar.register(opened, props);
        LOG.info("iWARP RDMA provider registered: {}", next);
        return Outcome.APPLIED;
    }

    /**
     * Opens the new provider before the old one closes, so that a failure to open leaves the old
     * one; listeners on the old one end (PROVIDER_SHUTDOWN) before the new one is registered, so a
     * consumer that moves its listener finds the port free.
     */
    private void stopProvider() {
        Runnable r = registration;
        registration = null;
        if (r != null) {
            r.run();
        }
        IwarpProvider p = provider;
        provider = null;
        if (p != null) {
            p.close();
            LOG.info("iWARP RDMA provider closed (connections ended with PROVIDER_SHUTDOWN)");
        }
    }

    synchronized void stop() {
        stopProvider();
        settings = null;
    }

    synchronized IwarpProvider provider() {
        return provider;
    }

    synchronized IwarpSettings settings() {
        return settings;
    }

    synchronized String lastRefusal() {
        return lastRefusal;
    }

    /** The configuration as settings; a bad value throws naming the attribute. */
    static IwarpSettings settings(IwarpConfiguration c) {
        String p2p = value("peerToPeer", c::peerToPeer);
        RtrMode mode;
        try {
            mode = RtrMode.valueOf(p2p == null ? "NONE" : p2p.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            String rule = "must be one of " + Arrays.toString(RtrMode.values());
            throw new SettingRefusedException("smbdirect.rdma.iwarp: peerToPeer = " + p2p + " is invalid (" + rule + ")",
                    "peerToPeer", p2p, rule);
        }
        String[] listen = value("listenAddresses", c::listenAddresses);
        return IwarpSettings.builder()
                .listenAddresses(entries(listen))
                .crc(value("crc", c::crc))
                .maxFpduSize(value("maxFpduSize", c::maxFpduSize))
                .ioThreads(value("ioThreads", c::ioThreads))
                .mpaRequestTimeoutMillis(value("mpaRequestTimeoutMillis", c::mpaRequestTimeoutMillis))
                .mpaReplyTimeoutMillis(value("mpaReplyTimeoutMillis", c::mpaReplyTimeoutMillis))
                .tcpNoDelay(value("tcpNoDelay", c::tcpNoDelay))
                .sendBufferSize(value("sendBufferSize", c::sendBufferSize))
                .receiveBufferSize(value("receiveBufferSize", c::receiveBufferSize))
                .maxConnections(value("maxConnections", c::maxConnections))
                .maxPendingConnections(value("maxPendingConnections", c::maxPendingConnections))
                .mpaRevision(value("mpaRevision", c::mpaRevision))
                .peerToPeer(mode)
                .maxReadDepth(value("maxReadDepth", c::maxReadDepth))
                .firstFpduDelayMillis(value("firstFpduDelayMillis", c::firstFpduDelayMillis))
                .build();
    }

    /**
     * The listen entries of the attribute's values, each of which may hold several separated by
     * commas ({@code listenAddresses = 10.0.0.5:5445, 127.0.0.1:5445} in a {@code .cfg} file).
     */
    static List<String> entries(String[] values) {
        List<String> entries = new ArrayList<>();
        if (values != null) {
            for (String v : values) {
                if (v != null) {
                    entries.addAll(Arrays.asList(v.split(",")));
                }
            }
        }
        return entries;
    }

    /** Reads one attribute; a value Declarative Services cannot convert is refused naming the attribute. */
    private static <T> T value(String attribute, Supplier<T> read) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            if (e instanceof SettingRefusedException refused) {
                throw refused;
            }
            SettingRefusedException refused = new SettingRefusedException("smbdirect.rdma.iwarp: " + attribute
                    + " cannot be read (" + e.getMessage() + ")", attribute, "(as configured)",
                    "cannot be read: " + e.getMessage());
            refused.initCause(e);
            throw refused;
        }
    }
}
