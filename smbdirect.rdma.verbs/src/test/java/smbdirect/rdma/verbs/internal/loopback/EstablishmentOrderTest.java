package smbdirect.rdma.verbs.internal.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;

/**
 * Data can arrive at the passive side before its RDMA CM ESTABLISHED event (the active side sends
 * as soon as it is established; the passive side's event comes with the RTU, which may be late or
 * retransmitted). The passive handler must still see {@code onEstablished} first, exactly once.
 */
class EstablishmentOrderTest {

    static final class Events implements RdmaEndpointHandler {
        final List<String> events = new ArrayList<>();
        final CompletableFuture<Void> received = new CompletableFuture<>();
        final CompletableFuture<Void> established = new CompletableFuture<>();

        @Override
        public synchronized void onEstablished(ByteBuffer peerPrivateData) {
            events.add("established");
            established.complete(null);
        }

        @Override
        public synchronized void onCompletion(WorkCompletion wc) {
            events.add(wc.type() + ":" + wc.wrId() + ":" + wc.status());
            received.complete(null);
        }

        @Override
        public synchronized void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            events.add("disconnected:" + cause);
        }

        synchronized List<String> events() {
            return new ArrayList<>(events);
        }
    }

    @Test
    void aReceiveThatArrivesBeforeThePassiveSidesEstablishedEventIsDeliveredAfterOnEstablished() throws Exception {
        VerbsTckFixture f = new VerbsTckFixture(false, false);
        try {
            Events server = new Events();
            CompletableFuture<RdmaEndpoint> accepted = new CompletableFuture<>();
            RdmaListener listener = f.server.listen(f.serverAddress(4450), new RdmaListenHandler() {
                @Override
                public void onConnectRequest(RdmaConnectRequest request) {
                    try {
                        RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(4, 4), server);
                        MemoryRegion r = ep.register(ByteBuffer.allocateDirect(64), EnumSet.of(MemoryAccess.LOCAL_WRITE));
                        ep.postReceive(r, 0, 64, 1);
                        ep.accept(new ConnectParameters(null, 1, 1));
                        accepted.complete(ep);
                    } catch (Exception e) {
                        accepted.completeExceptionally(e);
                    }
                }

                @Override
                public void onListenerFailed(DisconnectCause cause, String detail) {
                }
            });
            f.network.holdPassiveEstablished();
            Events client = new Events();
            RdmaEndpoint clientEp = f.client.createEndpoint(new EndpointSettings(4, 4), client);
            clientEp.connect(f.serverAddress(4450), new ConnectParameters(null, 1, 1));
            client.established.get(10, TimeUnit.SECONDS);
            RdmaEndpoint serverEp = accepted.get(10, TimeUnit.SECONDS);
            MemoryRegion src = clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.noneOf(MemoryAccess.class));
            clientEp.postSend(src, 0, 8, 7);
            server.received.get(10, TimeUnit.SECONDS);
            f.network.releaseHeldEvents();
            server.established.get(10, TimeUnit.SECONDS);
            clientEp.disconnect();
            assertEquals("established", server.events().get(0), server.events().toString());
            assertEquals(1, server.events().stream().filter(e -> e.equals("established")).count(),
                    server.events().toString());
            assertTrue(server.events().contains("RECEIVE:1:SUCCESS"), server.events().toString());
            clientEp.close();
            serverEp.close();
            listener.close();
        } finally {
            f.close();
        }
    }
}
