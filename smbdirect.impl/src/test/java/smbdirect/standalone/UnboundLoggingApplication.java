package smbdirect.standalone;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * A plain Java application whose server handler throws, run by {@link UnloggedCallbackFailuresTest}
 * in a JVM whose class path has slf4j-api and no binding, and transports built without
 * {@code callbackFailures}: what it shows on standard error is all a user would see. Prints on
 * standard output how the client's connection ended and exits 0 once it has.
 */
public final class UnboundLoggingApplication {

    private UnboundLoggingApplication() {
    }

    public static void main(String[] args) throws Exception {
        try (MockFabric fabric = MockFabric.builder().mode(DeliveryMode.THREADED).build()) {
            MockProvider serverDevice = fabric.provider("server");
            MockProvider clientDevice = fabric.provider("client");
            try (StandaloneTransport serverSide = StandaloneTransport.builder(serverDevice).build();
                    StandaloneTransport clientSide = StandaloneTransport.builder(clientDevice).build()) {
                SmbDirectListener listener = serverSide.listen(new InetSocketAddress(serverDevice.address(), 445),
                        connection -> new ConnectionHandler() {
                            @Override
                            public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
                                throw new AssertionError("the server's assertion about message 1");
                            }

                            @Override
                            public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
                            }
                        });
                CompletableFuture<CloseReason> ended = new CompletableFuture<>();
                SmbDirectConnection connection = clientSide.connect(listener.localAddress(), Duration.ofSeconds(30),
                        new ConnectionHandler() {
                            @Override
                            public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
                            }

                            @Override
                            public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
                                ended.complete(reason);
                            }
                        }).toCompletableFuture().get(30, TimeUnit.SECONDS);
                connection.send(ByteBuffer.wrap(new byte[] {1})).toCompletableFuture().get(30, TimeUnit.SECONDS);
                System.out.println("client connection ended: " + ended.get(30, TimeUnit.SECONDS).kind());
            }
        }
    }
}
