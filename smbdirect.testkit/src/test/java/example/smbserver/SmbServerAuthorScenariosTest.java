package example.smbserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEvent;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.standalone.StandaloneTransport;
import smbdirect.testkit.Frame;
import smbdirect.testkit.PeerBuffer;
import smbdirect.testkit.RecordingListenerEvents;
import smbdirect.testkit.ScriptedPeer;
import smbdirect.testkit.ScriptedPeer.MidTransferFault;
import smbdirect.testkit.SmbDirectTestKit;

/**
 * What an SMB server author does in the first hour, written as they would from the README and the
 * javadoc, against the published API only (this package is not the kit's; {@link
 * #usesThePublishedApiOnly()} checks the imports): an SMB2-like echo of 1 byte to 1 MiB, 4 MiB
 * WRITE- and READ-like RDMA flows, a client that withholds credits in virtual time, a malformed
 * Negotiate Request and a disconnect in the middle of a message. Two transports on the mock fabric
 * in one JVM, without the kit, are {@link TwoTransportsInOneJvmTest}.
 */
class SmbServerAuthorScenariosTest {

    /** SMB2-like: 2-byte command, 8-byte message id, then the command's fields; responses echo the id. */
    static final class Server implements ConnectionHandler {
        static final short ECHO = 1;
        static final short WRITE = 2; // the client's data comes by RDMA Read of its buffer
        static final short READ = 3;  // the data goes by RDMA Write into the client's buffer
        final ByteBuffer file = ByteBuffer.allocateDirect(4 << 20);
        final List<Throwable> sendFailures = new ArrayList<>();
        CloseReason closed;

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
            ByteBuffer req = m.payload(); // little-endian
            short command = req.getShort();
            long id = req.getLong();
            if (command == ECHO) {
                ByteBuffer r = ByteBuffer.allocate(m.length()).order(ByteOrder.LITTLE_ENDIAN);
                r.putShort((short) (ECHO | 0x8000)).putLong(id).put(req).flip();
                c.send(r, (msg, f) -> {
                    if (f != null) {
                        sendFailures.add(f); // a reply the connection could not deliver is reported, never lost
                    }
                });
                return;
            }
            List<BufferDescriptor> client = BufferDescriptor.decodeList(req, 1);
            int length = client.get(0).length();
            c.register(file, RemoteAccess.LOCAL_ONLY).thenAccept(local -> {
                if (command == WRITE) {
                    c.rdmaRead(local, 0, length, client, 0, (n, f) -> status(c, command, id, n, f));
                } else {
                    c.rdmaWrite(local, 0, length, client, 0, (n, f) -> status(c, command, id, n, f));
                }
            });
        }

        private static void status(SmbDirectConnection c, short command, long id, long bytes, Throwable f) {
            ByteBuffer r = ByteBuffer.allocate(18).order(ByteOrder.LITTLE_ENDIAN);
            r.putShort((short) (command | 0x8000)).putLong(id).putLong(f == null ? bytes : -1).flip();
            c.send(r, (msg, failure) -> { });
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
            closed = reason;
        }
    }

    /** A transport with default settings whose listener hands every connection to {@code server}, and a client. */
    static ScriptedPeer connectedTo(SmbDirectTestKit kit, Server server) throws Exception {
        StandaloneTransport transport = kit.transport("server", Map.of());
        SmbDirectListener listener = transport.listen(kit.address("server"), c -> server);
        ScriptedPeer client = kit.peer().connect(listener.localAddress());
        kit.settle();
        return client;
    }

    static byte[] request(short command, long id, byte[] fields) {
        return ByteBuffer.allocate(10 + fields.length).order(ByteOrder.LITTLE_ENDIAN).putShort(command).putLong(id)
                .put(fields).array();
    }

    static ByteBuffer le(byte[] message) {
        return ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void anSmb2LikeEchoOf100RequestsFromOneByteToOneMebibyte() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            Server server = new Server();
            ScriptedPeer client = connectedTo(kit, server);

            Random random = new Random(31);
            List<byte[]> sent = new ArrayList<>();
            int max = (1 << 20) - 10; // the whole message, header included, is at most 1 MiB (MaxFragmentedSize)
            for (int i = 0; i < 100; i++) {
                int size = i == 0 ? 1 : i == 99 ? max : (int) Math.round(Math.pow(max, i / 99.0));
                byte[] fields = new byte[size];
                random.nextBytes(fields);
                sent.add(fields);
                client.send(request(Server.ECHO, i, fields));
                kit.settle();
            }

            List<byte[]> replies = client.messages();
            assertEquals(100, replies.size());
            for (int i = 0; i < 100; i++) {
                ByteBuffer r = le(replies.get(i));
                assertEquals((short) 0x8001, r.getShort(), "reply " + i);
                assertEquals(i, r.getLong(), "in order");
                byte[] echoed = new byte[r.remaining()];
                r.get(echoed);
                assertArrayEquals(sent.get(i), echoed, "echo " + i + " of " + sent.get(i).length + " bytes");
            }
            assertEquals(1 << 20, replies.get(99).length);
            assertTrue(client.fragments().size() > 780, "1 MiB came in fragments: " + client.fragments().size());
            assertEquals(List.of(), client.violations());
            assertNull(server.closed);
        }
    }

    @Test
    void fourMebibyteWriteAndReadFlowsByRdmaReadAndWrite() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            Server server = new Server();
            ScriptedPeer client = connectedTo(kit, server);
            int size = 4 << 20;
            byte[] data = new byte[size];
            new Random(4).nextBytes(data);

            // WRITE: the client offers its data for the server to RDMA Read
            PeerBuffer source = client.register(size, RemoteAccess.READ).put(0, data);
            client.send(request(Server.WRITE, 1, source.encodedDescriptor()));
            kit.settle();
            ByteBuffer written = le(client.messages().get(0));
            assertEquals((short) 0x8002, written.getShort());
            assertEquals(1, written.getLong());
            assertEquals(size, written.getLong(), "bytes the server read");
            byte[] onServer = new byte[size];
            server.file.duplicate().get(onServer);
            assertArrayEquals(data, onServer, "every byte arrived at the server");

            // READ: the server RDMA Writes the file into the client's buffer
            PeerBuffer sink = client.register(size, RemoteAccess.WRITE);
            client.send(request(Server.READ, 2, sink.encodedDescriptor()));
            kit.settle();
            ByteBuffer read = le(client.messages().get(1));
            assertEquals((short) 0x8003, read.getShort());
            assertEquals(2, read.getLong());
            assertEquals(size, read.getLong());
            assertArrayEquals(data, sink.bytes(), "every byte came back");

            assertEquals(List.of(), client.violations());
            assertNull(server.closed);
        }
    }

    @Test
    void aClientThatWithholdsCreditsIsClosedAfterFiveVirtualSecondsAndResumesWhenItGrantsInTime() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of("creditGrantTimeoutMillis", 5000));
            Server patient = new Server();
            Server starved = new Server();
            SmbDirectListener listener = transport.listen(kit.address("server"), c -> patient);
            SmbDirectListener other = transport.listen(kit.address("server"), c -> starved);
            ScriptedPeer granting = kit.peer().connect(listener.localAddress());
            ScriptedPeer withholding = kit.peer().connect(other.localAddress());
            kit.settle();

            for (ScriptedPeer p : List.of(granting, withholding)) {
                p.withholdCredits(true);
                for (int id = 1; id <= 40; id++) {
                    p.send(request(Server.ECHO, id, new byte[] {(byte) id})); // replies use up the server's credits
                }
            }
            kit.settle();
            assertEquals(0, withholding.transportSendCredits(), "the server cannot send");
            assertTrue(withholding.messages().size() < 40, "replies wait");

            kit.advance(Duration.ofMillis(4000));
            granting.withholdCredits(false); // granted after 4 s: the transfer goes on
            kit.advance(Duration.ofMillis(999));
            assertNull(starved.closed, "4999 ms: not yet");
            kit.advance(Duration.ofMillis(1));
            assertEquals(CloseReason.Kind.CREDIT_GRANT_TIMEOUT, starved.closed.kind());
            assertEquals("A-21", starved.closed.rule());
            assertTrue(starved.closed.detail().startsWith("no Send Credit granted within 5000 ms while "),
                    starved.closed.detail());
            assertEquals(ScriptedPeer.State.CLOSED, withholding.state());
            assertEquals(40 - withholding.messages().size(), starved.sendFailures.size(),
                    "every reply not sent failed with the close reason");
            for (Throwable f : starved.sendFailures) {
                assertEquals(starved.closed, ((SmbDirectException) f).closeReason());
            }

            assertNull(patient.closed);
            assertEquals(40, granting.messages().size(), "every reply arrived once credits came");
            assertEquals(List.of(), patient.sendFailures);
            assertTrue(kit.clock().elapsed().toMillis() >= 5000, "virtual time: " + kit.clock().elapsed());
        }
    }

    @Test
    void R_3_1_5_6_07_aMalformedNegotiateRequestIsANegotiationFailureNamingTheRuleAndTheValue() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            RecordingListenerEvents events = new RecordingListenerEvents();
            SmbDirectListener listener = transport.listen(kit.address("server"), c -> new Server(), events);
            ScriptedPeer client = kit.peer().hook(frame -> {
                if (frame.kind() == Frame.Kind.NEGOTIATE_REQUEST) {
                    frame.maxReceiveSize(127); // below the minimum 128
                }
                return true;
            }).connect(listener.localAddress());
            kit.settle();

            ListenerEvent e = events.last();
            assertEquals(ListenerEvent.Kind.NEGOTIATION_FAILED, e.kind());
            assertEquals("R-3.1.5.6-07", e.reason().rule());
            assertEquals("MaxReceiveSize=127: is below the minimum 128", e.reason().detail());
            assertEquals(ScriptedPeer.State.CLOSED, client.state());
            assertEquals(1, listener.getListenerDTO().negotiationFailures);
        }
    }

    @Test
    void aClientThatDisconnectsInTheMiddleOfAMessageIsTheOnlyOneClosedAndTheServerHearsWhatWasLost()
            throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            List<Server> servers = new ArrayList<>();
            SmbDirectListener listener = transport.listen(kit.address("server"), c -> {
                Server s = new Server();
                servers.add(s);
                return s;
            });
            ScriptedPeer leaving = kit.peer().connect(listener.localAddress());
            kit.settle();
            ScriptedPeer staying = kit.peer().connect(listener.localAddress());
            kit.settle();

            leaving.sendWithFault(request(Server.ECHO, 7, new byte[10_000]), 3, MidTransferFault.DISCONNECT);
            staying.send(request(Server.ECHO, 8, new byte[10_000]));
            kit.settle();

            assertEquals("PEER_DISCONNECT: the peer disconnected; a message the peer had partly sent was dropped: "
                    + "4020 of 10010 bytes received", servers.get(0).closed.toString());
            assertNull(servers.get(1).closed);
            assertEquals(1, staying.messages().size(), "the other client is served");
        }
    }

    @Test
    void usesThePublishedApiOnly() throws Exception {
        String source = Files.readString(Path.of("src", "test", "java", "example", "smbserver",
                getClass().getSimpleName() + ".java"));
        Matcher m = Pattern.compile("^import (?:static )?([\\w.]+)\\.\\w+;$", Pattern.MULTILINE).matcher(source);
        List<String> packages = List.of("java.", "org.junit.", "smbdirect.api.", "smbdirect.standalone.",
                "smbdirect.testkit.");
        while (m.find()) {
            String imported = m.group(1) + ".";
            assertTrue(packages.stream().anyMatch(imported::startsWith), "not a published package: " + imported);
        }
    }
}
