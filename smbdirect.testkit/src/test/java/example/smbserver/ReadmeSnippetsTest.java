package example.smbserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.standalone.StandaloneTransport;
import smbdirect.testkit.RecordingHandler;
import smbdirect.testkit.SmbDirectTestKit;

/**
 * The README's short snippets ("Using the transport", "Without OSGi"), compiled and run: the README
 * quotes the code between the {@code // tag::} and {@code // end::} markers verbatim
 * ({@code ReadmeExampleTest} checks it, and that every {@code java} block of the README is such a
 * region).
 */
class ReadmeSnippetsTest {

    // tag::using-the-transport[]
    /** transport: the SmbDirectTransport service (@Reference in a component) or a StandaloneTransport. */
    CompletionStage<Void> start(SmbDirectTransport transport, ConnectionHandler handler, ByteBuffer smb2Negotiate)
            throws SmbDirectException { // from listen: the address cannot be bound, no provider serves it
        // server (passive role): each negotiated connection is offered to the accept handler
        SmbDirectListener listener = transport.listen(new InetSocketAddress("10.0.0.1", 445),
                connection -> new ConnectionHandler() {
                    public void onMessage(SmbDirectConnection c, ReceivedMessage m) { /* m.payload() valid during the call */ }
                    public void onDisconnected(SmbDirectConnection c, CloseReason reason) { }
                }); // listener.close() stops listening

        // client (active role): the stage fails (SmbDirectException) when the connect or the send fails
        return transport.connect(new InetSocketAddress("10.0.0.1", 445), Duration.ofSeconds(120), handler)
                .thenCompose(connection -> connection.send(smb2Negotiate)); // completes when the buffer is yours again
    }
    // end::using-the-transport[]

    @Test
    void theUsingTheTransportSnippetServesAndConnects() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of()); // the fabric's first device: 10.0.0.1
            RecordingHandler client = new RecordingHandler();
            CompletableFuture<Void> sent = start(transport, client,
                    ByteBuffer.wrap("NEGOTIATE".getBytes(StandardCharsets.US_ASCII))).toCompletableFuture();
            kit.settle();
            assertTrue(sent.isDone() && !sent.isCompletedExceptionally(), sent.toString());
            assertEquals("10.0.0.1:445", transport.getTransportDTO().listeners[0].address);
            ConnectionDTO[] connections = transport.getTransportDTO().connections;
            assertEquals(2, connections.length, "both roles, one connection each");
            for (ConnectionDTO c : connections) {
                assertEquals("ESTABLISHED", c.state, c.role);
                assertEquals(c.role.equals("PASSIVE") ? 1 : 0, c.messagesReceived, c.role + " received");
                assertEquals(c.role.equals("PASSIVE") ? 9 : 0, c.bytesReceived, c.role + " received \"NEGOTIATE\"");
            }
            assertEquals(null, client.closeReason());
        }
    }

    @Test
    void listenThrowsTheCheckedExceptionTheSnippetDeclares() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            start(transport, new RecordingHandler(), ByteBuffer.allocate(1));
            kit.settle();
            SmbDirectException e = org.junit.jupiter.api.Assertions.assertThrows(SmbDirectException.class,
                    () -> start(transport, new RecordingHandler(), ByteBuffer.allocate(1)));
            assertTrue(e.getMessage().contains("445"), "the refusal names the address: " + e.getMessage());
        }
    }

    /** What "Without OSGi"'s snippet does between listening and closing. */
    private SmbDirectListener served;

    private void serve(SmbDirectListener listener) {
        served = listener;
        assertTrue(listener.localAddress().getPort() > 0, "listening on a port of its own: " + listener.localAddress());
    }

    void withoutOsgi(RdmaProvider provider, ConnectionHandler handler) throws SmbDirectException {
        // tag::without-osgi[]
        StandaloneTransport transport = StandaloneTransport.builder(provider)
                .settings(Map.of("receiveCreditMax", 64, "keepaliveIntervalSeconds", 30))
                .build();                 // wall clock, one daemon timer thread "smbdirect-timer"
        try {
            SmbDirectListener listener = transport.listen(new InetSocketAddress(0), connection -> handler);
            serve(listener);              // your server runs
        } finally {
            transport.close();            // listeners and connections close with reason SHUTDOWN, the thread stops
        }
        // end::without-osgi[]
    }

    @Test
    void theWithoutOsgiSnippetListensAndClosesItsListenerAndTimerThread() throws Exception {
        try (MockFabric fabric = MockFabric.builder().mode(DeliveryMode.THREADED).build()) {
            withoutOsgi(fabric.provider("server"), new RecordingHandler());
        }
        assertTrue(served != null, "the snippet served");
        assertFalse(served.isOpen(), "close() closed the listener");
    }
}
