package smbdirect.rdma.verbs.internal.loopback;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

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
import smbdirect.rdma.verbs.internal.VerbsRdmaProvider;

/**
 * The SMB Direct engine end to end over two verbs providers on the loopback device, in one JVM
 * (the hardware profile's {@code VerbsHardwareEngineTest} does the same between two processes on
 * RNICs): negotiation, a 500-byte message, a 64 KiB message (fragmented), a 1 MiB RDMA Read and
 * RDMA Write of a registered buffer served by the peer, byte for byte, and a clean close (the
 * closing side sees LOCAL_CLOSE, the other PEER_DISCONNECT).
 */
class VerbsLoopbackEngineTest {

    private static final long TIMEOUT_SECONDS = 20;
    private static final int RDMA_SIZE = 1024 * 1024;
    private static final byte ECHO = 'E';
    private static final byte RDMA = 'R';
    private static final byte DONE = 'D';
    private static final byte FAILED = 'F';

    /** Messages (copied out of the callback) and the close reason. */
    static final class Client implements ConnectionHandler {
        final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            byte[] copy = new byte[message.payload().remaining()];
            message.payload().duplicate().get(copy);
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

    /**
     * Echoes 'E' messages; for an 'R' message RDMA-reads {@link #RDMA_SIZE} bytes from the client's
     * descriptors, XORs them with 0x5A and RDMA-writes them right after, then answers 'D'.
     */
    static final class Server implements ConnectionHandler {
        final List<Throwable> failures = new ArrayList<>();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer copy = ByteBuffer.allocate(message.payload().remaining());
            copy.put(message.payload().duplicate()).flip();
            if (copy.get(0) == ECHO) {
                reply(connection, copy);
            } else if (copy.get(0) == RDMA) {
                copy.position(1);
                int count = copy.getInt();
                serve(connection, BufferDescriptor.decodeList(copy, count));
            } else {
                fail(connection, new AssertionError("unexpected message type " + copy.get(0)));
            }
        }

        private void serve(SmbDirectConnection connection, List<BufferDescriptor> remote) {
            connection.register(ByteBuffer.allocateDirect(RDMA_SIZE), RemoteAccess.NONE).whenComplete((local, x) -> {
                if (x != null) {
                    fail(connection, x);
                    return;
                }
                connection.rdmaRead(local, 0, RDMA_SIZE, remote, 0, (read, rx) -> {
                    if (rx != null) {
                        fail(connection, rx);
                        return;
                    }
                    ByteBuffer b = local.buffer();
                    for (int i = 0; i < RDMA_SIZE; i++) {
                        b.put(i, (byte) (b.get(i) ^ 0x5A));
                    }
                    connection.rdmaWrite(local, 0, RDMA_SIZE, remote, RDMA_SIZE, (written, wx) -> {
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
            reply(connection, ByteBuffer.wrap((FAILED + x.toString()).getBytes(StandardCharsets.UTF_8)));
        }

        private synchronized void record(Throwable x) {
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

    private static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void engineNegotiatesSendsFragmentedMessagesServesOneMebibyteRdmaAndClosesCleanly() throws Exception {
        LoopbackNetwork network = new LoopbackNetwork();
        LoopbackBackend clientDevice = network.attach("10.9.2.1");
        LoopbackBackend serverDevice = network.attach("10.9.2.2");
        VerbsRdmaProvider clientProvider = VerbsTckFixture.provider(VerbsTckFixture.settings(false, false), clientDevice);
        VerbsRdmaProvider serverProvider = VerbsTckFixture.provider(VerbsTckFixture.settings(false, false), serverDevice);
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        SmbDirectEngine serverEngine = new SmbDirectEngine(serverProvider, TransportSettings.DEFAULTS,
                new ExecutorScheduler(timers));
        SmbDirectEngine clientEngine = new SmbDirectEngine(clientProvider, TransportSettings.DEFAULTS,
                new ExecutorScheduler(timers));
        InetSocketAddress address = new InetSocketAddress(serverDevice.address(), 445);
        Server server = new Server();
        SmbDirectListener listener = serverEngine.listen(address, connection -> server);
        try {
            Client client = new Client();
            SmbDirectConnection connection = get(clientEngine.connect(address, Duration.ofSeconds(10), client));

            for (int size : new int[] {500, 64 * 1024}) {
                byte[] message = new byte[size];
                for (int i = 0; i < size; i++) {
                    message[i] = (byte) (i * 13 + size);
                }
                message[0] = ECHO;
                get(connection.send(ByteBuffer.wrap(message)));
                assertArrayEquals(message, client.next(), "echo of the " + size + " byte message");
            }

            RegisteredBuffer region = get(connection.register(ByteBuffer.allocateDirect(2 * RDMA_SIZE),
                    RemoteAccess.READ_WRITE));
            ByteBuffer memory = region.buffer();
            for (int i = 0; i < RDMA_SIZE; i++) {
                memory.put(i, (byte) (i * 31 + 7));
            }
            List<BufferDescriptor> descriptors = region.descriptors();
            ByteBuffer request = ByteBuffer.allocate(5 + descriptors.size() * BufferDescriptor.BYTES);
            request.put(RDMA).putInt(descriptors.size());
            for (BufferDescriptor d : descriptors) {
                d.encode(request);
            }
            get(connection.send(request.flip()));
            byte[] answer = client.next();
            assertEquals(DONE, answer[0], () -> "server answered " + new String(answer, StandardCharsets.UTF_8));
            ByteBuffer counts = ByteBuffer.wrap(answer, 1, 16);
            assertEquals(RDMA_SIZE, counts.getLong(), "bytes the server RDMA-read");
            assertEquals(RDMA_SIZE, counts.getLong(), "bytes the server RDMA-wrote");
            byte[] expected = new byte[RDMA_SIZE];
            for (int i = 0; i < RDMA_SIZE; i++) {
                expected[i] = (byte) ((i * 31 + 7) ^ 0x5A);
            }
            byte[] written = new byte[RDMA_SIZE];
            memory.get(RDMA_SIZE, written);
            assertArrayEquals(expected, written, "the second MiB as the server wrote it");
            get(region.deregister());

            get(connection.close());
            assertEquals(CloseReason.Kind.LOCAL_CLOSE, client.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).kind());
            assertEquals(CloseReason.Kind.PEER_DISCONNECT, server.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).kind());
            assertFalse(connection.isOpen());
            assertEquals(List.of(), server.failures());
            assertEquals(List.of(), List.copyOf(client.messages), "no message after the RDMA answer");
        } finally {
            get(listener.close());
            get(clientEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
            get(serverEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test ends")));
            clientProvider.shutdown();
            serverProvider.shutdown();
            timers.shutdownNow();
        }
        network.assertNoLeaks();
    }
}
