package smbdirect.example.fileserver.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.example.fileserver.FileServerSettings;

/**
 * The component's logic without a framework: a configuration becomes the server's settings, a bad
 * value is refused by key and the running server stays, a change restarts it, a named provider
 * that is not there yet is waited for, and stop closes the server.
 */
class ServerLifecycleTest {

    @TempDir
    Path directory;

    /** A server the fake starter made: its settings, the transport it was given, whether it is closed. */
    static final class FakeServer implements ServerLifecycle.Server {
        final FileServerSettings settings;
        final SmbDirectTransport transport;
        boolean closed;

        FakeServer(FileServerSettings settings, SmbDirectTransport transport) {
            this.settings = settings;
            this.transport = transport;
        }

        @Override
        public InetSocketAddress listenAddress() {
            return settings.listenAddress();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private final List<FakeServer> started = new ArrayList<>();
    /** Failures the next starts throw, in order (empty: start succeeds). */
    private final Deque<IOException> failures = new ArrayDeque<>();
    private final List<Runnable> retries = new ArrayList<>();
    /** The providers the fake transport has (its DTO's). */
    private final Set<String> providers = new HashSet<>(Set.of("mock"));
    private final SmbDirectTransport transport = transport("selected", providers);
    private final ServerLifecycle lifecycle = new ServerLifecycle(transport, (t, settings) -> {
        IOException failure = failures.poll();
        if (failure != null) {
            throw failure;
        }
        for (FakeServer s : started) {
            if (!s.closed && s.settings.listenAddress().getPort() == settings.listenAddress().getPort()) {
                throw new SmbDirectException(SmbDirectException.Kind.PROVIDER_ERROR, "address in use");
            }
        }
        FakeServer s = new FakeServer(settings, t);
        started.add(s);
        return s;
    }, retries::add);

    @AfterEach
    void stop() {
        lifecycle.stop();
        assertTrue(started.stream().allMatch(s -> s.closed), "stop closes every server");
    }

    /** [MS-SMB2] 3.3.4.14 (the share a tree connect names): every attribute reaches the server's settings. */
    @Test
    void everyAttributeReachesTheServersSettings() throws Exception {
        assertEquals(ServerLifecycle.Outcome.APPLIED, lifecycle.configure(config(Map.of("shareName", "data",
                "directory", directory.toString(), "listenAddress", "127.0.0.1:4445", "readOnly", "true",
                "user", " alice ", "password", "secret", "guest", true)), Map.of()));
        assertEquals(1, started.size());
        FileServerSettings s = started.get(0).settings;
        assertEquals(new FileServerSettings("data", directory, new InetSocketAddress(InetAddress.getByName("127.0.0.1"),
                4445), true, "alice", "secret", true), s);
        assertSame(transport, started.get(0).transport, "no provider named: the transport's selected one");
    }

    @Test
    void theDefaultsListenOnEveryAddressAtPort5445AsAGuestShare() {
        lifecycle.configure(config(Map.of("directory", directory.toString(), "guest", true)), Map.of());
        FileServerSettings s = started.get(0).settings;
        assertEquals("share", s.shareName());
        assertEquals(new InetSocketAddress("0.0.0.0", 5445), s.listenAddress());
        assertFalse(s.readOnly());
        assertNull(s.user(), "no default account");
        assertNull(s.password(), "no default password");
    }

    @Test
    void aNamedProviderPinsTheServerToIt() {
        lifecycle.configure(config(Map.of("directory", directory.toString(), "guest", true, "provider", "mock")),
                Map.of());
        assertEquals("mock", started.get(0).transport.toString());
    }

    @Test
    void aBadValueIsRefusedNamingTheKeyTheValueAndTheReasonAndTheRunningServerStays() throws Exception {
        Map<String, Object> good = Map.of("directory", directory.toString(), "guest", true);
        lifecycle.configure(config(good), Map.of());
        FakeServer running = started.get(0);
        Path file = Files.createFile(directory.resolve("file"));
        String[][] refusals = {
            {"directory", directory.resolve("missing").toString(), "directory = " + directory.resolve("missing")
                    + " refused: does not exist"},
            {"directory", file.toString(), "directory = " + file + " refused: not a directory"},
            {"directory", "relative/dir", "directory = relative/dir refused: not an absolute path"},
            {"listenAddress", "127.0.0.1", "listenAddress = 127.0.0.1 refused: not HOST:PORT"},
            {"listenAddress", "127.0.0.1:44x5", "listenAddress = 127.0.0.1:44x5 refused: the port 44x5 is no number"},
            {"listenAddress", "127.0.0.1:70000", "listenAddress = 127.0.0.1:70000 refused: the port must be in"},
            {"listenAddress", "::1:445", "listenAddress = ::1:445 refused: an IPv6 address goes in brackets"},
            {"shareName", "a/b", "shareName = a/b refused: 1 to 80 characters"},
            {"provider", "(smbdirect.provider=iwarp)", "provider = (smbdirect.provider=iwarp) refused: not a provider"},
        };
        for (String[] r : refusals) {
            Map<String, Object> bad = new HashMap<>(good);
            bad.put(r[0], r[1]);
            assertEquals(ServerLifecycle.Outcome.REFUSED, lifecycle.configure(config(bad), Map.of()), r[1]);
            assertTrue(lifecycle.lastRefusal().startsWith(r[2]), lifecycle.lastRefusal());
            assertSame(running, lifecycle.server());
            assertFalse(running.closed);
        }
        assertEquals(1, started.size(), "nothing else started");
    }

    /** [MS-NLMP] 3.2.5.1.2: an account needs a password; no account and no guest leaves nobody to log on. */
    @Test
    void aUserWithoutPasswordAPasswordWithoutUserAndNobodyAtAllAreRefused() {
        assertRefused(Map.of("directory", directory.toString(), "user", "alice"),
                "password = (empty) refused: user alice needs a password");
        assertRefused(Map.of("directory", directory.toString(), "password", "secret", "guest", true),
                "user = (empty) refused: a password is set but no user name");
        assertRefused(Map.of("directory", directory.toString()), "guest = false refused: no user and no guest logon");
        assertTrue(started.isEmpty(), "a refused first configuration starts nothing");
        assertNull(lifecycle.server());
    }

    @Test
    void aBooleanThatIsNeitherTrueNorFalseIsRefusedRatherThanReadAsFalse() {
        Map<String, Object> values = Map.of("directory", directory.toString(), "guest", true, "readOnly", "ture");
        assertEquals(ServerLifecycle.Outcome.REFUSED, lifecycle.configure(config(values), values));
        assertTrue(lifecycle.lastRefusal().startsWith("readOnly = ture refused: neither true nor false"),
                lifecycle.lastRefusal());
    }

    @Test
    void thePasswordIsNeitherInARefusalNorInTheServedLine() {
        Map<String, Object> values = Map.of("directory", directory.toString(), "user", "alice", "password",
                "hunter2", "listenAddress", "nonsense");
        lifecycle.configure(config(values), values);
        assertFalse(lifecycle.lastRefusal().contains("hunter2"), lifecycle.lastRefusal());
        lifecycle.configure(config(Map.of("directory", directory.toString(), "user", "alice", "password", "hunter2")),
                Map.of());
        String line = ServerLifecycle.describe(lifecycle.current(), lifecycle.server().listenAddress());
        assertFalse(line.contains("hunter2"), line);
        assertTrue(line.contains("share 'share' on 0.0.0.0:5445"), line);
        assertTrue(line.contains("user alice"), line);
    }

    @Test
    void theSameValuesAgainChangeNothing() {
        Map<String, Object> values = Map.of("directory", directory.toString(), "guest", true);
        lifecycle.configure(config(values), Map.of());
        assertEquals(ServerLifecycle.Outcome.UNCHANGED, lifecycle.configure(config(values), Map.of()));
        assertEquals(1, started.size());
        assertFalse(started.get(0).closed);
    }

    @Test
    void aChangeRestartsTheServerWithTheNewSettings() {
        lifecycle.configure(config(Map.of("directory", directory.toString(), "guest", true)), Map.of());
        FakeServer old = started.get(0);
        assertEquals(ServerLifecycle.Outcome.APPLIED, lifecycle.configure(config(Map.of("directory",
                directory.toString(), "guest", true, "readOnly", true)), Map.of()));
        assertTrue(old.closed);
        FakeServer now = started.get(1);
        assertNotSame(old, now);
        assertFalse(now.closed);
        assertTrue(now.settings.readOnly());
        assertEquals(5445, now.settings.listenAddress().getPort(), "the same port, freed by the old server first");
    }

    @Test
    void aServerThatCannotStartOnANewPortLeavesThePreviousOneServing() {
        lifecycle.configure(config(Map.of("directory", directory.toString(), "guest", true)), Map.of());
        FakeServer old = started.get(0);
        failures.add(new SmbDirectException(SmbDirectException.Kind.PROVIDER_ERROR, "cannot bind"));
        assertEquals(ServerLifecycle.Outcome.REFUSED, lifecycle.configure(config(Map.of("directory",
                directory.toString(), "guest", true, "listenAddress", "0.0.0.0:4445")), Map.of()));
        assertTrue(lifecycle.lastRefusal().contains("cannot bind"), lifecycle.lastRefusal());
        assertSame(old, lifecycle.server());
        assertFalse(old.closed);
    }

    @Test
    void aServerThatCannotStartOnTheSamePortIsReplacedByTheLastGoodSettings() {
        lifecycle.configure(config(Map.of("directory", directory.toString(), "guest", true)), Map.of());
        FakeServer old = started.get(0);
        failures.add(new IOException("directory vanished"));
        assertEquals(ServerLifecycle.Outcome.REFUSED, lifecycle.configure(config(Map.of("directory",
                directory.toString(), "guest", true, "readOnly", true)), Map.of()));
        assertTrue(old.closed, "the port was freed for the new settings");
        FakeServer restored = started.get(1);
        assertSame(restored, lifecycle.server());
        assertFalse(restored.settings.readOnly(), "the last good settings");
    }

    @Test
    void aNamedProviderThatIsNotThereYetIsWaitedForAndTheServerStartsOnceItIs() {
        Map<String, Object> values = Map.of("directory", directory.toString(), "guest", true, "provider", "iwarp");
        assertEquals(ServerLifecycle.Outcome.WAITING, lifecycle.configure(config(values), Map.of()));
        assertNull(lifecycle.server());
        assertTrue(started.isEmpty(), "no listen tried without the provider");
        assertEquals(1, retries.size());
        retries.remove(0).run();
        assertNull(lifecycle.server(), "still not there");
        assertEquals(1, retries.size(), "tried again later");
        providers.add("iwarp");
        retries.remove(0).run();
        assertSame(started.get(0), lifecycle.server());
        assertEquals("iwarp", started.get(0).transport.toString());
        assertNull(lifecycle.pending());
        assertTrue(retries.isEmpty(), "nothing more to try");
    }

    @Test
    void aRunningServerKeepsServingOnItsPortWhileItsNewProviderIsAwaited() {
        lifecycle.configure(config(Map.of("directory", directory.toString(), "guest", true)), Map.of());
        FakeServer running = started.get(0);
        assertEquals(ServerLifecycle.Outcome.WAITING, lifecycle.configure(config(Map.of("directory",
                directory.toString(), "guest", true, "provider", "iwarp")), Map.of()));
        retries.remove(0).run();
        assertFalse(running.closed, "the same port: not closed while the new provider is not there");
        assertSame(running, lifecycle.server());
        providers.add("iwarp");
        retries.remove(0).run();
        assertTrue(running.closed);
        assertSame(started.get(1), lifecycle.server());
        assertEquals("iwarp", started.get(1).transport.toString());
    }

    @Test
    void aProviderThatLeavesBetweenTheCheckAndTheListenIsWaitedFor() {
        providers.add("iwarp");
        failures.add(new SmbDirectException(SmbDirectException.Kind.NO_PROVIDER, "no provider iwarp"));
        Map<String, Object> values = Map.of("directory", directory.toString(), "guest", true, "provider", "iwarp");
        assertEquals(ServerLifecycle.Outcome.WAITING, lifecycle.configure(config(values), Map.of()));
        retries.remove(0).run();
        assertSame(started.get(0), lifecycle.server());
    }

    @Test
    void aWaitingConfigurationIsForgottenWhenTheComponentStops() {
        lifecycle.configure(config(Map.of("directory", directory.toString(), "guest", true, "provider", "iwarp")),
                Map.of());
        lifecycle.stop();
        providers.add("iwarp");
        assertEquals(ServerLifecycle.Outcome.UNCHANGED, lifecycle.retryPending());
        assertTrue(started.isEmpty());
    }

    @Test
    void stopClosesTheServer() {
        lifecycle.configure(config(Map.of("directory", directory.toString(), "guest", true)), Map.of());
        lifecycle.stop();
        assertTrue(started.get(0).closed);
        assertNull(lifecycle.server());
    }

    @Test
    void refusalsAndRestartsNameTheFileTheConfigurationCameFrom() {
        assertEquals(" (from /opt/appliance/etc/smbdirect.example.fileserver.cfg)", ServerLifecycle.source(Map.of(
                ServerLifecycle.FILENAME, "file:/opt/appliance/etc/smbdirect.example.fileserver.cfg")));
        assertEquals(" (from not a uri)", ServerLifecycle.source(Map.of(ServerLifecycle.FILENAME, "not a uri")));
        assertEquals("", ServerLifecycle.source(Map.of()));
    }

    private void assertRefused(Map<String, Object> values, String refusal) {
        assertEquals(ServerLifecycle.Outcome.REFUSED, lifecycle.configure(config(values), values));
        assertTrue(lifecycle.lastRefusal().startsWith(refusal), lifecycle.lastRefusal());
    }

    /**
     * A {@link FileServerConfiguration} as Declarative Services makes it: the Metatype defaults,
     * overridden by {@code values}, a boolean read from its text as {@link Boolean#parseBoolean}.
     */
    static FileServerConfiguration config(Map<String, Object> values) {
        return (FileServerConfiguration) Proxy.newProxyInstance(FileServerConfiguration.class.getClassLoader(),
                new Class<?>[] {FileServerConfiguration.class}, (proxy, method, args) -> {
                    String key = method.getName().replace('_', '.');
                    if (method.getName().equals("annotationType")) {
                        return FileServerConfiguration.class;
                    }
                    Object v = values.containsKey(key) ? values.get(key) : method.getDefaultValue();
                    if (method.getReturnType() == boolean.class && v != null && !(v instanceof Boolean)) {
                        return Boolean.parseBoolean(v.toString().trim());
                    }
                    return v;
                });
    }

    /**
     * A transport whose provider views are named transports (their toString), for telling them apart,
     * and whose DTO lists {@code providers}.
     */
    static SmbDirectTransport transport(String name, Set<String> providers) {
        return (SmbDirectTransport) Proxy.newProxyInstance(SmbDirectTransport.class.getClassLoader(),
                new Class<?>[] {SmbDirectTransport.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "onProvider" -> transport((String) args[0], providers);
                    case "getTransportDTO" -> {
                        TransportDTO dto = new TransportDTO();
                        dto.providers = providers.stream().map(n -> {
                            ProviderDTO p = new ProviderDTO();
                            p.name = n;
                            return p;
                        }).toArray(ProviderDTO[]::new);
                        yield dto;
                    }
                    case "toString" -> name;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
