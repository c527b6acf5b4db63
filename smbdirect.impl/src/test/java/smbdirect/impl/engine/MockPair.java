package smbdirect.impl.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/** Two engines (client = active, server = passive) on one mock fabric, in virtual time. */
final class MockPair implements AutoCloseable {

    /** Collects messages (copied) and the disconnect reason of one connection; waits without sleeping. */
    static final class Collector implements ConnectionHandler {
        final List<byte[]> messages = Collections.synchronizedList(new ArrayList<>());
        final List<CloseReason> disconnects = Collections.synchronizedList(new ArrayList<>());
        /** Whether every message is sent back from inside the callback. */
        volatile boolean echo;
        /** Whether messages are only counted (allocation measurements), not kept. */
        volatile boolean countOnly;
        /** Payload bytes of the messages only counted. */
        volatile long counted;

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            if (countOnly) {
                counted += message.length();
                return;
            }
            byte[] b = new byte[message.length()];
            message.payload().duplicate().get(b);
            messages.add(b);
            if (echo) {
                connection.send(ByteBuffer.wrap(b), (m, x) -> { });
            }
            signal();
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            disconnects.add(reason);
            signal();
        }

        private synchronized void signal() {
            notifyAll();
        }

        /** Waits until {@code count} messages arrived or the time is up; returns whether they did. */
        synchronized boolean awaitMessages(int count, Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (messages.size() < count) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }

        /** Waits for the disconnect notification. */
        synchronized boolean awaitDisconnect(Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (disconnects.isEmpty()) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }
    }

    final MockFabric fabric;
    final ManualScheduler scheduler = new ManualScheduler();
    final MockProvider clientProvider;
    final MockProvider serverProvider;
    final SmbDirectEngine client;
    final SmbDirectEngine server;
    final Collector clientSide = new Collector();
    final Collector serverSide = new Collector();
    final List<SmbDirectConnection> accepted = Collections.synchronizedList(new ArrayList<>());
    private final java.util.concurrent.CountDownLatch firstAccept = new java.util.concurrent.CountDownLatch(1);
    final SmbDirectListener listener;

    MockPair(DeliveryMode mode, TransportSettings clientSettings, TransportSettings serverSettings) {
        fabric = MockFabric.builder().name("pair").mode(mode).build();
        clientProvider = fabric.provider("client");
        serverProvider = fabric.provider("server");
        client = new SmbDirectEngine(clientProvider, clientSettings, scheduler);
        server = new SmbDirectEngine(serverProvider, serverSettings, scheduler);
        try {
            listener = server.listen(new InetSocketAddress(serverProvider.address(), 445), c -> {
                accepted.add(c);
                firstAccept.countDown();
                return serverSide;
            });
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    MockPair(TransportSettings settings) {
        this(DeliveryMode.DETERMINISTIC, settings, settings);
    }

    void run() {
        if (fabric.mode() == DeliveryMode.DETERMINISTIC) {
            fabric.runUntilIdle();
        }
    }

    /** Advances virtual time and lets the fabric settle. */
    void advance(Duration d) {
        long step = Math.min(d.toMillis(), 500);
        long left = d.toMillis();
        while (left > 0) {
            long s = Math.min(step, left);
            scheduler.advance(Duration.ofMillis(s));
            run();
            left -= s;
        }
    }

    CompletableFuture<SmbDirectConnection> connectAsync() {
        return client.connect(listener.localAddress(), Duration.ofSeconds(120), clientSide).toCompletableFuture();
    }

    /** Connects and negotiates; returns the client's connection. */
    Connection connect() {
        CompletableFuture<SmbDirectConnection> f = connectAsync();
        run();
        if (!f.isDone()) {
            throw new AssertionError("not negotiated");
        }
        return (Connection) f.join();
    }

    /** Waits for the first accepted connection (threaded modes). */
    SmbDirectConnection awaitAccepted(Duration timeout) throws InterruptedException {
        if (!firstAccept.await(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
            throw new AssertionError("no connection accepted within " + timeout);
        }
        return accepted.get(0);
    }

    Connection serverConnection() {
        return (Connection) accepted.get(accepted.size() - 1);
    }

    static ByteBuffer direct(byte[] b) {
        ByteBuffer d = ByteBuffer.allocateDirect(b.length);
        d.put(b).flip();
        return d;
    }

    @Override
    public void close() {
        client.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end"));
        server.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end"));
        run();
    }
}
