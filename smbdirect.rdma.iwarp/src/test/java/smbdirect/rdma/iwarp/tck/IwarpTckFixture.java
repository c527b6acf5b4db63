package smbdirect.rdma.iwarp.tck;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.IwarpStatistics;
import smbdirect.rdma.tck.RdmaTckFixture;

/**
 * Two iWARP providers on loopback TCP: the contract suite's fixture for this provider, and the pair
 * other modules' tests run over (this module's test jar). Closing checks that the test left no
 * endpoint, listener or connection behind.
 *
 * <p>Ports: for the suite ({@link #forContractSuite}), its fixed port numbers are mapped to free ports
 * picked at run time (other builds run tests at the same time), the same number to the same port
 * within one test. Otherwise ports are taken as given, 0 letting the system pick, and a client
 * connects to the port the listener reports.
 */
public final class IwarpTckFixture extends RdmaTckFixture {

    private final String label;
    private final IwarpProvider client;
    private final IwarpProvider server;
    private final InetAddress host = InetAddress.getLoopbackAddress();
    /** The suite's port numbers and the free ports they stand for; null: ports as given. */
    private final Map<Integer, Integer> ports;

    /**
     * @param label how the pair is named in test reports and in its providers' instance (thread) names
     * @param settings both providers' settings; the listen allow-list is replaced by the loopback address
     */
    public IwarpTckFixture(String label, IwarpSettings settings) throws RdmaException {
        this(label, settings, null);
    }

    private IwarpTckFixture(String label, IwarpSettings settings, Map<Integer, Integer> ports) throws RdmaException {
        this.label = label;
        this.ports = ports;
        IwarpSettings s = settings.toBuilder().listenAddresses(host.getHostAddress()).build();
        String name = label.replaceAll("[^A-Za-z0-9._-]", "-");
        client = IwarpProvider.open(name + "-client", s);
        try {
            server = IwarpProvider.open(name + "-server", s);
        } catch (RdmaException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** The pair the contract suite runs over: providers named {@code tck-client} and {@code tck-server}, the suite's ports mapped to free ones. */
    public static IwarpTckFixture forContractSuite(IwarpSettings settings) throws RdmaException {
        return new IwarpTckFixture("tck", settings, new HashMap<>());
    }

    @Override
    public IwarpProvider clientProvider() {
        return client;
    }

    @Override
    public IwarpProvider serverProvider() {
        return server;
    }

    @Override
    public synchronized InetSocketAddress serverAddress(int port) {
        return new InetSocketAddress(host, ports == null ? port : ports.computeIfAbsent(port, p -> freePort()));
    }

    private int freePort() {
        try (ServerSocket probe = new ServerSocket(0, 1, host)) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port on " + host, e);
        }
    }

    @Override
    public boolean sendsAndWritesCompleteOnAcknowledgement() {
        return false;
    }

    @Override
    public void close() throws Exception {
        try {
            for (IwarpProvider p : new IwarpProvider[] {client, server}) {
                IwarpStatistics s = p.statistics();
                if (s.endpoints() != 0 || s.listeners() != 0) {
                    throw new AssertionError(p.instanceName() + " left behind: " + s);
                }
            }
        } finally {
            client.close();
            server.close();
        }
        for (IwarpProvider p : new IwarpProvider[] {client, server}) {
            IwarpStatistics s = p.statistics();
            if (s.connections() != 0 || s.pendingRequests() != 0) {
                throw new AssertionError(p.instanceName() + " holds connections after close: " + s);
            }
        }
    }

    @Override
    public String toString() {
        return label;
    }
}
