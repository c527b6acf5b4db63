package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32C;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ManualScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.mock.RawPeer;

/**
 * Two engines ("server" passive, "client" active) on one mock fabric, in virtual time. In
 * {@link DeliveryMode#DETERMINISTIC} the test drives the fabric with {@link #settle()}; in the
 * other modes completions arrive by themselves. Not thread-safe itself (build and drive it from the
 * test thread); the {@link Peer} handlers are.
 */
final class Rig implements AutoCloseable {

    final MockFabric fabric;
    final ManualScheduler clock = new ManualScheduler();
    final MockProvider serverDevice;
    final MockProvider clientDevice;
    final SmbDirectEngine server;
    final SmbDirectEngine client;
    final List<Peer> accepted = new CopyOnWriteArrayList<>();
    SmbDirectListener listener;

    Rig(DeliveryMode mode, TransportSettings settings) {
        this(mode, settings, settings);
    }

    Rig(DeliveryMode mode, TransportSettings serverSettings, TransportSettings clientSettings) {
        fabric = MockFabric.builder().name("rel").mode(mode).build();
        serverDevice = fabric.provider("server");
        clientDevice = fabric.provider("client");
        server = new SmbDirectEngine(serverDevice, serverSettings, clock);
        client = new SmbDirectEngine(clientDevice, clientSettings, clock);
    }

    boolean deterministic() {
        return fabric.mode() == DeliveryMode.DETERMINISTIC;
    }

    /** DETERMINISTIC: run the fabric until nothing is queued. Other modes: nothing. */
    void settle() {
        if (deterministic()) {
            fabric.runUntilIdle();
        }
    }

    /** Advances virtual time, settling the fabric before and after. */
    void advance(Duration d) {
        settle();
        clock.advance(d);
        settle();
    }

    InetSocketAddress listen() throws Exception {
        if (listener == null) {
            listener = server.listen(new InetSocketAddress(serverDevice.address(), 0), c -> {
                Peer p = new Peer("server-" + c.id());
                p.connection.complete(c);
                accepted.add(p);
                return p;
            });
        }
        return listener.localAddress();
    }

    /** Connects a client to the server and returns both ends, negotiated. */
    Peer[] pair() throws Exception {
        InetSocketAddress at = listen();
        int before = accepted.size();
        Peer c = new Peer("client");
        CompletableFuture<SmbDirectConnection> f = client.connect(at, Duration.ofSeconds(120), c)
                .toCompletableFuture();
        settle();
        c.connection.complete(await(f, "client negotiation"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (accepted.size() <= before) {
            settle();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("server side not accepted" + threadDump());
            }
            Thread.onSpinWait();
        }
        return new Peer[] {c, accepted.get(before)};
    }

    /** Shuts both engines down, settles and checks the fabric holds nothing any more. */
    void closeAndAssertNoLeaks() throws Exception {
        CompletableFuture<Void> a = server.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end"))
                .toCompletableFuture();
        CompletableFuture<Void> b = client.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end"))
                .toCompletableFuture();
        settle();
        await(a, "server shutdown");
        await(b, "client shutdown");
        settle();
        awaitNoLeaks();
    }

    /** Waits (other modes) or settles (DETERMINISTIC) until the fabric reports no leak. */
    void awaitNoLeaks() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!fabric.leaks().isEmpty() && System.nanoTime() < deadline) {
            settle();
            if (!deterministic()) {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        fabric.assertNoLeaks();
    }

    @Override
    public void close() {
        fabric.close();
    }

    <T> T await(CompletableFuture<T> f, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!f.isDone()) {
            if (deterministic()) {
                fabric.runUntilIdle();
                if (!f.isDone()) {
                    throw new AssertionError(what + " did not complete and the fabric is idle");
                }
            } else {
                try {
                    return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError(what + " did not complete within 30 s" + threadDump());
                }
            }
        }
        return f.get();
    }

    static String threadDump() {
        StringBuilder sb = new StringBuilder("\n--- thread dump ---\n");
        for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            sb.append(t);
        }
        long[] dead = ManagementFactory.getThreadMXBean().findDeadlockedThreads();
        if (dead != null) {
            sb.append("DEADLOCKED threads: ").append(java.util.Arrays.toString(dead)).append('\n');
        }
        return sb.toString();
    }

    /**
     * An ACTIVE engine connection (on the client engine) whose far end is a {@link RawPeer} that
     * answers the Negotiate Request with {@code granted} credits; returns once negotiated.
     */
    RawSession rawServer(int granted, Peer subject) throws Exception {
        RawPeer raw = fabric.rawPeer();
        raw.receiveSize(8192);
        InetSocketAddress at = raw.listen(new InetSocketAddress(raw.provider().address(), 0));
        CompletableFuture<SmbDirectConnection> f = client.connect(at, Duration.ofSeconds(20), subject)
                .toCompletableFuture();
        settle();
        raw.awaitMessages(1, Duration.ofSeconds(30));
        raw.send(negotiateResponse(granted, 1364, 8192, 1 << 20));
        SmbDirectConnection c = await(f, "negotiation with the raw peer");
        subject.connection.complete(c);
        settle();
        return new RawSession(raw, c);
    }

    /** A raw peer connected to the server engine's listener, nothing sent yet. */
    RawPeer rawClient() throws Exception {
        InetSocketAddress at = listen();
        RawPeer raw = fabric.rawPeer();
        raw.receiveSize(8192);
        raw.connect(at, new byte[0]);
        settle();
        return raw;
    }

    /** A connection and the raw peer at its far end. */
    record RawSession(RawPeer raw, SmbDirectConnection connection) {
    }

    static byte[] negotiateResponse(int granted, long preferredSend, long maxReceive, long maxFragmented) {
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        NegotiateResponse.encode(b, 0, 0x100, 0x100, 0x100, 255, granted, 0, 1 << 20, preferredSend, maxReceive,
                maxFragmented);
        return b.array();
    }

    static byte[] negotiateRequest(int credits, long preferredSend, long maxReceive, long maxFragmented) {
        ByteBuffer b = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
        NegotiateRequest.encode(b, 0, 0x100, 0x100, credits, preferredSend, maxReceive, maxFragmented);
        return b.array();
    }

    /** A Data Transfer message with the recommended layout (payload at 24) and pattern bytes. */
    static byte[] dataTransfer(int granted, long remaining, int length) {
        ByteBuffer b = ByteBuffer.allocate(length == 0 ? 20 : 24 + length).order(ByteOrder.LITTLE_ENDIAN);
        DataTransfer.encodeHeader(b, 0, 10, granted, 0, remaining, length == 0 ? 0 : 24, length);
        for (int i = 0; i < length; i++) {
            b.put(24 + i, (byte) (i * 7));
        }
        return b.array();
    }

    static ByteBuffer message(int length, long seed) {
        ByteBuffer b = ByteBuffer.allocate(length);
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.put(i, (byte) x);
        }
        return b;
    }

    static long crc(ByteBuffer b) {
        CRC32C c = new CRC32C();
        c.update(b.duplicate());
        return c.getValue();
    }

    /** One end of a connection as the upper layer sees it: records messages (checksums) and the close. */
    static final class Peer implements ConnectionHandler {
        final String name;
        final CompletableFuture<SmbDirectConnection> connection = new CompletableFuture<>();
        final List<Long> checksums = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> lengths = Collections.synchronizedList(new ArrayList<>());
        final List<CloseReason> disconnects = new CopyOnWriteArrayList<>();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
        volatile Throwable callbackFailure;

        Peer(String name) {
            this.name = name;
        }

        SmbDirectConnection c() {
            return connection.join();
        }

        @Override
        public void onMessage(SmbDirectConnection conn, ReceivedMessage m) {
            try {
                assertEquals(m.length(), m.payload().remaining());
                assertTrue(disconnects.isEmpty(), "message after onDisconnected");
                checksums.add(crc(m.payload()));
                lengths.add(m.length());
            } catch (Throwable t) {
                callbackFailure = t;
            }
        }

        @Override
        public void onDisconnected(SmbDirectConnection conn, CloseReason reason) {
            disconnects.add(reason);
            closed.complete(reason);
        }

        int received() {
            return checksums.size();
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
