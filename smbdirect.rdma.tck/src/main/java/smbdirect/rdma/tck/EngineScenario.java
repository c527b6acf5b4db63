package smbdirect.rdma.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;

/**
 * An SMB Direct engine scenario over any RDMA provider, shared by the providers' end-to-end tests
 * (the verbs provider between two processes on RNICs and on its loopback device, the iWARP provider
 * in one JVM and between two JVMs), over the public API only: the tests set up the engines and the
 * connection, this class holds both sides' handlers, the client's steps and the outcome checks.
 *
 * <p>The server ({@link EchoServer}) echoes every message whose first byte is {@code 'E'}. The
 * client ({@link #runClient}) sends one such message of each configured size (those above the
 * negotiated maximum are fragmented by [MS-SMBD] 3.1.5.1) and checks each echo byte for byte. It
 * then registers a buffer of twice the RDMA size open for remote read and write, fills the first
 * half with a pattern and sends its descriptors in an {@code 'R'} message; the server RDMA-reads
 * the first half into its own registered buffer, XORs every byte with 0x5A, RDMA-writes the result
 * into the second half and answers {@code 'D'} with the byte counts (or {@code 'F'} and the failure).
 * The client checks the counts and the second half, deregisters, closes, and requires LOCAL_CLOSE
 * and no further message; {@link #checkServer} requires PEER_DISCONNECT, a closed connection and no
 * server-side failure.
 */
public final class EngineScenario {

    static final byte ECHO = 'E';
    static final byte RDMA = 'R';
    static final byte DONE = 'D';
    static final byte FAILED = 'F';

    private final int[] messageSizes;
    private final int rdmaSize;
    private final long timeoutSeconds;

    /**
     * @param messageSizes the sizes of the echoed messages, in the order they are sent
     * @param rdmaSize the bytes the server RDMA-reads and then RDMA-writes
     * @param timeoutSeconds how long each step (a completion, a message, a close) may take
     */
    public EngineScenario(int[] messageSizes, int rdmaSize, long timeoutSeconds) {
        this.messageSizes = messageSizes.clone();
        this.rdmaSize = rdmaSize;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** A new client-side handler; hand it to {@code connect} and then to {@link #runClient}. */
    public Recorder recorder() {
        return new Recorder(timeoutSeconds);
    }

    /** A new server-side handler for one connection; check it with {@link #checkServer}. */
    public EchoServer server() {
        return new EchoServer(rdmaSize);
    }

    /** Messages (copied out of the callback) and the close reason, as queues the test thread reads. */
    public static final class Recorder implements ConnectionHandler {
        private final long timeoutSeconds;
        final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        Recorder(long timeoutSeconds) {
            this.timeoutSeconds = timeoutSeconds;
        }

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
            byte[] m = messages.poll(timeoutSeconds, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("no message within " + timeoutSeconds + " s");
            }
            return m;
        }
    }

    /**
     * Server side: echoes 'E' messages; for an 'R' message RDMA-reads the RDMA size from the
     * client's descriptors, XORs it with 0x5A and RDMA-writes it right after, then answers 'D'.
     * Failures are answered to the client ('F') and recorded.
     */
    public static final class EchoServer implements ConnectionHandler {
        private final int rdmaSize;
        private final List<Throwable> failures = new ArrayList<>();
        private volatile SmbDirectConnection disconnected;
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        EchoServer(int rdmaSize) {
            this.rdmaSize = rdmaSize;
        }

        /** Completes with the connection's close reason. */
        public CompletableFuture<CloseReason> closed() {
            return closed;
        }

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
            connection.register(ByteBuffer.allocateDirect(rdmaSize), RemoteAccess.LOCAL_ONLY).whenComplete((local, x) -> {
                if (x != null) {
                    fail(connection, x);
                    return;
                }
                connection.rdmaRead(local, 0, rdmaSize, remote, 0, (read, rx) -> {
                    if (rx != null) {
                        fail(connection, rx);
                        return;
                    }
                    ByteBuffer b = local.buffer();
                    for (int i = 0; i < rdmaSize; i++) {
                        b.put(i, (byte) (b.get(i) ^ 0x5A));
                    }
                    connection.rdmaWrite(local, 0, rdmaSize, remote, rdmaSize, (written, wx) -> {
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
            disconnected = connection;
            closed.complete(reason);
        }
    }

    /**
     * The client's side of the scenario on an established connection whose handler is
     * {@code client}: the echoes, the RDMA round trip, the close and its outcome.
     */
    public void runClient(SmbDirectConnection connection, Recorder client) throws Exception {
        for (int size : messageSizes) {
            byte[] message = new byte[size];
            for (int i = 0; i < size; i++) {
                message[i] = (byte) (i * 13 + size);
            }
            message[0] = ECHO;
            get(connection.send(ByteBuffer.wrap(message)));
            assertArrayEquals(message, client.next(), "echo of the " + size + " byte message");
        }

        RegisteredBuffer region = get(connection.register(ByteBuffer.allocateDirect(2 * rdmaSize),
                RemoteAccess.READ_WRITE));
        ByteBuffer memory = region.buffer();
        for (int i = 0; i < rdmaSize; i++) {
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
        assertEquals(rdmaSize, counts.getLong(), "bytes the server RDMA-read");
        assertEquals(rdmaSize, counts.getLong(), "bytes the server RDMA-wrote");
        byte[] expected = new byte[rdmaSize];
        for (int i = 0; i < rdmaSize; i++) {
            expected[i] = (byte) ((i * 31 + 7) ^ 0x5A);
        }
        byte[] written = new byte[rdmaSize];
        memory.get(rdmaSize, written);
        assertArrayEquals(expected, written, "the second half of the buffer as the server wrote it");
        get(region.deregister());

        get(connection.close());
        CloseReason reason = client.closed.get(timeoutSeconds, TimeUnit.SECONDS);
        assertEquals(CloseReason.Kind.LOCAL_CLOSE, reason.kind(), reason.toString());
        assertFalse(connection.isOpen());
        assertEquals(List.of(), List.copyOf(client.messages), "no message after the RDMA answer");
    }

    /**
     * The server's outcome once the client has closed: PEER_DISCONNECT (waited for at most the
     * step timeout), the connection closed, and no failure on the server side.
     */
    public void checkServer(EchoServer server) throws Exception {
        CloseReason reason = server.closed.get(timeoutSeconds, TimeUnit.SECONDS);
        assertEquals(List.of(), server.failures());
        assertEquals(CloseReason.Kind.PEER_DISCONNECT, reason.kind(), reason.toString());
        SmbDirectConnection connection = server.disconnected;
        assertNotNull(connection, "the connection the server was told of the disconnect on");
        assertFalse(connection.isOpen());
    }

    /** Waits for {@code stage} for at most the step timeout. */
    public <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(timeoutSeconds, TimeUnit.SECONDS);
    }
}
