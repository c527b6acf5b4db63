package smbdirect.rdma.iwarp.internal.tck;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.IwarpStatistics;
import smbdirect.rdma.tck.RdmaTckFixture;

/**
 * Two iWARP providers on loopback TCP. The suite's fixed port numbers are mapped to free ports
 * picked at run time (other builds run tests at the same time), the same number to the same port
 * within one test. Closing checks that the test left no endpoint, listener or connection behind.
 */
final class IwarpTckFixture extends RdmaTckFixture {

    private final IwarpProvider client;
    private final IwarpProvider server;
    private final InetAddress host = InetAddress.getLoopbackAddress();
    private final Map<Integer, Integer> ports = new HashMap<>();

    IwarpTckFixture(IwarpSettings settings) throws RdmaException {
        IwarpSettings s = settings.toBuilder().listenAddresses(host.getHostAddress()).build();
        client = IwarpProvider.open("tck-client", s);
        server = IwarpProvider.open("tck-server", s);
    }

    @Override
    public RdmaProvider clientProvider() {
        return client;
    }

    @Override
    public RdmaProvider serverProvider() {
        return server;
    }

    @Override
    public synchronized InetSocketAddress serverAddress(int port) {
        return new InetSocketAddress(host, ports.computeIfAbsent(port, p -> freePort()));
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
}
