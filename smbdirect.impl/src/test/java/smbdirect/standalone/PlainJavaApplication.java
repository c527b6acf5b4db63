package smbdirect.standalone;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.TransportDTO;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * A plain Java application on the transport, run by {@link PlainClassPathTest} in a JVM of its own
 * whose class path is exactly the runtime dependencies smbdirect.impl declares plus the mock
 * provider: a server and a client transport on a threaded mock fabric (wall-clock timers on the
 * transports' own timer threads); the client registers a buffer and sends its descriptor, the
 * server RDMA-Reads it, RDMA-Writes it back transformed and answers; both sides read their DTOs and
 * close. Prints one line per checked step on standard output (this is command output) and exits
 * with 0 only when every step held.
 */
public final class PlainJavaApplication {

    static final int SIZE = 65536;

    private PlainJavaApplication() {
    }

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("org.osgi.framework.Bundle");
            fail("an OSGi framework API is on the class path");
        } catch (ClassNotFoundException expected) {
            System.out.println("no OSGi framework on the class path");
        }
        try (MockFabric fabric = MockFabric.builder().name("plain").mode(DeliveryMode.THREADED).build()) {
            MockProvider serverDevice = fabric.provider("server");
            MockProvider clientDevice = fabric.provider("client");
            StandaloneTransport server = StandaloneTransport.builder(serverDevice)
                    .setting("receiveCreditMax", 32).setting("keepaliveIntervalSeconds", "30").build();
            StandaloneTransport client = StandaloneTransport.builder(clientDevice).build();
            try {
                StandaloneTransport.builder(clientDevice).setting("maxReceiveSize", 64).build();
                fail("maxReceiveSize=64 was accepted");
            } catch (IllegalArgumentException refused) {
                System.out.println("refused: " + refused.getMessage());
            }

            SmbDirectListener listener = server.listen(new InetSocketAddress(serverDevice.address(), 0),
                    connection -> new RdmaServer());
            CompletableFuture<byte[]> reply = new CompletableFuture<>();
            SmbDirectConnection c = client.connect(listener.localAddress(), Duration.ofSeconds(30),
                    new ConnectionHandler() {
                        @Override
                        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
                            byte[] b = new byte[message.length()];
                            message.payload().duplicate().get(b);
                            reply.complete(b);
                        }

                        @Override
                        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
                            reply.completeExceptionally(new IllegalStateException("closed: " + reason));
                        }
                    }).toCompletableFuture().get(30, TimeUnit.SECONDS);
            System.out.println("active role: negotiated " + c.parameters());

            ByteBuffer memory = ByteBuffer.allocateDirect(SIZE);
            for (int i = 0; i < SIZE; i++) {
                memory.put(i, (byte) i);
            }
            RegisteredBuffer shared = c.register(memory, RemoteAccess.READ_WRITE).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS);
            ByteBuffer request = ByteBuffer.allocate(16 * shared.descriptors().size());
            for (BufferDescriptor d : shared.descriptors()) {
                d.encode(request);
            }
            c.send(request.flip()).toCompletableFuture().get(30, TimeUnit.SECONDS);
            String answer = new String(reply.get(30, TimeUnit.SECONDS), java.nio.charset.StandardCharsets.US_ASCII);
            if (!answer.equals("read " + SIZE + " wrote " + SIZE)) {
                fail("server answered " + answer);
            }
            for (int i = 0; i < SIZE; i++) {
                if (memory.get(i) != (byte) ~i) {
                    fail("byte " + i + " of the buffer the server wrote is " + memory.get(i));
                }
            }
            System.out.println("passive role: " + answer + ", every byte checked");

            TransportDTO dto = server.getTransportDTO();
            if (dto.connections.length != 1 || dto.listeners.length != 1) {
                fail("server DTO shows " + dto.connections.length + " connections, " + dto.listeners.length
                        + " listeners");
            }
            System.out.println("DTO: provider " + dto.providers[0].name + ", " + dto.connections.length
                    + " connection, settings receiveCreditMax=" + dto.settings.receiveCreditMax);

            client.close();
            server.close();
            if (c.isOpen()) {
                fail("the client connection is still open after close");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().equals("smbdirect-timer") && t.isAlive())) {
                if (System.nanoTime() > deadline) {
                    fail("a timer thread is still alive after close");
                }
                Thread.onSpinWait();
            }
            System.out.println("closed: connections released, timer threads stopped");
        }
        System.out.println("PLAIN CLASS PATH OK");
    }

    private static void fail(String why) {
        System.out.println("FAILED: " + why);
        System.exit(1);
    }

    /** The server's handler: RDMA Read of the client's buffer, RDMA Write of its complement back, answer. */
    private static final class RdmaServer implements ConnectionHandler {
        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer p = message.payload().duplicate();
            List<BufferDescriptor> remote = BufferDescriptor.decodeList(p, p.remaining() / 16);
            ByteBuffer local = ByteBuffer.allocateDirect(SIZE);
            connection.register(local, RemoteAccess.LOCAL_ONLY).thenAccept(buffer -> connection.rdmaRead(buffer, 0, SIZE,
                    remote, 0, (read, failure) -> {
                        if (failure != null) {
                            connection.close();
                            return;
                        }
                        for (int i = 0; i < SIZE; i++) {
                            local.put(i, (byte) ~local.get(i));
                        }
                        connection.rdmaWrite(buffer, 0, SIZE, remote, 0, (written, f2) -> {
                            if (f2 != null) {
                                connection.close();
                                return;
                            }
                            connection.send(ByteBuffer.wrap(("read " + read + " wrote " + written)
                                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII)), (m, f3) -> { });
                        });
                    }));
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
        }
    }
}
