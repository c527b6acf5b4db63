package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;

/**
 * The SMB Direct engine end to end over the verbs provider between two processes on real RDMA
 * hardware or soft-RoCE/siw (profile {@code rdma-hardware}, tag {@code rdma-hardware}; excluded
 * from the default build). Same properties as {@link VerbsHardwarePingPongTest}
 * ({@code smbdirect.verbs.role}, {@code smbdirect.verbs.server}, {@code smbdirect.verbs.device},
 * {@code smbdirect.verbs.bind}, {@code smbdirect.verbs.library.path}).
 *
 * <p>Over the public API only ({@code smbdirect.api}, {@link SmbDirectEngine}): the server listens
 * and echoes every message whose first byte is {@code 'E'}. The client sends 500 B, 64 KiB and
 * 1 MiB messages (the larger ones are fragmented by [MS-SMBD] 3.1.5.1) and checks each echo byte
 * for byte. It then registers a 128 KiB buffer open for remote read and write, fills the first
 * half with a pattern and sends its descriptors in an {@code 'R'} message; the server RDMA-reads
 * the first half into its own registered buffer, XORs every byte with 0x5A, RDMA-writes the result
 * into the second half and answers {@code 'D'} with the byte counts. The client checks the second
 * half, closes, and requires LOCAL_CLOSE; the server requires PEER_DISCONNECT.
 *
 * <p>The client retries the connection for up to a minute, so it may start before the server
 * listens (the profile runs this class after {@link VerbsHardwarePingPongTest}).
 */
@Tag("rdma-hardware")
class VerbsHardwareEngineTest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsHardwareEngineTest.class);
    private static final long TIMEOUT_SECONDS = 60;
    private static final int REGION = 64 * 1024;
    private static final int[] MESSAGE_SIZES = {500, 64 * 1024, 1024 * 1024};
    private static final byte ECHO = 'E';
    private static final byte RDMA = 'R';
    private static final byte DONE = 'D';
    private static final byte FAILED = 'F';

    /** Messages (copied out of the callback) and the close reason, as queues the test thread reads. */
    static final class Recorder implements ConnectionHandler {
        final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer payload = message.payload();
            byte[] copy = new byte[payload.remaining()];
            payload.duplicate().get(copy);
            messages.add(copy);
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            closed.complete(reason);
        }

        byte[] next() throws InterruptedException {
            byte[] m = messages.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("no message within " + TIMEOUT_SECONDS + " s");
            }
            return m;
        }
    }

    /** Server side: echoes, serves RDMA requests; failures are answered to the client and recorded. */
    static final class EchoServer implements ConnectionHandler {
        final List<Throwable> failures = new ArrayList<>();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer payload = message.payload();
            ByteBuffer copy = ByteBuffer.allocate(payload.remaining());
            copy.put(payload.duplicate()).flip();
            if (copy.get(0) == ECHO) {
                reply(connection, copy);
            } else if (copy.get(0) == RDMA) {
                copy.position(1);
                int count = copy.getInt();
                serveRdma(connection, BufferDescriptor.decodeList(copy, count));
            } else {
                fail(connection, new AssertionError("unexpected message type " + copy.get(0)));
            }
        }

        private void serveRdma(SmbDirectConnection connection, List<BufferDescriptor> remote) {
            connection.register(ByteBuffer.allocateDirect(REGION), RemoteAccess.NONE).whenComplete((local, x) -> {
                if (x != null) {
                    fail(connection, x);
                    return;
                }
                connection.rdmaRead(local, 0, REGION, remote, 0, (read, rx) -> {
                    if (rx != null) {
                        fail(connection, rx);
                        return;
                    }
                    ByteBuffer b = local.buffer();
                    for (int i = 0; i < REGION; i++) {
                        b.put(i, (byte) (b.get(i) ^ 0x5A));
                    }
                    connection.rdmaWrite(local, 0, REGION, remote, REGION, (written, wx) -> {
                        if (wx != null) {
                            fail(connection, wx);
                            return;
                        }
                        local.deregister();
                        reply(connection, ByteBuffer.allocate(17).put(DONE).putLong(read).putLong(written).flip());
                    });
                });
            });
        }

        private void reply(SmbDirectConnection connection, ByteBuffer message) {
            connection.send(message, (m, x) -> {
                if (x != null) {
                    record(x);
                }
            });
        }

        private void fail(SmbDirectConnection connection, Throwable x) {
            record(x);
            reply(connection, ByteBuffer.wrap((FAILED + x.toString()).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }

        private synchronized void record(Throwable x) {
            LOG.error("server side failed", x);
            failures.add(x);
        }

        synchronized List<Throwable> failures() {
            return List.copyOf(failures);
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            closed.complete(reason);
        }
    }

    @Test
    void engineEchoesFragmentedMessagesAndServesRdmaReadAndWriteBetweenTwoProcesses() throws Exception {
        String role = System.getProperty("smbdirect.verbs.role", "");
        if (role.equals("server")) {
            runServer();
        } else if (role.equals("client")) {
            runClient();
        } else {
            throw new IllegalArgumentException("-Dsmbdirect.verbs.role=server|client is required, got '" + role + "'");
        }
    }

    private static void runServer() throws Exception {
        InetSocketAddress address = VerbsHardwarePingPongTest.server();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(address.getAddress().getHostAddress());
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        EchoServer server = new EchoServer();
        CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
        SmbDirectListener listener = engine.listen(address, connection -> {
            if (!accepted.complete(connection)) {
                return null;
            }
            return server;
        });
        try {
            SmbDirectConnection connection = accepted.get(TIMEOUT_SECONDS * 5, TimeUnit.SECONDS);
            LOG.info("accepted {} with {}", connection.peerAddress(), connection.parameters());
            CloseReason reason = server.closed.get(TIMEOUT_SECONDS * 2, TimeUnit.SECONDS);
            assertEquals(List.of(), server.failures());
            assertEquals(CloseReason.Kind.PEER_DISCONNECT, reason.kind(), reason.toString());
            assertTrue(!connection.isOpen());
        } finally {
            listener.close().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends"))
                    .toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            provider.shutdown();
            timers.shutdownNow();
        }
    }

    private static void runClient() throws Exception {
        InetSocketAddress address = VerbsHardwarePingPongTest.server();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(System.getProperty("smbdirect.verbs.bind", ""));
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        try {
            Connected connected = connect(engine, address);
            SmbDirectConnection connection = connected.connection();
            Recorder client = connected.handler();
            LOG.info("connected to {} with {}", connection.peerAddress(), connection.parameters());

            for (int size : MESSAGE_SIZES) {
                byte[] message = new byte[size];
                for (int i = 0; i < size; i++) {
                    message[i] = (byte) (i * 13 + size);
                }
                message[0] = ECHO;
                connection.send(ByteBuffer.wrap(message)).toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertArrayEquals(message, client.next(), "echo of the " + size + " byte message");
            }

            RegisteredBuffer region = connection.register(ByteBuffer.allocateDirect(2 * REGION), RemoteAccess.READ_WRITE)
                    .toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            ByteBuffer memory = region.buffer();
            for (int i = 0; i < REGION; i++) {
                memory.put(i, (byte) (i * 31 + 7));
            }
            List<BufferDescriptor> descriptors = region.descriptors();
            ByteBuffer request = ByteBuffer.allocate(5 + descriptors.size() * BufferDescriptor.BYTES);
            request.put(RDMA).putInt(descriptors.size());
            for (BufferDescriptor d : descriptors) {
                d.encode(request);
            }
            connection.send(request.flip()).toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            byte[] answer = client.next();
            assertEquals(DONE, answer[0], () -> "server answered " + new String(answer,
                    java.nio.charset.StandardCharsets.UTF_8));
            ByteBuffer counts = ByteBuffer.wrap(answer, 1, 16);
            assertEquals(REGION, counts.getLong(), "bytes the server RDMA-read");
            assertEquals(REGION, counts.getLong(), "bytes the server RDMA-wrote");
            for (int i = 0; i < REGION; i++) {
                assertEquals((byte) ((i * 31 + 7) ^ 0x5A), memory.get(REGION + i), "byte " + i + " written by the server");
            }
            region.deregister().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);

            connection.close().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            CloseReason reason = client.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertEquals(CloseReason.Kind.LOCAL_CLOSE, reason.kind(), reason.toString());
            assertTrue(!connection.isOpen());
            assertEquals(List.of(), List.copyOf(client.messages), "no message after the RDMA answer");
        } finally {
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends"))
                    .toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            provider.shutdown();
            timers.shutdownNow();
        }
    }

    record Connected(SmbDirectConnection connection, Recorder handler) {
    }

    /**
     * Connects, retrying while the server is not yet listening (it may still run the ping-pong);
     * each attempt has its own handler, so a failed attempt's close reason is not mistaken for the
     * connection's.
     */
    private static Connected connect(SmbDirectEngine engine, InetSocketAddress address) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (true) {
            Recorder handler = new Recorder();
            try {
                return new Connected(engine.connect(address, Duration.ofSeconds(10), handler).toCompletableFuture()
                        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS), handler);
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                LOG.info("connect to {} failed ({}); retrying", address, e.getCause().toString());
                Thread.sleep(500);
            }
        }
    }
}
