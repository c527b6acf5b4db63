package smbdirect.example.fileserver;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.example.fileserver.client.Smb2TestClient;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.standalone.CallbackFailure;
import smbdirect.standalone.StandaloneTransport;

/**
 * A file server on a transport over the mock fabric, serving a directory of the test, and SMB2
 * clients each on a device and transport of its own. The fabric runs its completion threads
 * ({@link DeliveryMode#THREADED}) and the transports the wall clock: the server does its file work
 * on whatever threads it chooses, and every wait of the tests is bounded. A callback of either
 * side that throws fails the test at {@link #close()}; so does anything left registered or
 * connected on the fabric once everything is closed.
 */
public final class FileServerFixture implements AutoCloseable {

    public static final String SHARE = "share";
    public static final String USER = "alice";
    public static final String PASSWORD = "Correct-Horse-7";
    public static final Duration WAIT = Duration.ofSeconds(30);

    private final MockFabric fabric;
    private final MockProvider serverDevice;
    private final StandaloneTransport serverTransport;
    private final FileServer server;
    private final List<CallbackFailure> failures;
    private final List<StandaloneTransport> clientTransports = new ArrayList<>();
    private final List<Smb2TestClient> clients = new ArrayList<>();
    private final Path directory;

    private FileServerFixture(FileServerSettings settings, MockFabric fabric, MockProvider serverDevice,
            StandaloneTransport serverTransport, List<CallbackFailure> failures) throws Exception {
        this.failures = failures;
        this.fabric = fabric;
        this.serverDevice = serverDevice;
        this.serverTransport = serverTransport;
        this.directory = settings.directory();
        FileServer s;
        try {
            s = FileServer.start(serverTransport, settings);
        } catch (Exception | Error e) {
            serverTransport.close();
            fabric.close();
            throw e;
        }
        this.server = s;
    }

    /**
     * The settings of the tests: the account, guest off, writable, on the server device's port 445
     * (filled in by {@link #start}).
     */
    public static FileServerSettings settings(Path directory) {
        return settings(directory, false, USER, PASSWORD, false);
    }

    public static FileServerSettings settings(Path directory, boolean readOnly, String user, String password,
            boolean guest) {
        return new FileServerSettings(SHARE, directory, new InetSocketAddress(0), readOnly, user, password, guest);
    }

    /** Starts a server with {@code settings} (its listen address replaced by the server device's, port 445). */
    public static FileServerFixture start(FileServerSettings settings) throws Exception {
        MockFabric fabric = MockFabric.builder().name("fs").mode(DeliveryMode.THREADED).build();
        MockProvider device = fabric.provider("server");
        List<CallbackFailure> failures = new CopyOnWriteArrayList<>();
        StandaloneTransport transport = StandaloneTransport.builder(device).callbackFailures(failures::add).build();
        FileServerSettings s = new FileServerSettings(settings.shareName(), settings.directory(),
                new InetSocketAddress(device.address(), 445), settings.readOnly(), settings.user(),
                settings.password(), settings.guest());
        return new FileServerFixture(s, fabric, device, transport, failures);
    }

    public FileServer server() {
        return server;
    }

    public StandaloneTransport serverTransport() {
        return serverTransport;
    }

    public MockFabric fabric() {
        return fabric;
    }

    public MockProvider serverDevice() {
        return serverDevice;
    }

    public Path directory() {
        return directory;
    }

    /** {@code \\<server address>\<share>}. */
    public String sharePath() {
        return "\\\\" + serverDevice.address().getHostAddress() + "\\" + SHARE;
    }

    public String path(String share) {
        return "\\\\" + serverDevice.address().getHostAddress() + "\\" + share;
    }

    /**
     * A client transport on a device of its own named {@code device}, closed with the fixture; its
     * callbacks' failures count.
     */
    public StandaloneTransport clientTransportFor(String device) {
        StandaloneTransport t = StandaloneTransport.builder(fabric.provider(device)).callbackFailures(failures::add)
                .build();
        synchronized (clientTransports) {
            clientTransports.add(t);
        }
        return t;
    }

    /** A new client on a device and transport of its own, connected to the server (nothing sent yet). */
    public Smb2TestClient client() throws Exception {
        StandaloneTransport t = clientTransportFor("client-" + (clientTransports.size() + 1));
        Smb2TestClient c = Smb2TestClient.connect(t, server.listenAddress(), WAIT);
        clients.add(c);
        return c;
    }

    /** A client that negotiated, logged on with the account and connected to the share. */
    public Smb2TestClient mounted() throws Exception {
        return client().mount(USER, PASSWORD, sharePath());
    }

    /** Callbacks of the upper layers (the server's and the clients') that threw so far. */
    public List<CallbackFailure> callbackFailures() {
        return List.copyOf(failures);
    }

    /** The server transport's live connections. */
    public ConnectionDTO[] serverConnections() {
        return serverTransport.getTransportDTO().connections;
    }

    /** Regions registered now on the server's device, over all its endpoints. */
    public int serverRegistrations() {
        return serverDevice.endpoints().stream().mapToInt(MockEndpoint::registeredRegions).sum();
    }

    /** The server's endpoint of {@code client}'s connection (for fault injection). */
    public MockEndpoint serverEndpointOf(Smb2TestClient client) {
        java.net.InetAddress address = client.connection().localAddress().getAddress();
        return serverDevice.endpoints().stream()
                .filter(e -> e.peer() != null && e.peer().provider().address().equals(address)).findFirst()
                .orElseThrow(() -> new AssertionError("no server endpoint for " + client));
    }

    /** Waits, up to {@link #WAIT}, until {@code condition} holds; fails naming {@code what}. */
    public static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT + ": " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /**
     * Closes the clients, the server, the transports and the fabric; fails on a callback that threw or
     * anything left behind.
     */
    @Override
    public void close() throws Exception {
        List<Throwable> problems = new ArrayList<>();
        for (Smb2TestClient c : clients) {
            try {
                c.close();
            } catch (Exception | Error e) {
                problems.add(e);
            }
        }
        server.close();
        for (StandaloneTransport t : clientTransports) {
            t.close();
        }
        serverTransport.close();
        List<String> leaks = fabric.leaks();
        fabric.close();
        List<CallbackFailure> failed = callbackFailures();
        if (!failed.isEmpty()) {
            AssertionError e = new AssertionError("a callback threw: " + failed);
            failed.forEach(f -> e.addSuppressed(f.failure()));
            throw e;
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError("left on the fabric after the close: " + leaks);
        }
        if (!problems.isEmpty()) {
            AssertionError e = new AssertionError("closing the clients: " + problems);
            problems.forEach(e::addSuppressed);
            throw e;
        }
    }
}
