package smbdirect.rdma.iwarp.internal.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A TCP relay for tests that forwards each direction in chunks of random size (1 to
 * {@code maxChunk} bytes), each written and flushed on its own with TCP_NODELAY, so that the
 * receiver sees FPDUs cut at arbitrary points and several in one read. Seeded: a failure can be
 * replayed. Closing a side closes the other.
 */
final class ChunkingRelay implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final int maxChunk;
    private final long seed;
    private final List<Socket> sockets = new ArrayList<>();
    private final Thread acceptor;
    private volatile boolean closed;

    ChunkingRelay(InetSocketAddress target, int maxChunk, long seed) throws IOException {
        this.server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        this.target = target;
        this.maxChunk = maxChunk;
        this.seed = seed;
        this.acceptor = new Thread(this::acceptLoop, "chunking-relay");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    private void acceptLoop() {
        int n = 0;
        while (!closed) {
            try {
                Socket a = server.accept();
                Socket b = new Socket(target.getAddress(), target.getPort());
                a.setTcpNoDelay(true);
                b.setTcpNoDelay(true);
                synchronized (sockets) {
                    sockets.add(a);
                    sockets.add(b);
                }
                pump(a, b, new Random(seed + n++), "relay-up");
                pump(b, a, new Random(seed + n++), "relay-down");
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, Random random, String name) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[maxChunk];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                while (true) {
                    int n = in.read(buffer, 0, 1 + random.nextInt(maxChunk));
                    if (n < 0) {
                        to.shutdownOutput();
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                close(from);
                close(to);
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                close(s);
            }
        }
    }
}
