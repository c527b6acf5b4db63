package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;

/**
 * A listening TCP socket on one {@link IoLoop}. Accepted connections are spread over the provider's
 * loops, each with a {@link PassiveSetup} that reads its MPA Request; complete Requests come back to
 * this listener's loop, so the handler's callbacks are never concurrent. Connections beyond the
 * provider's connection cap, or beyond its cap on connections still in MPA setup, are closed at once.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread; after it returns no further
 * request is reported and the port is released.
 */
final class IwarpListener implements RdmaListener, IoHandler {

    private static final Logger LOG = LoggerFactory.getLogger(IwarpListener.class);

    private final IwarpDevice provider;
    private final IoLoop loop;
    private final ServerSocketChannel server;
    private final RdmaListenHandler handler;
    private final InetSocketAddress local;
    private volatile boolean closed;
    private SelectionKey key;
    private long refused;

    IwarpListener(IwarpDevice provider, IoLoop loop, ServerSocketChannel server, RdmaListenHandler handler,
            InetSocketAddress local) {
        this.provider = provider;
        this.loop = loop;
        this.server = server;
        this.handler = handler;
        this.local = local;
    }

    /** Loop thread: starts accepting. */
    void start() throws IOException {
        key = loop.register(server, SelectionKey.OP_ACCEPT, this);
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public void onReady(SelectionKey k, int readyOps) {
        for (int i = 0; i < 64 && !closed; i++) {
            SocketChannel socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                LOG.warn("accept on {} failed: {}", local, e.toString());
                return;
            }
            if (socket == null) {
                return;
            }
            if (!provider.tryOpenConnection()) {
                refuse(socket, "the provider holds maxConnections = " + provider.settings().maxConnections()
                        + " connections");
                continue;
            }
            if (!provider.tryOpenHandshake()) {
                provider.connectionClosed();
                refuse(socket, "maxPendingConnections = " + provider.settings().maxPendingConnections()
                        + " accepted connections are still in MPA setup");
                continue;
            }
            try {
                provider.configure(socket);
                InetSocketAddress peer = (InetSocketAddress) socket.getRemoteAddress();
                InetSocketAddress localAddress = (InetSocketAddress) socket.getLocalAddress();
                IoLoop target = provider.nextLoop();
                Channel channel = new Channel(provider, target, socket);
                PassiveSetup setup = new PassiveSetup(provider, this, channel, localAddress, peer);
                target.execute(setup::start);
            } catch (IOException | RuntimeException e) {
                LOG.debug("listener {}: setting up an accepted connection failed: {}", local, e.toString());
                close(socket);
                provider.handshakeEnded();
                provider.connectionClosed();
            }
        }
    }

    /** Closes an accepted connection beyond a cap; warns on the first and every 1000th. */
    private void refuse(SocketChannel socket, String why) {
        refused++;
        if (refused == 1 || refused % 1000 == 0) {
            LOG.warn("listener {}: connection from {} closed at once: {} ({} closed so far)", local, remote(socket), why,
                    refused);
        }
        close(socket);
    }

    private static Object remote(SocketChannel socket) {
        try {
            return socket.getRemoteAddress();
        } catch (IOException e) {
            return "?";
        }
    }

    private static void close(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing else to release
        }
    }

    @Override
    public void onCrash(Throwable failure) {
        LOG.error("listener {}: internal error", local, failure);
    }

    /** Any loop: a complete MPA Request; the handler hears of it on this listener's loop. */
    void deliver(PassiveSetup setup) {
        loop.execute(() -> {
            if (closed) {
                setup.rejectUnseen();
                return;
            }
            try {
                handler.onConnectRequest(setup);
            } catch (RuntimeException e) {
                LOG.error("onConnectRequest handler of listener {} failed; rejecting {}", local, setup, e);
                setup.reject(null);
            }
        });
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        provider.forget(this);
        if (!loop.runAndWait(this::closeOnLoop, 5000)) {
            LOG.warn("listener {}: closing on its I/O thread did not finish in time", local);
        }
    }

    private void closeOnLoop() {
        if (key != null) {
            key.cancel();
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing listener {}: {}", local, e.toString());
        }
        loop.flushCancelledKeys();
    }

    /** Provider shutdown (loop thread): closes and tells the handler. */
    void fail(DisconnectCause cause, String detail) {
        if (closed) {
            return;
        }
        closed = true;
        closeOnLoop();
        try {
            handler.onListenerFailed(cause, detail);
        } catch (RuntimeException e) {
            LOG.error("onListenerFailed handler of listener {} failed", local, e);
        }
    }

    IoLoop loop() {
        return loop;
    }

    @Override
    public String toString() {
        return "IwarpListener[" + local + (closed ? ", closed" : "") + "]";
    }
}
