package smbdirect.rdma.iwarp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.testsupport.Judges;

/**
 * The provider listens only where it is configured to: opening it opens no port, and a listener is
 * opened only by an explicit {@code listen} on an address {@code listenAddresses} allows. Every
 * other bind is refused naming the attribute, and leaves no port open. Listening sockets are read
 * from the kernel's own table ({@code /proc/self/net/tcp*} against this process's socket inodes),
 * so a port opened by any path of the provider would show.
 */
class ListenSecurityTest {

    private static final RdmaListenHandler IGNORE = new RdmaListenHandler() {
        @Override
        public void onConnectRequest(RdmaConnectRequest request) {
            request.reject(java.nio.ByteBuffer.allocate(0));
        }

        @Override
        public void onListenerFailed(DisconnectCause cause, String detail) {
        }
    };

    @Test
    void openingTheProviderOpensNoPortAndOnlyAnAllowedListenDoes() throws Exception {
        Judges.require(Files.isReadable(Path.of("/proc/self/net/tcp")), "needs Linux /proc to list listening sockets");
        int port = freePort();
        Set<Integer> before = listeningPorts();
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1:" + port).ioThreads(2).build();
        try (IwarpProvider provider = IwarpProvider.open("security", settings)) {
            assertEquals(before, listeningPorts(), "the provider opened a port before any listen");
            assertRefused(port);

            // binds the configuration does not allow: another port, the wildcard, another address
            for (InetSocketAddress denied : List.of(new InetSocketAddress("127.0.0.1", 0),
                    new InetSocketAddress("127.0.0.1", port + 1 > 65535 ? port - 1 : port + 1),
                    new InetSocketAddress("0.0.0.0", port), new InetSocketAddress(InetAddress.getByName("::1"), port),
                    new InetSocketAddress("127.0.0.2", port))) {
                RdmaException e = assertThrows(RdmaException.class, () -> provider.listen(denied, IGNORE),
                        denied.toString());
                assertTrue(e.getMessage().contains("listenAddresses"), e.getMessage());
            }
            assertEquals(before, listeningPorts(), "a refused listen left a port open");
            assertEquals(0, provider.statistics().listeners());

            RdmaListener listener = provider.listen(new InetSocketAddress("127.0.0.1", port), IGNORE);
            Set<Integer> listening = new HashSet<>(before);
            listening.add(port);
            assertEquals(listening, listeningPorts(), "exactly the configured port is open");
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            }
            listener.close();
            assertEquals(before, listeningPorts(), "the listener's close released its port");
            assertRefused(port);
        }
        assertEquals(before, listeningPorts(), "the provider's close left a port open");
    }

    @Test
    void anEmptyListOfListenAddressesAllowsNoListenerAtAll() throws Exception {
        try (IwarpProvider provider = IwarpProvider.open("security-none",
                IwarpSettings.builder().listenAddresses(List.of()).build())) {
            RdmaException e = assertThrows(RdmaException.class,
                    () -> provider.listen(new InetSocketAddress("127.0.0.1", 0), IGNORE));
            assertTrue(e.getMessage().contains("listenAddresses"), e.getMessage());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void assertRefused(int port) {
        assertThrows(ConnectException.class, () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            }
        }, "port " + port + " accepts connections");
    }

    /** The local ports of this process's TCP sockets in LISTEN state (IPv4 and IPv6). */
    private static Set<Integer> listeningPorts() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException e) {
                    // the descriptor closed while listing
                }
            }
        }
        Set<Integer> ports = new HashSet<>();
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            Path p = Path.of(table);
            if (!Files.isReadable(p)) {
                continue;
            }
            List<String> lines = Files.readAllLines(p);
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                if (f.length > 9 && f[3].equals("0A") && inodes.contains(f[9])) {
                    ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }
}
