package example.smbserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.standalone.CallbackFailure;
import smbdirect.standalone.StandaloneTransport;

/**
 * Two transports on the mock fabric in one JVM, in plain Java without the test kit: wall-clock
 * time, the fabric's completion threads. The README's "Without OSGi" quotes the code between the
 * {@code // tag::} and {@code // end::} markers ({@code ReadmeExampleTest} checks it).
 */
class TwoTransportsInOneJvmTest {

    /** Keeps what it was sent and how its connection ended; an echoing one sends every message back. */
    static class Peer implements ConnectionHandler {
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        private final boolean echo;

        Peer(boolean echo) {
            this.echo = echo;
        }

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
            byte[] copy = new byte[m.length()];
            m.payload().get(copy); // the payload is valid only during this call
            received.add(new String(copy, StandardCharsets.UTF_8));
            if (echo) {
                c.send(ByteBuffer.wrap(copy), (msg, failure) -> { });
            }
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
            received.add("closed: " + reason.kind());
        }
    }

    @Test
    void aServerAndAClientTransportTalkOverTheMockFabric() throws Exception {
        Peer server = new Peer(true);
        Peer client = new Peer(false); // only the server echoes: two echoes would bounce "hello" until the close
        // tag::two-transports[]
        List<CallbackFailure> failures = new CopyOnWriteArrayList<>(); // handlers of ours that threw
        try (MockFabric fabric = MockFabric.builder().mode(DeliveryMode.THREADED).build()) {
            MockProvider serverDevice = fabric.provider("server"); // a device with its own address, 10.0.x.y
            MockProvider clientDevice = fabric.provider("client");
            try (StandaloneTransport serverSide = StandaloneTransport.builder(serverDevice)
                            .callbackFailures(failures::add).build();
                    StandaloneTransport clientSide = StandaloneTransport.builder(clientDevice)
                            .callbackFailures(failures::add).build()) {
                SmbDirectListener listener = serverSide.listen(new InetSocketAddress(serverDevice.address(), 445),
                        connection -> server);
                SmbDirectConnection connection = clientSide.connect(listener.localAddress(), Duration.ofSeconds(5),
                        client).toCompletableFuture().get(5, TimeUnit.SECONDS);
                connection.send(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)))
                        .toCompletableFuture().get(5, TimeUnit.SECONDS);
                assertEquals("hello", server.received.poll(5, TimeUnit.SECONDS));
                assertEquals("hello", client.received.poll(5, TimeUnit.SECONDS)); // the echo
            } // each transport closes its listeners and connections (SHUTDOWN) and its timer thread
        }
        assertEquals(List.of(), failures); // a handler that threw (an assertion in onMessage) fails the test
        // end::two-transports[]
        assertEquals("closed: SHUTDOWN", client.received.poll(5, TimeUnit.SECONDS));
        String serverEnd = server.received.poll(5, TimeUnit.SECONDS); // the client's transport closed first
        assertTrue(serverEnd != null && serverEnd.startsWith("closed: "), "the server's connection ended: " + serverEnd);
        assertEquals(0, client.received.size() + server.received.size(), "nothing arrived after the close");
    }

    @Test
    void aHandlerThatThrowsIsReportedToTheTestThroughCallbackFailures() throws Exception {
        BlockingQueue<CallbackFailure> failures = new LinkedBlockingQueue<>();
        Peer client = new Peer(false);
        try (MockFabric fabric = MockFabric.builder().mode(DeliveryMode.THREADED).build()) {
            MockProvider serverDevice = fabric.provider("server");
            MockProvider clientDevice = fabric.provider("client");
            try (StandaloneTransport serverSide = StandaloneTransport.builder(serverDevice)
                            .callbackFailures(failures::add).build();
                    StandaloneTransport clientSide = StandaloneTransport.builder(clientDevice)
                            .callbackFailures(failures::add).build()) {
                SmbDirectListener listener = serverSide.listen(new InetSocketAddress(serverDevice.address(), 445),
                        connection -> new Peer(false) {
                            @Override
                            public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
                                assertEquals(2, m.length(), "the server's assertion");
                            }
                        });
                SmbDirectConnection connection = clientSide.connect(listener.localAddress(), Duration.ofSeconds(5),
                        client).toCompletableFuture().get(5, TimeUnit.SECONDS);
                connection.send(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)))
                        .toCompletableFuture().get(5, TimeUnit.SECONDS);
                CallbackFailure reported = failures.poll(5, TimeUnit.SECONDS);
                assertTrue(reported != null, "the failed assertion was reported");
                assertEquals("ConnectionHandler.onMessage", reported.callback());
                assertTrue(reported.failure() instanceof AssertionError, reported.toString());
                assertTrue(reported.failure().getMessage().startsWith("the server's assertion"), reported.toString());
                String clientEnd = client.received.poll(5, TimeUnit.SECONDS);
                assertTrue(clientEnd != null && clientEnd.startsWith("closed: "), "the client's connection ended: "
                        + clientEnd);
            }
        }
        assertEquals(List.of(), List.copyOf(failures), "one failure, reported once");
    }
}
