package smbdirect.example.fileserver.internal.osgi;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.settings.SettingRefusedException;
import smbdirect.example.fileserver.FileServer;
import smbdirect.example.fileserver.FileServerSettings;

/**
 * What the component does, without OSGi types: turns a configuration into
 * {@link FileServerSettings} (a bad value is refused with one ERROR naming the key, the value and
 * the reason, and the running server keeps its last good settings), starts the server, and applies
 * a change by restarting it. A server that cannot start with new settings (the address is taken,
 * no provider) leaves the previous one serving. Thread-safe (synchronized; SCR serialises the calls
 * anyway).
 */
final class ServerLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(ServerLifecycle.class);
    static final String PID = "smbdirect.example.fileserver";
    /** FileInstall's property naming the file a configuration was read from. */
    static final String FILENAME = "felix.fileinstall.filename";

    /** A running server, as far as the lifecycle needs one. */
    interface Server {
        InetSocketAddress listenAddress();

        void close();
    }

    /** Starts a server ({@link FileServer#start} in production). */
    interface Starter {
        Server start(SmbDirectTransport transport, FileServerSettings settings) throws IOException, SmbDirectException;
    }

    /** What a configuration did. */
    enum Outcome {
        APPLIED, UNCHANGED, REFUSED,
        /** The named provider is not there: the server starts when it is (retried). */
        WAITING
    }

    /** Attempts to start a server whose provider is missing before the wait is logged at WARN. */
    static final int WARN_AFTER_ATTEMPTS = 10;

    /** Runs a task again later (a second later in production). */
    interface Retry {
        void schedule(Runnable task);
    }

    /** The settings of a configuration and the provider it pins the server to ("" for the selected one). */
    record Configured(FileServerSettings settings, String provider) {
    }

    /** A configuration value refused: the key, the value as it may be printed, and why. */
    static final class Refused extends SettingRefusedException {
        private static final long serialVersionUID = 1L;

        Refused(String key, Object value, String reason) {
            super(key, value, reason);
        }
    }

    /** The production starter: {@link FileServer#start}. */
    static final Starter FILE_SERVER = (transport, settings) -> {
        FileServer server = FileServer.start(transport, settings);
        return new Server() {
            @Override
            public InetSocketAddress listenAddress() {
                return server.listenAddress();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    };

    private final SmbDirectTransport transport;
    private final Starter starter;
    private final Retry retry;
    private Configured current;
    /** The configuration whose provider is not there yet, or null. */
    private Configured pending;
    /** The configuration that waits for its provider, or null. */
    private Configured waitingFor;
    private int waitingAttempts;
    private Server server;
    private String lastRefusal;

    ServerLifecycle(SmbDirectTransport transport, Starter starter, Retry retry) {
        this.transport = transport;
        this.starter = starter;
        this.retry = retry;
    }

    /**
     * Validates and applies a configuration; {@code raw} are its properties as Config Admin holds them
     * (checked for booleans Declarative Services would read as false, and for the file they came from).
     */
    synchronized Outcome configure(FileServerConfiguration c, Map<String, ?> raw) {
        String source = source(raw);
        Configured next;
        try {
            next = configured(c, raw);
        } catch (Refused e) {
            lastRefusal = e.getMessage();
            LOG.error("{}{}: {}; {}", PID, source, e.getMessage(), server == null ? "no file server runs"
                    : "the file server keeps serving with its last good settings");
            return Outcome.REFUSED;
        }
        pending = null;
        if (server != null && next.equals(current)) {
            return Outcome.UNCHANGED;
        }
        return apply(next, source);
    }

    /**
     * Starts the server of a configuration that waits for its provider; called by the retry
     * scheduler. Does nothing when none waits (a later configuration or the stop took its place).
     */
    synchronized Outcome retryPending() {
        Configured p = pending;
        if (p == null) {
            return Outcome.UNCHANGED;
        }
        pending = null;
        return apply(p, "");
    }

    private Outcome apply(Configured next, String source) {
        Configured previous = current;
        if (!next.provider().isEmpty() && !providerPresent(next.provider())) {
            return waitForProvider(next, source, "no provider " + next.provider() + " is bound to the transport",
                    previous == null ? "" : ", the running server serves until then");
        }
        boolean samePort = previous != null && previous.settings().listenAddress().getPort() != 0
                && previous.settings().listenAddress().getPort() == next.settings().listenAddress().getPort();
        if (previous != null && !next.equals(waitingFor)) {
            LOG.info("{}{}: the file server restarts with its new configuration ({})", PID, source, next.settings());
        }
        if (samePort) {
            stopServer(); // the new one needs the port
        }
        Server started;
        try {
            started = start(next);
        } catch (IOException | RuntimeException e) {
            if (e instanceof SmbDirectException x && x.kind() == SmbDirectException.Kind.NO_PROVIDER
                    && !next.provider().isEmpty()) {
                // the provider left between the check and the listen
                waitForProvider(next, source, e.getMessage(), previous == null ? ""
                        : ", the last good settings serve until then");
            } else {
                lastRefusal = "the file server could not start with " + next.settings() + ": " + e.getMessage();
                LOG.error("{}{}: {}; {}", PID, source, lastRefusal, previous == null ? "no file server runs"
                        : samePort ? "the last good settings are restored" : "the file server keeps serving with its "
                                + "last good settings", e);
            }
            if (previous != null && samePort) {
                restore(previous);
            }
            return pending == next ? Outcome.WAITING : Outcome.REFUSED;
        }
        waitingFor = null;
        stopServer();
        server = started;
        current = next;
        // FileServer.start logs the one INFO line of what is served where
        LOG.debug(describe(next, started.listenAddress()));
        return Outcome.APPLIED;
    }

    /**
     * Keeps {@code next} until its provider is there, tried again by the retry scheduler. The wait
     * is usual while the runtime starts (the provider registers after the transport); it is logged at
     * WARN once it lasted {@value #WARN_AFTER_ATTEMPTS} attempts.
     */
    private Outcome waitForProvider(Configured next, String source, String why, String meanwhile) {
        pending = next;
        if (!next.equals(waitingFor)) {
            waitingFor = next;
            waitingAttempts = 0;
            LOG.debug("{}{}: the file server waits for the RDMA provider {} ({})", PID, source, next.provider(), why);
        }
        if (++waitingAttempts == WARN_AFTER_ATTEMPTS) {
            LOG.warn("{}: the file server still waits for the RDMA provider {} ({}); it starts once the provider is there"
                    + "{}", PID, next.provider(), why, meanwhile);
        }
        retry.schedule(this::retryPending);
        return Outcome.WAITING;
    }

    /** Whether the transport has a provider of that name now (when it cannot tell, the listen will). */
    private boolean providerPresent(String name) {
        try {
            ProviderDTO[] providers = transport.getTransportDTO().providers;
            return providers != null && Arrays.stream(providers).anyMatch(p -> name.equals(p.name));
        } catch (RuntimeException e) {
            return true;
        }
    }

    private Server start(Configured next) throws IOException, SmbDirectException {
        SmbDirectTransport on = next.provider().isEmpty() ? transport : transport.onProvider(next.provider());
        return starter.start(on, next.settings());
    }

    private void restore(Configured previous) {
        try {
            server = start(previous);
            current = previous;
            LOG.warn("{}: the file server serves again with its last good settings: {}", PID,
                    describe(previous, server.listenAddress()));
        } catch (IOException | RuntimeException e) {
            current = null;
            LOG.error("{}: the file server could not start again with its last good settings {}: {}; no file server runs",
                    PID, previous.settings(), e.getMessage(), e);
        }
    }

    /** The one line saying what is served where. */
    static String describe(Configured c, InetSocketAddress listening) {
        FileServerSettings s = c.settings();
        String logon = s.user() != null ? "user " + s.user() + (s.guest() ? " or guest" : "") : "guest only";
        return "File server: " + s.directory() + " served as share '" + s.shareName() + "' on " + hostPort(listening)
                + " over " + (c.provider().isEmpty() ? "the selected RDMA provider" : "the " + c.provider()
                        + " provider") + " (" + (s.readOnly() ? "read-only" : "read-write") + ", " + logon + ")";
    }

    private static String hostPort(InetSocketAddress a) {
        String host = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    private void stopServer() {
        Server s = server;
        server = null;
        if (s != null) {
            s.close(); // logged by FileServer
        }
    }

    /** Closes the server (deactivation: the configuration was deleted, the transport left, the bundle stops). */
    synchronized void stop() {
        pending = null;
        waitingFor = null;
        stopServer();
        current = null;
    }

    synchronized Server server() {
        return server;
    }

    synchronized Configured pending() {
        return pending;
    }

    synchronized Configured current() {
        return current;
    }

    synchronized String lastRefusal() {
        return lastRefusal;
    }

    /** " (from FILE)" for a configuration FileInstall read from a file, "" otherwise. */
    static String source(Map<String, ?> raw) {
        Object file = raw == null ? null : raw.get(FILENAME);
        if (file == null) {
            return "";
        }
        try {
            return " (from " + Path.of(URI.create(file.toString())) + ")";
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return " (from " + file + ")";
        }
    }

    /**
     * The configuration as settings: what the component applies and what its
     * {@link FileServerConfigurationCheck} checks; a bad value throws {@link Refused} naming the key.
     */
    static Configured configured(FileServerConfiguration c, Map<String, ?> raw) {
        String shareName = trimmed(value("shareName", c::shareName));
        if (shareName.isEmpty() || shareName.length() > 80
                || shareName.chars().anyMatch(ch -> ch < 0x20 || "\\/:*?\"<>|".indexOf(ch) >= 0)) {
            throw new Refused("shareName", shareName,
                    "1 to 80 characters, none of \\ / : * ? \" < > | or control characters");
        }
        Path directory = directory(trimmed(value("directory", c::directory)));
        InetSocketAddress listen = listenAddress(trimmed(value("listenAddress", c::listenAddress)));
        String provider = trimmed(value("provider", c::provider));
        boolean readOnly = bool(raw, "readOnly", c::readOnly);
        boolean guest = bool(raw, "guest", c::guest);
        String user = trimmed(value("user", c::user));
        String password = value("password", c::password);
        if (!readOnly && !Files.isWritable(directory)) {
            throw new Refused("directory", directory, "not writable (set readOnly = true to serve it read-only)");
        }
        boolean hasPassword = password != null && !password.isEmpty();
        if (!user.isEmpty() && !hasPassword) {
            throw new Refused("password", "(empty)", "user " + user + " needs a password; there is no default");
        }
        if (user.isEmpty() && hasPassword) {
            throw new Refused("user", "(empty)", "a password is set but no user name");
        }
        if (user.isEmpty() && !guest) {
            throw new Refused("guest", false, "no user and no guest logon: nobody could log on (set user and password,"
                    + " or guest = true)");
        }
        if (!provider.isEmpty() && !provider.matches("[\\w.-]+")) {
            throw new Refused("provider", provider, "not a provider name (iwarp, verbs, mock)");
        }
        try {
            return new Configured(new FileServerSettings(shareName, directory, listen, readOnly,
                    user.isEmpty() ? null : user, user.isEmpty() ? null : password, guest), provider);
        } catch (IllegalArgumentException e) {
            throw new Refused("settings", "(as configured)", e.getMessage());
        }
    }

    static Path directory(String value) {
        if (value.isEmpty()) {
            throw new Refused("directory", "(empty)", "required: the absolute path of the directory to serve");
        }
        Path p;
        try {
            p = Path.of(value);
        } catch (InvalidPathException e) {
            throw new Refused("directory", value, "not a path: " + e.getMessage());
        }
        if (!p.isAbsolute()) {
            throw new Refused("directory", value, "not an absolute path");
        }
        if (!Files.exists(p)) {
            throw new Refused("directory", value, "does not exist");
        }
        if (!Files.isDirectory(p)) {
            throw new Refused("directory", value, "not a directory");
        }
        if (!Files.isReadable(p)) {
            throw new Refused("directory", value, "not readable by this process");
        }
        return p.normalize();
    }

    /** HOST:PORT or [IPV6]:PORT; the host is resolved (an IP literal needs no name service). */
    static InetSocketAddress listenAddress(String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new Refused("listenAddress", value.isEmpty() ? "(empty)" : value, "not HOST:PORT or [IPV6]:PORT");
        }
        String host = value.substring(0, colon);
        String portText = value.substring(colon + 1);
        if (host.startsWith("[") != host.endsWith("]")) {
            throw new Refused("listenAddress", value, "an IPv6 address goes in brackets: [IPV6]:PORT");
        }
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw new Refused("listenAddress", value, "an IPv6 address goes in brackets: [IPV6]:PORT");
        }
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new Refused("listenAddress", value, "the port " + portText + " is no number");
        }
        if (port < 0 || port > 65535) {
            throw new Refused("listenAddress", value, "the port must be in [0, 65535]");
        }
        if (host.isEmpty()) {
            throw new Refused("listenAddress", value, "no host (0.0.0.0 for every address)");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new Refused("listenAddress", value, "unknown host " + host);
        }
    }

    /**
     * A boolean attribute. Declarative Services reads anything but "true" as false; a value that is
     * neither true nor false is refused instead, so that a typo does not silently turn a switch off.
     */
    private static boolean bool(Map<String, ?> raw, String key, Supplier<Boolean> read) {
        Object v = raw == null ? null : raw.get(key);
        if (v != null && !(v instanceof Boolean)) {
            String text = String.valueOf(v).trim().toLowerCase(Locale.ROOT);
            if (!text.equals("true") && !text.equals("false")) {
                throw new Refused(key, v, "neither true nor false");
            }
        }
        return value(key, read);
    }

    private static String trimmed(String s) {
        return s == null ? "" : s.trim();
    }

    /** Reads one attribute; a value Declarative Services cannot convert is refused naming the key. */
    private static <T> T value(String key, Supplier<T> read) {
        try {
            return read.get();
        } catch (SettingRefusedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new Refused(key, "(unreadable)", e.getMessage());
        }
    }
}
