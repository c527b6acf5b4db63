package smbdirect.rdma.iwarp.internal.wireshark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ConnectionParameters;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * One SMB Direct engine session over two iWARP providers on loopback, recorded so that a capture of
 * it can be judged: the settings of both sides, what each side sent (every upper-layer message, in
 * order), the registration the client advertised and the parameters both sides negotiated.
 *
 * <p>The client sends an echo request of {@link #SMALL} bytes, one of {@link #FRAGMENTED} bytes
 * (fragmented by [MS-SMBD] 3.1.5.4), then registers {@code 2 x rdmaSize} bytes for remote read and
 * write and sends their Buffer Descriptor V1 list ('R'). The server RDMA-reads the first half,
 * XORs it with 0x5A, RDMA-writes it into the second half and answers 'D' with Send with
 * Invalidate of the client's STag. The client checks every byte and closes.
 */
final class JudgedSession {

    static final int SMALL = 200;
    static final int FRAGMENTED = 3000;
    private static final long STEP_SECONDS = 20;

    final String name;
    final IwarpSettings clientProvider;
    final IwarpSettings serverProvider;
    final TransportSettings clientEngine;
    final TransportSettings serverEngine;
    final int rdmaSize;
    final List<byte[]> clientSent = Collections.synchronizedList(new ArrayList<>());
    final List<byte[]> serverSent = Collections.synchronizedList(new ArrayList<>());
    InetSocketAddress server;
    BufferDescriptor advertised;
    ConnectionParameters clientParameters;
    ConnectionParameters serverParameters;

    JudgedSession(String name, IwarpSettings clientProvider, IwarpSettings serverProvider,
            TransportSettings clientEngine, TransportSettings serverEngine, int rdmaSize) {
        this.name = name;
        this.clientProvider = clientProvider;
        this.serverProvider = serverProvider;
        this.clientEngine = clientEngine;
        this.serverEngine = serverEngine;
        this.rdmaSize = rdmaSize;
    }

    /** Runs the session against a server listening on {@code listen} (port 0: a free one). */
    void run(InetSocketAddress listen) throws Exception {
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try (IwarpProvider serverSide = IwarpProvider.open(name + "-server", serverProvider);
                IwarpProvider clientSide = IwarpProvider.open(name + "-client", clientProvider)) {
            SmbDirectEngine serverEngineInstance = new SmbDirectEngine(serverSide, serverEngine,
                    new ExecutorScheduler(timers));
            SmbDirectEngine clientEngineInstance = new SmbDirectEngine(clientSide, clientEngine,
                    new ExecutorScheduler(timers));
            Server handler = new Server();
            SmbDirectListener listener = serverEngineInstance.listen(listen, c -> {
                serverParameters = c.parameters();
                return handler;
            });
            server = listener.localAddress();
            Client client = new Client();
            SmbDirectConnection connection = get(clientEngineInstance.connect(server, Duration.ofSeconds(STEP_SECONDS),
                    client));
            clientParameters = connection.parameters();
            echo(connection, client, SMALL);
            echo(connection, client, FRAGMENTED);

            RegisteredBuffer region = get(connection.register(ByteBuffer.allocateDirect(2 * rdmaSize),
                    RemoteAccess.READ_WRITE));
            for (int i = 0; i < rdmaSize; i++) {
                region.buffer().put(i, (byte) (i * 31 + 7));
            }
            List<BufferDescriptor> descriptors = region.descriptors();
            assertEquals(1, descriptors.size(), "one descriptor for one iWARP registration");
            advertised = descriptors.get(0);
            ByteBuffer request = ByteBuffer.allocate(1 + BufferDescriptor.BYTES).put((byte) 'R');
            advertised.encode(request);
            send(connection, clientSent, request.flip());
            byte[] answer = client.next();
            assertEquals('D', answer[0], () -> "server answered " + new String(answer));
            for (int i = 0; i < rdmaSize; i++) {
                assertEquals((byte) ((i * 31 + 7) ^ 0x5A), region.buffer().get(rdmaSize + i), "written byte " + i);
            }
            get(region.deregister());
            get(connection.close());
            assertEquals(CloseReason.Kind.PEER_DISCONNECT,
                    handler.closed.get(STEP_SECONDS, TimeUnit.SECONDS).kind());
            assertEquals(List.of(), handler.failures);
            get(listener.close());
            get(clientEngineInstance.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "session ends")));
            get(serverEngineInstance.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "session ends")));
        } finally {
            timers.shutdownNow();
        }
    }

    private void echo(SmbDirectConnection connection, Client client, int size) throws Exception {
        byte[] message = new byte[size];
        for (int i = 0; i < size; i++) {
            message[i] = (byte) (i * 13 + size);
        }
        message[0] = 'E';
        send(connection, clientSent, ByteBuffer.wrap(message));
        assertArrayEquals(message, client.next(), "echo of " + size + " bytes");
    }

    private static void send(SmbDirectConnection connection, List<byte[]> record, ByteBuffer message)
            throws Exception {
        byte[] copy = new byte[message.remaining()];
        message.duplicate().get(copy);
        record.add(copy);
        get(connection.send(message));
    }

    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(STEP_SECONDS, TimeUnit.SECONDS);
    }

    /** The client's messages, copied out of the callback. */
    private static final class Client implements ConnectionHandler {
        final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer payload = message.payload();
            byte[] copy = new byte[payload.remaining()];
            payload.duplicate().get(copy);
            messages.add(copy);
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
        }

        byte[] next() throws InterruptedException {
            byte[] m = messages.poll(STEP_SECONDS, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("no message within " + STEP_SECONDS + " s");
            }
            return m;
        }
    }

    /** Echoes 'E' messages; serves 'R' with an RDMA Read, an RDMA Write and a Send with Invalidate. */
    private final class Server implements ConnectionHandler {
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
        final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer payload = message.payload();
            byte[] copy = new byte[payload.remaining()];
            payload.duplicate().get(copy);
            if (copy[0] == 'E') {
                reply(connection, copy, 0, false);
            } else if (copy[0] == 'R') {
                BufferDescriptor remote = BufferDescriptor.decode(ByteBuffer.wrap(copy, 1, BufferDescriptor.BYTES));
                serve(connection, remote);
            } else {
                failures.add(new AssertionError("unexpected message " + copy[0]));
            }
        }

        private void serve(SmbDirectConnection connection, BufferDescriptor remote) {
            connection.register(ByteBuffer.allocateDirect(rdmaSize), RemoteAccess.LOCAL_ONLY).whenComplete((local, x) -> {
                if (x != null) {
                    failures.add(x);
                    return;
                }
                connection.rdmaRead(local, 0, rdmaSize, List.of(remote), 0, (read, rx) -> {
                    if (rx != null) {
                        failures.add(rx);
                        return;
                    }
                    for (int i = 0; i < rdmaSize; i++) {
                        local.buffer().put(i, (byte) (local.buffer().get(i) ^ 0x5A));
                    }
                    connection.rdmaWrite(local, 0, rdmaSize, List.of(remote), rdmaSize, (written, wx) -> {
                        if (wx != null) {
                            failures.add(wx);
                            return;
                        }
                        local.deregister();
                        reply(connection, new byte[] {'D'}, remote.token(), true);
                    });
                });
            });
        }

        private void reply(SmbDirectConnection connection, byte[] message, int token, boolean invalidate) {
            serverSent.add(message);
            SendCompletion done = (m, failure) -> {
                if (failure != null) {
                    failures.add(failure);
                }
            };
            if (invalidate) {
                connection.sendWithInvalidate(ByteBuffer.wrap(message), token, done);
            } else {
                connection.send(ByteBuffer.wrap(message), done);
            }
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            closed.complete(reason);
        }
    }
}
