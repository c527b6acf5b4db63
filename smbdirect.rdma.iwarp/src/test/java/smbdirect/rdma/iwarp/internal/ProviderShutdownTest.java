package smbdirect.rdma.iwarp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * Closing a provider with live connections spread over its I/O threads: every endpoint flushes what
 * is outstanding and ends with PROVIDER_SHUTDOWN, the listener fails with PROVIDER_SHUTDOWN, the
 * peers see their connections end, nothing stays open, and every later operation is refused.
 */
class ProviderShutdownTest {

    private static final int CONNECTIONS = 6;

    /** Records completions and the end of one endpoint. */
    private static final class Recorder implements RdmaEndpointHandler {
        final List<CompletionStatus> statuses = new CopyOnWriteArrayList<>();
        final CompletableFuture<DisconnectCause> end = new CompletableFuture<>();
        final CompletableFuture<Void> up = new CompletableFuture<>();
        volatile int afterEnd;

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            up.complete(null);
        }

        @Override
        public void onCompletion(WorkCompletion wc) {
            if (end.isDone()) {
                afterEnd++;
            }
            statuses.add(wc.status());
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            end.complete(cause);
        }
    }

    @Test
    void closingTheProviderEndsEveryConnectionAndListenerAsTheSpiSays() throws Exception {
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").ioThreads(3).build();
        IwarpProvider server = IwarpProvider.open("shutdown-server", settings);
        List<Recorder> serverSides = new CopyOnWriteArrayList<>();
        CompletableFuture<DisconnectCause> listenerEnd = new CompletableFuture<>();
        try (IwarpProvider client = IwarpProvider.open("shutdown-client", settings)) {
            InetSocketAddress address = server.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
                @Override
                public void onConnectRequest(RdmaConnectRequest request) {
                    try {
                        Recorder r = new Recorder();
                        RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(4, 4), r);
                        MemoryRegion m = ep.register(ByteBuffer.allocateDirect(64), EnumSet.of(MemoryAccess.LOCAL_WRITE));
                        ep.postReceive(m, 0, 32, 1);
                        ep.postReceive(m, 32, 32, 2);
                        serverSides.add(r);
                        ep.accept(new ConnectParameters(null, 1, 1));
                    } catch (RdmaException e) {
                        throw new IllegalStateException(e);
                    }
                }

                @Override
                public void onListenerFailed(DisconnectCause cause, String detail) {
                    listenerEnd.complete(cause);
                }
            }).localAddress();
            List<Recorder> clientSides = new ArrayList<>();
            List<RdmaEndpoint> clientEndpoints = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                Recorder r = new Recorder();
                RdmaEndpoint ep = client.createEndpoint(new EndpointSettings(4, 4), r);
                ep.connect(address, new ConnectParameters(null, 1, 1));
                clientSides.add(r);
                clientEndpoints.add(ep);
            }
            for (Recorder r : clientSides) {
                r.up.get(10, TimeUnit.SECONDS);
            }
            assertEquals(CONNECTIONS, server.statistics().connections());
            server.close();
            assertEquals(DisconnectCause.PROVIDER_SHUTDOWN, listenerEnd.get(10, TimeUnit.SECONDS));
            for (Recorder r : serverSides) {
                assertEquals(DisconnectCause.PROVIDER_SHUTDOWN, r.end.get(10, TimeUnit.SECONDS));
                assertEquals(List.of(CompletionStatus.FLUSHED, CompletionStatus.FLUSHED), r.statuses);
                assertEquals(0, r.afterEnd);
            }
            for (Recorder r : clientSides) {
                assertEquals(DisconnectCause.PEER, r.end.get(10, TimeUnit.SECONDS));
            }
            assertEquals(0, server.statistics().connections());
            assertThrows(RdmaException.class, () -> server.createEndpoint(new EndpointSettings(1, 1), new Recorder()));
            assertThrows(RdmaException.class, () -> server.listen(new InetSocketAddress("127.0.0.1", 0),
                    new RdmaListenHandler() {
                        @Override
                        public void onConnectRequest(RdmaConnectRequest request) {
                        }

                        @Override
                        public void onListenerFailed(DisconnectCause cause, String detail) {
                        }
                    }));
            for (RdmaEndpoint ep : clientEndpoints) {
                ep.close();
            }
            assertTrue(client.statistics().endpoints() == 0);
        } finally {
            server.close();
        }
    }
}
