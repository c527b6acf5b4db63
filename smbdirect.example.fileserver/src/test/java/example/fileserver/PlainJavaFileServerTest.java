package example.fileserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.example.fileserver.FileServer;
import smbdirect.example.fileserver.FileServerSettings;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.standalone.StandaloneTransport;

/**
 * The README's plain-Java example, run: a file server on a {@link StandaloneTransport} over the
 * software iWARP provider (real TCP on loopback, a free port), which a second transport reaches
 * over iWARP and which answers an SMB2 NEGOTIATE ([MS-SMB2] 3.3.5.4) with dialect 3.0.2. The regions
 * between the tags are quoted verbatim in the README (ReadmeFileServerExampleTest).
 */
class PlainJavaFileServerTest {

    @TempDir
    Path directory;

    @Test
    void aFileServerOnTheSoftwareIwarpProviderAnswersNegotiateOverTcp() throws Exception {
        String host = "127.0.0.1";
        int port = 0; // a free port; the README's 5445
        String listen = host; // any port on loopback; the README's host + ":" + port
        // tag::plain-java[]
        IwarpProvider provider = IwarpProvider.open(IwarpSettings.builder().listenAddresses(listen).build());
        StandaloneTransport transport = StandaloneTransport.builder(provider).build();
        FileServer server = FileServer.start(transport, new FileServerSettings("share", directory,
                new InetSocketAddress(host, port), false, "alice", "change-me", false));
        // end::plain-java[]
        try (IwarpProvider clientProvider = IwarpProvider.open(IwarpSettings.builder().listenAddresses().build());
                StandaloneTransport client = StandaloneTransport.builder(clientProvider).build()) {
            assertEquals(0x0302, negotiate(client, server.listenAddress()));
        } finally {
            // tag::plain-java-close[]
            server.close();     // stops listening, closes every connection, releases registrations and open files
            transport.close();  // the transport's timer thread stops
            provider.close();   // the iWARP I/O threads stop
            // end::plain-java-close[]
        }
    }

    /** Sends an SMB2 NEGOTIATE offering 3.0.2 ([MS-SMB2] 2.2.3); returns the response's DialectRevision (2.2.4). */
    private static int negotiate(StandaloneTransport client, InetSocketAddress server) throws Exception {
        BlockingQueue<ByteBuffer> received = new LinkedBlockingQueue<>();
        SmbDirectConnection c = client.connect(server, Duration.ofSeconds(10), new ConnectionHandler() {
            @Override
            public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
                ByteBuffer copy = ByteBuffer.allocate(message.payload().remaining()).order(ByteOrder.LITTLE_ENDIAN);
                copy.put(message.payload().duplicate()).flip();
                received.add(copy);
            }

            @Override
            public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            }
        }).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            ByteBuffer request = ByteBuffer.allocateDirect(64 + 36 + 2).order(ByteOrder.LITTLE_ENDIAN);
            request.putInt(0x424D53FE).putShort((short) 64).putShort((short) 0).putInt(0) // ProtocolId .. Status
                    .putShort((short) 0).putShort((short) 1).putInt(0).putInt(0) // NEGOTIATE, 1 credit, Flags, Next
                    .putLong(0).putInt(0).putInt(0).putLong(0).put(new byte[16]); // MessageId .. Signature
            request.putShort((short) 36).putShort((short) 1).putShort((short) 1).putShort((short) 0).putInt(0)
                    .putLong(1).putLong(2).putLong(0).putShort((short) 0x0302).flip();
            c.send(request).toCompletableFuture().get(10, TimeUnit.SECONDS);
            ByteBuffer response = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(response, "an SMB2 NEGOTIATE response");
            assertEquals(0x424D53FE, response.getInt(0), "ProtocolId");
            assertEquals(0, response.getInt(8), "Status STATUS_SUCCESS");
            assertEquals(0, response.getShort(12), "Command NEGOTIATE");
            assertTrue((response.getInt(16) & 1) == 1, "SMB2_FLAGS_SERVER_TO_REDIR");
            assertEquals(65, response.getShort(64), "StructureSize of the NEGOTIATE response");
            return response.getShort(64 + 4) & 0xFFFF;
        } finally {
            c.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
