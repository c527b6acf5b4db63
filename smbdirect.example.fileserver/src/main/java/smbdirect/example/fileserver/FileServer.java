package smbdirect.example.fileserver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.example.fileserver.internal.auth.NtlmAuthenticator;
import smbdirect.example.fileserver.internal.share.Share;
import smbdirect.example.fileserver.internal.smb2.ServerContext;
import smbdirect.example.fileserver.internal.smb2.Smb2Connection;

/**
 * A running file server: listens on {@link FileServerSettings#listenAddress()} of one transport
 * and serves {@link FileServerSettings#directory()} as one share to every SMB2 client that
 * connects over SMB Direct. Thread-safe. Closing it stops listening, closes every connection and
 * releases every registration and file it holds.
 */
public final class FileServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FileServer.class);
    /** Worker threads that run requests and file I/O for all connections. */
    private static final int WORKERS = Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors()));

    private final FileServerSettings settings;
    private final ExecutorService workers;
    private final ServerContext context;
    private final Set<Smb2Connection> connections = ConcurrentHashMap.newKeySet();
    private volatile SmbDirectListener listener;
    private volatile boolean closed;

    private FileServer(FileServerSettings settings, ExecutorService workers, ServerContext context) {
        this.settings = settings;
        this.workers = workers;
        this.context = context;
    }

    /**
     * Starts serving.
     *
     * @throws IOException the directory is not a readable directory
     * @throws SmbDirectException the transport cannot listen on the address
     */
    public static FileServer start(SmbDirectTransport transport, FileServerSettings settings)
            throws IOException, SmbDirectException {
        if (!Files.isDirectory(settings.directory()) || !Files.isReadable(settings.directory())) {
            throw new IOException("directory " + settings.directory() + ": not a readable directory");
        }
        Share share = new Share(settings.shareName(), settings.directory(), settings.readOnly());
        NtlmAuthenticator authenticator = new NtlmAuthenticator(settings.user(), settings.password(), settings.guest());
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS, threads());
        FileServer server = new FileServer(settings, workers, ServerContext.create(share, authenticator, workers));
        try {
            server.listener = transport.listen(settings.listenAddress(), server::accept);
        } catch (SmbDirectException | RuntimeException e) {
            workers.shutdownNow();
            throw e;
        }
        LOG.info("file server started: share {} ({}{}) on {}", settings.shareName(), settings.directory(),
                settings.readOnly() ? ", read-only" : "", server.listener.localAddress());
        return server;
    }

    private static ThreadFactory threads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "smb2-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private Smb2Connection accept(SmbDirectConnection connection) {
        if (closed) {
            return null;
        }
        Smb2Connection c = new Smb2Connection(context, connection, connections::remove);
        connections.add(c);
        LOG.info("connection {} from {} accepted on {} (provider {}, MaxReadWriteSize {})", connection.id(),
                connection.peerAddress(), connection.localAddress(), connection.providerName(),
                connection.parameters().maxReadWriteSize());
        return c;
    }

    /** The address the server listens on (the port chosen when the settings asked for port 0). */
    public InetSocketAddress listenAddress() {
        return listener.localAddress();
    }

    public FileServerSettings settings() {
        return settings;
    }

    /** Connections open now. */
    public int connections() {
        return connections.size();
    }

    /** Stops listening, closes every connection, releases every registration and open file. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("closing the listener on {}: {}", listener.localAddress(), e.toString());
        }
        List<java.util.concurrent.CompletableFuture<Void>> closing = new ArrayList<>();
        for (Smb2Connection c : connections) {
            closing.add(c.transport().close().toCompletableFuture());
        }
        try {
            java.util.concurrent.CompletableFuture.allOf(closing.toArray(new java.util.concurrent.CompletableFuture[0]))
                    .get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("closing {} connections: {}", closing.size(), e.toString());
        }
        workers.shutdown();
        try {
            if (!workers.awaitTermination(10, TimeUnit.SECONDS)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
        LOG.info("file server stopped: share {} on {}", settings.shareName(), listener.localAddress());
    }
}
