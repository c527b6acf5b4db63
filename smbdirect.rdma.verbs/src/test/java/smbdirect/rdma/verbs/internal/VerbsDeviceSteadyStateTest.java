package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
import smbdirect.testsupport.AllocationCounter;

/**
 * Posting and completing allocate nothing on a real RDMA device, in every thread that takes part:
 * the posting thread and the providers' completion threads (polling, waiting for completion
 * events, delivering callbacks), through the whole provider and its backend. Two providers on one
 * device ({@link DeviceTckFixture}: {@code -Dsmbdirect.verbs.device}, {@code -Dsmbdirect.verbs.address});
 * the server reposts each receive from its callback; the client sends and waits for its send
 * completion. Tagged {@code rdma-device}.
 */
@Tag("rdma-device")
class VerbsDeviceSteadyStateTest {

    private static final int WARM_ROUNDS = 3_000;
    private static final int MEASURED_ROUNDS = 2_000;

    /** Counts without allocating; the server side reposts the receive it got. */
    static final class Counting implements RdmaEndpointHandler {
        volatile long sends;
        volatile long receives;
        volatile long failures;
        volatile boolean established;
        volatile RdmaEndpoint endpoint;
        volatile MemoryRegion receiveRegion;

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            established = true;
        }

        @Override
        public void onCompletion(WorkCompletion c) {
            if (c.status() != CompletionStatus.SUCCESS) {
                failures++;
                return;
            }
            if (c.type() == WorkRequestType.SEND) {
                sends++;
            } else if (c.type() == WorkRequestType.RECEIVE) {
                try {
                    endpoint.postReceive(receiveRegion, 0, 256, c.wrId());
                } catch (RdmaException e) {
                    failures++;
                }
                receives++; // after the repost: the sender waits for this count
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        }
    }

    @Test
    void postingAndCompletingAllocateNothingOnTheDevice() throws Exception {
        AllocationCounter threads = AllocationCounter.enabled();
        DeviceTckFixture f = new DeviceTckFixture();
        Counting server = new Counting();
        Counting client = new Counting();
        CompletableFuture<RdmaEndpoint> accepted = new CompletableFuture<>();
        RdmaListener listener = f.serverProvider().listen(f.serverAddress(4461), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                try {
                    RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(16, 16), server);
                    server.endpoint = ep;
                    server.receiveRegion = ep.register(ByteBuffer.allocateDirect(256),
                            EnumSet.of(MemoryAccess.LOCAL_WRITE));
                    for (int i = 0; i < 8; i++) {
                        ep.postReceive(server.receiveRegion, 0, 256, i);
                    }
                    ep.accept(new ConnectParameters(null, 1, 1));
                    accepted.complete(ep);
                } catch (RdmaException e) {
                    accepted.completeExceptionally(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                accepted.completeExceptionally(new AssertionError(cause + " " + detail));
            }
        });
        RdmaEndpoint ep = f.clientProvider().createEndpoint(new EndpointSettings(16, 16), client);
        try {
            client.endpoint = ep;
            MemoryRegion message = ep.register(ByteBuffer.allocateDirect(64), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            ep.connect(f.serverAddress(4461), new ConnectParameters(null, 1, 1));
            RdmaEndpoint passive = accepted.get(f.timeout().toSeconds(), TimeUnit.SECONDS);
            long deadline = System.nanoTime() + f.timeout().toNanos();
            while (!client.established && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertTrue(client.established, "the client is established");
            long limit = f.timeout().toNanos() * 10; // computed once: Duration is an object
            long sent = rounds(ep, message, client, server, WARM_ROUNDS, limit);
            long[] ids = completionThreads();
            long me = Thread.currentThread().getId();
            List<String> allocating = List.of("not measured");
            // a one-off (a late class initialisation, a deoptimisation) may fall into a window: 3 tries
            for (int attempt = 0; attempt < 3 && !allocating.isEmpty(); attempt++) {
                long[] before = threads.bytes(ids);
                long mine = threads.bytes(me);
                sent += rounds(ep, message, client, server, MEASURED_ROUNDS, limit);
                long posting = threads.bytes(me) - mine;
                long[] after = threads.bytes(ids);
                allocating = new ArrayList<>();
                if (posting != 0) {
                    allocating.add("posting thread: " + posting + " bytes");
                }
                for (int i = 0; i < ids.length; i++) {
                    if (after[i] - before[i] != 0) {
                        allocating.add("completion thread " + ids[i] + ": " + (after[i] - before[i]) + " bytes");
                    }
                }
            }
            assertEquals(0, client.failures + server.failures, "failed completions");
            assertEquals(sent, server.receives, "every message was received");
            assertEquals(List.of(), allocating, MEASURED_ROUNDS + " rounds of send, receive and repost over "
                    + f.clientProvider().describeSettings());
            passive.close();
        } finally {
            ep.close();
            listener.close();
            f.close();
        }
    }

    /**
     * Sends {@code count} messages one at a time, each after the previous send completed and the
     * server got it and reposted its receive (the flow control SMB Direct's credits give: without
     * it a sender can outrun the receiver's reposting, and a Send without a posted receive breaks
     * the connection).
     */
    private static int rounds(RdmaEndpoint ep, MemoryRegion message, Counting client, Counting server, int count,
            long limitNanos) throws RdmaException {
        long deadline = System.nanoTime() + limitNanos;
        for (int i = 0; i < count; i++) {
            long sent = client.sends + 1;
            long received = server.receives + 1;
            ep.postSend(message, 0, 64, i);
            while (client.sends < sent || server.receives < received) {
                if (client.failures + server.failures > 0 || System.nanoTime() - deadline > 0) {
                    throw new AssertionError("round " + i + ": not completed (failures: client " + client.failures
                            + ", server " + server.failures + ")");
                }
                Thread.yield(); // one vCPU in the VM: let the completion thread run
            }
        }
        return count;
    }

    private static long[] completionThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("smbdirect-verbs-cq-")).mapToLong(Thread::getId).toArray();
    }
}
