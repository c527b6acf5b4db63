package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.RdmaCompletionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.standalone.StandaloneTransport;

/**
 * The example of the README's "Testing an SMB server over SMB Direct": a server-side handler on
 * the transport, driven by the kit's scripted peer. The README quotes the code between the
 * {@code // tag::} and {@code // end::} markers; keep them in sync.
 */
class SmbServerOverSmbDirectTest {

    // tag::server[]
    /** A toy SMB2-like server: 2-byte command, 8-byte message id, then the command's fields. */
    static final class ToyServer implements ConnectionHandler {
        static final int ECHO = 1;
        static final int WRITE = 2; // data comes by RDMA Read of the client's buffer
        static final int READ = 3;  // data goes by RDMA Write into the client's buffer
        static final long FAILED = -1; // the response's byte count when the transfer failed
        final ByteBuffer file = ByteBuffer.allocateDirect(1 << 20);
        CloseReason closed;

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
            ByteBuffer req = m.payload(); // little-endian, like every SMB2 field; valid during this call
            int command = req.getShort();
            long messageId = req.getLong();
            switch (command) {
                case ECHO -> respond(c, messageId, 0);
                case WRITE, READ -> {
                    List<BufferDescriptor> client = BufferDescriptor.decodeList(req, 1);
                    int length = client.get(0).length();
                    c.register(file, RemoteAccess.LOCAL_ONLY).whenComplete((local, failed) -> {
                        if (failed != null) { // no registration, no transfer: the client is told
                            respond(c, messageId, FAILED);
                            return;
                        }
                        RdmaCompletionHandler done = (n, f) -> {
                            local.deregister(); // one registration per request, released when it is done
                            respond(c, messageId, f == null ? n : FAILED);
                        };
                        if (command == WRITE) {
                            c.rdmaRead(local, 0, length, client, 0, done);
                        } else {
                            c.rdmaWrite(local, 0, length, client, 0, done);
                        }
                    });
                }
                default -> c.close();
            }
        }

        private static void respond(SmbDirectConnection c, long messageId, long bytes) {
            ByteBuffer r = ByteBuffer.allocate(18).order(ByteOrder.LITTLE_ENDIAN);
            c.send(r.putShort((short) 0x8000).putLong(messageId).putLong(bytes).flip(), (msg, f) -> { });
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
            closed = reason;
        }
    }
    // end::server[]

    static byte[] request(int command, long messageId, byte... fields) {
        return ByteBuffer.allocate(10 + fields.length).order(ByteOrder.LITTLE_ENDIAN)
                .putShort((short) command).putLong(messageId).put(fields).array();
    }

    static long responseBytes(byte[] response) {
        return ByteBuffer.wrap(response).order(ByteOrder.LITTLE_ENDIAN).getLong(10);
    }

    // tag::exchange[]
    @Test
    void requestsAndOneMebibyteRdmaWriteAndRead() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            ToyServer server = new ToyServer();
            SmbDirectListener listener = transport.listen(kit.address("server"), c -> server);

            ScriptedPeer client = kit.peer().connect(listener.localAddress());
            kit.settle();
            assertTrue(client.isEstablished());

            client.send(request(ToyServer.ECHO, 1, new byte[3000])); // fragmented: 3010 > MaxSendSize
            kit.settle();
            assertEquals(1, client.messages().size());

            byte[] data = new byte[1 << 20];
            new java.util.Random(7).nextBytes(data);
            PeerBuffer source = client.register(1 << 20, RemoteAccess.READ).put(0, data);
            client.send(request(ToyServer.WRITE, 2, source.encodedDescriptor()));
            kit.settle();
            assertEquals(1 << 20, responseBytes(client.messages().get(1)));

            PeerBuffer sink = client.register(1 << 20, RemoteAccess.WRITE);
            client.send(request(ToyServer.READ, 3, sink.encodedDescriptor()));
            kit.settle();
            assertEquals(1 << 20, responseBytes(client.messages().get(2)));
            assertArrayEquals(data, sink.bytes());

            assertEquals(List.of(), client.violations());
            assertTrue(client.totalCreditsGrantedToPeer() >= 3, "the transport granted credits");
            assertEquals(0, transport.getTransportDTO().connections[0].registrations, "each registration released");
        }
    }
    // end::exchange[]

    @Test
    void aRegistrationThatFailsIsAnsweredNotSwallowed() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            ToyServer server = new ToyServer();
            SmbDirectListener listener = transport.listen(kit.address("server"), c -> server);
            ScriptedPeer client = kit.peer().connect(listener.localAddress());
            kit.settle();
            PeerBuffer sink = client.register(4096, RemoteAccess.WRITE);
            kit.device("server").failNextRegistrations(1);
            client.send(request(ToyServer.READ, 1, sink.encodedDescriptor()));
            kit.settle();
            assertEquals(ToyServer.FAILED, responseBytes(client.messages().get(0)));

            client.send(request(ToyServer.READ, 2, sink.encodedDescriptor()));
            kit.settle();
            assertEquals(4096, responseBytes(client.messages().get(1)), "the next request is served");
            assertEquals(0, transport.getTransportDTO().connections[0].registrations);
        }
    }

    // tag::starving[]
    @Test
    void aPeerThatGrantsNoCreditsIsClosedByTheCreditGrantTimer() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of("creditGrantTimeoutMillis", 5000));
            ToyServer server = new ToyServer();
            SmbDirectListener listener = transport.listen(kit.address("server"), c -> server);
            ScriptedPeer client = kit.peer().connect(listener.localAddress());
            kit.settle();

            client.withholdCredits(true);
            for (int id = 1; id <= 40; id++) {
                client.send(request(ToyServer.ECHO, id)); // responses use up the server's credits
            }
            kit.settle();
            assertEquals(0, client.transportSendCredits());
            assertEquals(null, server.closed);

            kit.advance(Duration.ofSeconds(5));
            assertEquals(CloseReason.Kind.CREDIT_GRANT_TIMEOUT, server.closed.kind());
            assertEquals(ScriptedPeer.State.CLOSED, client.state());
        }
    }
    // end::starving[]

    // tag::vanishing[]
    @Test
    void aPeerThatDisappearsIsClosedByTheKeepalive() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server",
                    Map.of("keepaliveIntervalSeconds", 30, "keepaliveResponseTimeoutSeconds", 5));
            ToyServer server = new ToyServer();
            SmbDirectListener listener = transport.listen(kit.address("server"), c -> server);
            ScriptedPeer client = kit.peer().connect(listener.localAddress());
            kit.settle();

            kit.advance(Duration.ofSeconds(30));       // idle: the server asks for a reply; the peer answers
            assertEquals(1, client.keepalivesAnswered());
            assertEquals(null, server.closed);

            client.crash();                             // the client's host vanishes
            kit.advance(Duration.ofSeconds(29));
            assertEquals(null, server.closed);          // nothing to notice yet
            kit.advance(Duration.ofSeconds(1));         // the next keepalive's Send finds no one
            assertEquals(CloseReason.Kind.PROVIDER_ERROR, server.closed.kind(), server.closed.toString());
            assertTrue(server.closed.detail().contains("TRANSPORT_RETRY_EXCEEDED"), server.closed.toString());
        }
    }
    // end::vanishing[]
}
