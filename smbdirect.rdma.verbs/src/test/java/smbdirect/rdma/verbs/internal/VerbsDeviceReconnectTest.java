package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

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
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;

/**
 * One listener takes connection after connection while the endpoints of the connection before
 * are still open (disconnected, not yet closed), on a real RDMA device: the case where the idle
 * completion thread of the listener's device waits for a completion event while the CM thread
 * creates the next connection's queue pair on the same completion queue, and the client's CM
 * thread waits for its next event while the test creates the next identifier. A wait that held
 * the lock those calls need starved them (a connection never accepted, in a guest with one
 * vCPU). {@code -Dsmbdirect.verbs.reconnects} rounds (default 100), each bounded by the fixture's
 * timeout. Tagged {@code rdma-device}.
 */
@Tag("rdma-device")
class VerbsDeviceReconnectTest {

    private static final int PORT = 4463;

    /** Records what one endpoint saw, in order. */
    static final class Seen implements RdmaEndpointHandler {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            events.add("established");
        }

        @Override
        public void onCompletion(WorkCompletion c) {
            events.add(c.type() + ":" + c.status());
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            events.add("disconnected:" + cause + " " + detail);
        }

        boolean established() {
            return events.contains("established");
        }

        boolean disconnected() {
            return events.stream().anyMatch(e -> e.startsWith("disconnected:"));
        }
    }

    /** The server's side of one connection: accepted on the CM thread, as a server does. */
    record Accepted(RdmaEndpoint endpoint, Seen seen, long arrivedNanos) {
    }

    @Test
    void aListenerAcceptsConnectionAfterConnectionWhileTheEarlierEndpointsAreStillOpen() throws Exception {
        int rounds = Integer.getInteger("smbdirect.verbs.reconnects", 100);
        DeviceTckFixture f = new DeviceTckFixture();
        List<CompletableFuture<Accepted>> requests = new CopyOnWriteArrayList<>();
        CompletableFuture<String> listenerFailure = new CompletableFuture<>();
        RdmaListener listener = f.serverProvider().listen(f.serverAddress(PORT), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                long arrived = System.nanoTime();
                CompletableFuture<Accepted> next = requests.get(requests.size() - 1);
                Seen seen = new Seen();
                try {
                    RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(4, 4), seen);
                    MemoryRegion r = ep.register(ByteBuffer.allocateDirect(64), EnumSet.of(MemoryAccess.LOCAL_WRITE));
                    ep.postReceive(r, 0, 64, 1);
                    ep.accept(new ConnectParameters(null, 1, 1));
                    next.complete(new Accepted(ep, seen, arrived));
                } catch (RdmaException | RuntimeException e) {
                    next.completeExceptionally(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                listenerFailure.complete(cause + " " + detail);
            }
        });
        List<RdmaEndpoint> open = new ArrayList<>();
        try {
            for (int round = 1; round <= rounds; round++) {
                CompletableFuture<Accepted> request = new CompletableFuture<>();
                requests.add(request);
                Seen client = new Seen();
                long started = System.nanoTime();
                RdmaEndpoint ep = f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client);
                long created = System.nanoTime();
                open.add(ep);
                ep.connect(f.serverAddress(PORT), new ConnectParameters(null, 1, 1));
                Accepted accepted;
                try {
                    accepted = request.get(f.timeout().toSeconds(), TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("round " + round + ": no connection request accepted within " + f.timeout()
                            + " (client endpoint created in " + millis(created - started) + " ms, its events "
                            + client.events + "; listener " + listenerFailure.getNow("alive") + ")");
                }
                open.add(accepted.endpoint());
                int r = round;
                await(f, () -> client.established() && accepted.seen().established(),
                        () -> "round " + r + ": both sides established (client " + client.events + ", server "
                                + accepted.seen().events + ", request arrived " + millis(accepted.arrivedNanos() - started)
                                + " ms after the client began)");
                ep.disconnect();
                await(f, () -> client.disconnected() && accepted.seen().disconnected(),
                        () -> "round " + r + ": both sides disconnected (client " + client.events + ", server "
                                + accepted.seen().events + ")");
                // the endpoints of the round before stay open until this one is done: the completion
                // thread of the listener's device keeps waiting on its queue while the next is accepted
                while (open.size() > 2) {
                    open.remove(0).close();
                }
            }
            assertNull(listenerFailure.getNow(null), "the listener did not fail");
            assertEquals(rounds, requests.size());
        } finally {
            for (RdmaEndpoint ep : open) {
                ep.close();
            }
            listener.close();
            f.close();
        }
    }

    private static void await(DeviceTckFixture f, BooleanSupplier condition, java.util.function.Supplier<String> what) {
        long deadline = System.nanoTime() + f.timeout().toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + f.timeout() + " waiting for " + what.get());
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L); // one vCPU in the VM: the providers' threads run
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
