package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.junit.jupiter.api.Tag;
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
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * A peer that stops posting receives, on a real RDMA device, with a second connection beside it:
 * the connection whose receiver stopped ends on both sides (the sender's Send that found no
 * receive completes as RECEIVER_NOT_READY where Sends complete on acknowledgement, InfiniBand and
 * RoCE; on iWARP it completed when handed to TCP and the peer's Terminate ends the connection),
 * and the other connection between the same two providers goes on, message after message, and
 * ends in order. Tagged {@code rdma-device}.
 */
@Tag("rdma-device")
class VerbsDeviceReceiverStopsTest {

    private static final int PORT = 4465;
    private static final int POSTED = 4;
    private static final int SLOT = 64;
    private static final int ROUNDS = 20;

    /** One end of a connection: counts what completed, reposts each receive while told to. */
    static final class Side implements RdmaEndpointHandler {
        volatile RdmaEndpoint ep;
        volatile MemoryRegion region;
        volatile boolean repost = true;
        volatile boolean established;
        volatile long sends;
        volatile long receives;
        final List<String> failed = new CopyOnWriteArrayList<>();
        volatile DisconnectCause cause;
        volatile String detail;

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            established = true;
        }

        @Override
        public void onCompletion(WorkCompletion c) {
            if (c.status() != CompletionStatus.SUCCESS) {
                if (c.status() != CompletionStatus.FLUSHED) {
                    failed.add(c.type() + ":" + c.status());
                }
                return;
            }
            if (c.type() == WorkRequestType.SEND) {
                sends++;
            } else if (c.type() == WorkRequestType.RECEIVE) {
                if (repost) {
                    try {
                        ep.postReceive(region, (int) c.wrId() * SLOT, SLOT, c.wrId());
                    } catch (RdmaException e) {
                        failed.add("repost: " + e.getMessage());
                    }
                }
                receives++; // after the repost: the sender waits for this count
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            this.detail = detail;
            this.cause = cause;
        }

        @Override
        public String toString() {
            return "sends " + sends + ", receives " + receives + ", failed " + failed + ", ended " + cause + " "
                    + detail;
        }
    }

    @Test
    void aPeerThatStopsPostingReceivesEndsItsConnectionAndTheOtherConnectionGoesOn() throws Exception {
        DeviceTckFixture f = new DeviceTckFixture();
        List<CompletableFuture<Side>> accepted = new CopyOnWriteArrayList<>();
        RdmaListener listener = f.serverProvider().listen(f.serverAddress(PORT), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                CompletableFuture<Side> next = accepted.get(accepted.size() - 1);
                Side server = new Side();
                try {
                    server.ep = request.createEndpoint(new EndpointSettings(16, 16), server);
                    server.region = server.ep.register(ByteBuffer.allocateDirect(POSTED * SLOT),
                            EnumSet.of(MemoryAccess.LOCAL_WRITE));
                    for (int i = 0; i < POSTED; i++) {
                        server.ep.postReceive(server.region, i * SLOT, SLOT, i);
                    }
                    server.ep.accept(new ConnectParameters(null, 1, 1));
                    next.complete(server);
                } catch (RdmaException | RuntimeException e) {
                    next.completeExceptionally(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                accepted.forEach(a -> a.completeExceptionally(new AssertionError(cause + " " + detail)));
            }
        });
        List<RdmaEndpoint> open = new ArrayList<>();
        try {
            Side clientA = new Side();
            Side serverA = connect(f, clientA, accepted, open);
            Side clientB = new Side();
            Side serverB = connect(f, clientB, accepted, open);
            rounds(f, clientA, serverA, ROUNDS, "A");
            rounds(f, clientB, serverB, ROUNDS, "B");

            // A's receiver stops reposting: its posted receives take the next messages, then a Send finds none
            serverA.repost = false;
            rounds(f, clientA, serverA, POSTED, "A (the receives still posted)");
            clientA.ep.postSend(clientA.region, 0, SLOT, POSTED);
            await(f, () -> clientA.cause != null && serverA.cause != null,
                    () -> "connection A ends on both sides (client " + clientA + ", server " + serverA + ")");
            if (f.sendsAndWritesCompleteOnAcknowledgement()) {
                assertEquals(List.of(WorkRequestType.SEND + ":" + CompletionStatus.RECEIVER_NOT_READY), clientA.failed,
                        "the Send that found no receive: " + clientA);
            } else {
                assertEquals(List.of(), clientA.failed, "iWARP: the Send completed when handed to TCP: " + clientA);
            }
            assertTrue(clientA.cause == DisconnectCause.QP_ERROR || clientA.cause == DisconnectCause.PEER,
                    "the sender's end names the queue pair's failure or the peer: " + clientA);
            assertTrue(serverA.cause == DisconnectCause.QP_ERROR || serverA.cause == DisconnectCause.PEER,
                    "the receiver's end: " + serverA);
            assertTrue(clientA.detail != null && !clientA.detail.isBlank(), "with a reason: " + clientA);

            // B, between the same two providers on the same completion queues, goes on
            assertNull(clientB.cause, "B's client is untouched: " + clientB);
            assertNull(serverB.cause, "B's server is untouched: " + serverB);
            rounds(f, clientB, serverB, ROUNDS, "B after A ended");
            assertEquals(List.of(), clientB.failed);
            assertEquals(List.of(), serverB.failed);
            clientB.ep.disconnect();
            await(f, () -> clientB.cause != null && serverB.cause != null,
                    () -> "connection B ends in order (client " + clientB + ", server " + serverB + ")");
            assertEquals(DisconnectCause.LOCAL, clientB.cause, clientB.toString());
            assertEquals(DisconnectCause.PEER, serverB.cause, serverB.toString());
        } finally {
            for (RdmaEndpoint ep : open) {
                ep.close();
            }
            listener.close();
            f.close();
        }
    }

    /** Connects a client endpoint (one message slot) and waits until both sides are established. */
    private static Side connect(DeviceTckFixture f, Side client, List<CompletableFuture<Side>> accepted,
            List<RdmaEndpoint> open) throws Exception {
        CompletableFuture<Side> request = new CompletableFuture<>();
        accepted.add(request);
        client.ep = f.clientProvider().createEndpoint(new EndpointSettings(16, 16), client);
        open.add(client.ep);
        client.region = client.ep.register(ByteBuffer.allocateDirect((POSTED + 1) * SLOT),
                EnumSet.of(MemoryAccess.LOCAL_WRITE));
        client.ep.connect(f.serverAddress(PORT), new ConnectParameters(null, 1, 1));
        Side server = request.get(f.timeout().toSeconds(), TimeUnit.SECONDS);
        open.add(server.ep);
        await(f, () -> client.established && server.established,
                () -> "both sides established (client " + client + ", server " + server + ")");
        return server;
    }

    /**
     * Sends {@code count} messages one at a time, each after the previous Send completed and the
     * receiver got it (the flow control SMB Direct's credits give).
     */
    private static void rounds(DeviceTckFixture f, Side client, Side server, int count, String name) throws Exception {
        for (int i = 0; i < count; i++) {
            long sent = client.sends + 1;
            long received = server.receives + 1;
            client.ep.postSend(client.region, 0, SLOT, i);
            int round = i;
            await(f, () -> client.sends >= sent && server.receives >= received || client.cause != null
                    || !client.failed.isEmpty(), () -> name + " round " + round + " (client " + client + ", server "
                            + server + ")");
            if (client.cause != null || !client.failed.isEmpty()) {
                fail(name + " round " + round + " failed (client " + client + ", server " + server + ")");
            }
        }
    }

    private static void await(DeviceTckFixture f, BooleanSupplier condition, Supplier<String> what) {
        long deadline = System.nanoTime() + f.timeout().toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + f.timeout() + " waiting for " + what.get());
            }
            LockSupport.parkNanos(1_000_000L); // one vCPU in the VM: the providers' threads run
        }
    }
}
