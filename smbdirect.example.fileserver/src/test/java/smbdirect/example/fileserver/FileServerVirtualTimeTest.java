package smbdirect.example.fileserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.example.fileserver.client.Response;
import smbdirect.example.fileserver.client.Smb2;
import smbdirect.example.fileserver.client.Status;
import smbdirect.standalone.StandaloneTransport;
import smbdirect.testkit.ScriptedPeer;
import smbdirect.testkit.SmbDirectTestKit;

/**
 * The file server where the transport's timers matter, in the test kit's virtual time: an SMB2
 * client whose host stops answering is dropped by the transport's keepalive ([MS-SMBD] 3.1.6.2)
 * after minutes of virtual time, and the file server lets go of that connection while another,
 * answering client goes on being served.
 */
class FileServerVirtualTimeTest {

    @TempDir
    Path temp;

    private static byte[] request(Smb2.Body body, long messageId) {
        ByteBuffer m = Smb2.le(64 + body.bytes().length);
        Smb2.putHeader(m, body.command(), 1, 8, 0, 0, messageId, 0, 0);
        m.put(body.bytes());
        return m.array();
    }

    /** Settles the kit until {@code peer} has {@code count} messages; the server may answer from threads of its own. */
    private static Response awaitMessage(SmbDirectTestKit kit, ScriptedPeer peer, int count) {
        long deadline = System.nanoTime() + FileServerFixture.WAIT.toNanos();
        while (peer.messages().size() < count) {
            assertTrue(System.nanoTime() < deadline, "no SMB2 response within " + FileServerFixture.WAIT);
            kit.settle();
            LockSupport.parkNanos(200_000);
        }
        return new Response(peer.messages().get(count - 1), false, 0);
    }

    private static void awaitConnections(SmbDirectTestKit kit, FileServer server, int count) {
        long deadline = System.nanoTime() + FileServerFixture.WAIT.toNanos();
        while (server.connections() != count) {
            assertTrue(System.nanoTime() < deadline, "the file server counts " + server.connections()
                    + " connections, not " + count);
            kit.settle();
            LockSupport.parkNanos(200_000);
        }
    }

    @Test
    void aClientThatStopsAnsweringIsDroppedByTheKeepaliveAndTheServerLetsGoOfIt() throws Exception {
        Path share = Files.createDirectory(temp.resolve("share"));
        try (SmbDirectTestKit kit = SmbDirectTestKit.create("fs-virtual")) {
            StandaloneTransport transport = kit.transport("server", Map.of("keepaliveIntervalSeconds", 120));
            FileServer server = FileServer.start(transport, new FileServerSettings(FileServerFixture.SHARE, share,
                    new InetSocketAddress(kit.device("server").address(), 445), false, FileServerFixture.USER,
                    FileServerFixture.PASSWORD, false));
            try {
                ScriptedPeer silent = kit.peer().connect(server.listenAddress());
                ScriptedPeer answering = kit.peer().connect(server.listenAddress());
                kit.settle();
                assertTrue(silent.isEstablished() && answering.isEstablished());
                byte[] negotiate = Smb2.negotiate(new int[] {Smb2.DIALECT_302}, Smb2.SIGNING_ENABLED, 0, new byte[16],
                        new byte[32], false);
                silent.send(request(new Smb2.Body(Smb2.NEGOTIATE, negotiate), 0));
                answering.send(request(new Smb2.Body(Smb2.NEGOTIATE, negotiate), 0));
                assertEquals(Status.SUCCESS, awaitMessage(kit, silent, 1).status());
                assertEquals(Status.SUCCESS, awaitMessage(kit, answering, 1).status());
                assertEquals(2, server.connections());

                silent.stall(true); // its host stops answering: no keepalive response, no credit
                kit.advance(Duration.ofMinutes(5));

                assertTrue(answering.isEstablished(), "the answering client stays: " + answering);
                assertTrue(answering.keepalivesAnswered() > 0, "keepalives went back and forth");
                ConnectionDTO[] closed = transport.getTransportDTO().recentlyClosed;
                assertTrue(Arrays.stream(closed).anyMatch(c -> c.closeReason.contains("KEEPALIVE_TIMEOUT")),
                        "[MS-SMBD] 3.1.6.2: the silent client's connection ends by the keepalive: "
                                + Arrays.stream(closed).map(c -> c.closeReason).toList());
                awaitConnections(kit, server, 1);
                assertEquals(1, transport.getTransportDTO().connections.length);

                answering.send(request(Smb2.empty(Smb2.ECHO), 1));
                Response echo = awaitMessage(kit, answering, 2);
                assertEquals(Smb2.ECHO, echo.command());
                assertEquals(Status.name(Status.SUCCESS), Status.name(echo.status()), "the other client is served");
                assertFalse(silent.isEstablished());
                // FileServer.close() waits (wall clock) for its connections to end, which nothing would
                // move in virtual time: the client leaves first
                answering.disconnect();
                awaitConnections(kit, server, 0);
            } finally {
                server.close();
                kit.settle();
            }
        }
    }
}
