package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
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
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * Provider-level ping-pong over real RDMA hardware between two processes (profile
 * {@code rdma-hardware}, tag {@code rdma-hardware}; excluded from the default build). Start the
 * server first:
 *
 * <pre>
 * mvn -Prdma-hardware verify -pl smbdirect.rdma.verbs -Dsmbdirect.verbs.role=server \
 *     -Dsmbdirect.verbs.server=192.0.2.10:5445 -Dsmbdirect.verbs.library.path=/usr/local/lib
 * mvn -Prdma-hardware verify -pl smbdirect.rdma.verbs -Dsmbdirect.verbs.role=client \
 *     -Dsmbdirect.verbs.server=192.0.2.10:5445 -Dsmbdirect.verbs.library.path=/usr/local/lib
 * </pre>
 *
 * Optional: {@code -Dsmbdirect.verbs.device=mlx5_0}, {@code -Dsmbdirect.verbs.bind=192.0.2.11}
 * (client side), {@code -Dsmbdirect.verbs.rounds=100}. The client retries its connection for up to 60 s
 * while the server is not listening yet. The exchange: {@code rounds} Send ping /
 * Send pong; the server then sends the address and token of a 64 KiB region open for remote read
 * and write; the client RDMA-writes a pattern into it, RDMA-reads it back, compares, sends "done";
 * the server checks the pattern in its memory; the client disconnects; both sides require
 * onDisconnected as the last callback.
 */
@Tag("rdma-hardware")
class VerbsHardwarePingPongTest {

    private static final int SIZE = 64 * 1024;
    private static final long TIMEOUT_SECONDS = 60;

    /** Callbacks as a queue the test thread reads (handlers must not block). */
    static final class Events implements RdmaEndpointHandler {
        record Completion(long wrId, WorkRequestType type, CompletionStatus status, int byteLength) {
        }

        final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        final List<String> afterDisconnect = new ArrayList<>();
        volatile boolean disconnected;

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            check("established");
            queue.add("established");
        }

        @Override
        public void onCompletion(WorkCompletion c) {
            check("completion");
            queue.add(new Completion(c.wrId(), c.type(), c.status(), c.byteLength()));
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            check("disconnected");
            disconnected = true;
            queue.add(cause);
        }

        private void check(String what) {
            if (disconnected) {
                afterDisconnect.add(what);
            }
        }

        Object next() throws InterruptedException {
            Object o = queue.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (o == null) {
                throw new AssertionError("no RDMA event within " + TIMEOUT_SECONDS + " s");
            }
            return o;
        }

        Completion completion(WorkRequestType type) throws InterruptedException {
            Object o = next();
            assertTrue(o instanceof Completion, "expected a " + type + " completion, got " + o);
            Completion c = (Completion) o;
            assertEquals(type, c.type(), c.toString());
            assertEquals(CompletionStatus.SUCCESS, c.status(), c.toString());
            return c;
        }
    }

    static InetSocketAddress server() {
        String value = System.getProperty("smbdirect.verbs.server", "");
        int colon = value.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("-Dsmbdirect.verbs.server=host:port is required, got '" + value + "'");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(value.substring(0, colon)),
                    Integer.parseInt(value.substring(colon + 1)));
        } catch (Exception e) {
            throw new IllegalArgumentException("-Dsmbdirect.verbs.server=" + value + ": " + e, e);
        }
    }

    static VerbsRdmaProvider provider(String bind) {
        VerbsSettings d = VerbsSettings.defaults();
        int cqSize = Integer.getInteger("smbdirect.verbs.cqSize", d.cqSize());
        VerbsSettings settings = new VerbsSettings(System.getProperty("smbdirect.verbs.device", ""), bind, "AUTO",
                cqSize, Math.min(d.maxSendWorkRequests(), cqSize / 2),
                Math.min(d.maxReceiveWorkRequests(), cqSize / 2), d.maxMessageSize(), d.maxReadDepth(),
                d.maxRegionSize(), false, d.pollBatch(), d.eventTimeoutMillis(), d.resolveTimeoutMillis(),
                d.flushTimeoutMillis(), d.retryCount(), d.rnrRetryCount(), d.listenBacklog(), false,
                System.getProperty("smbdirect.verbs.backend", VerbsSettings.AUTO))
                // 0 (the default): one completion group per completion vector
                .withCompletionGroups(Integer.getInteger("smbdirect.verbs.completionGroups", 0));
        return DeviceTckFixture.start(settings, DeviceTckFixture.probe(settings));
    }

    @Test
    void pingPongSendRdmaWriteAndReadBetweenTwoProcesses() throws Exception {
        String role = System.getProperty("smbdirect.verbs.role", "");
        int rounds = Integer.getInteger("smbdirect.verbs.rounds", 100);
        if (role.equals("server")) {
            runServer(rounds);
        } else if (role.equals("client")) {
            runClient(rounds);
        } else {
            throw new IllegalArgumentException("-Dsmbdirect.verbs.role=server|client is required");
        }
    }

    private static void runServer(int rounds) throws Exception {
        InetSocketAddress address = server();
        VerbsRdmaProvider provider = provider(address.getAddress().getHostAddress());
        Events events = new Events();
        CompletableFuture<RdmaEndpoint> accepted = new CompletableFuture<>();
        RdmaListener listener = provider.listen(address, new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                try {
                    RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(16, 16), events);
                    accepted.complete(ep);
                } catch (Exception e) {
                    request.reject(null);
                    accepted.completeExceptionally(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                accepted.completeExceptionally(new AssertionError("listener failed: " + cause + " " + detail));
            }
        });
        try {
            RdmaEndpoint ep = accepted.get(TIMEOUT_SECONDS * 5, TimeUnit.SECONDS);
            MemoryRegion messages = ep.register(ByteBuffer.allocateDirect(2 * 4096),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE));
            MemoryRegion exposed = ep.register(ByteBuffer.allocateDirect(SIZE),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE));
            ep.postReceive(messages, 0, 4096, 1);
            ep.accept(new ConnectParameters(null, 16, 16));
            assertEquals("established", events.next());
            ByteBuffer out = messages.buffer();
            for (int i = 0; i < rounds; i++) {
                Events.Completion ping = events.completion(WorkRequestType.RECEIVE);
                assertEquals(8, ping.byteLength());
                out.putLong(4096, messages.buffer().getLong(0) + 1);
                ep.postReceive(messages, 0, 4096, 1);
                ep.postSend(messages, 4096, 8, 2);
                events.completion(WorkRequestType.SEND);
            }
            out.putLong(4096, exposed.address()).putInt(4096 + 8, exposed.token()).putInt(4096 + 12, SIZE);
            ep.postSend(messages, 4096, 16, 3);
            events.completion(WorkRequestType.SEND);
            Events.Completion done = events.completion(WorkRequestType.RECEIVE);
            assertEquals(4, done.byteLength());
            ByteBuffer memory = exposed.buffer();
            for (int i = 0; i < SIZE; i++) {
                assertEquals((byte) (i * 31 + 7), memory.get(i), "byte " + i + " written by the peer");
            }
            assertEquals(DisconnectCause.PEER, events.next(), "the client disconnects; no receive is outstanding");
            assertEquals(List.of(), events.afterDisconnect);
            ep.close();
        } finally {
            listener.close();
            provider.shutdown();
        }
    }

    private static void runClient(int rounds) throws Exception {
        InetSocketAddress address = server();
        VerbsRdmaProvider provider = provider(System.getProperty("smbdirect.verbs.bind", ""));
        try {
            Events events;
            RdmaEndpoint ep;
            MemoryRegion messages;
            MemoryRegion local;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (true) {
                events = new Events();
                ep = provider.createEndpoint(new EndpointSettings(16, 16), events);
                // two receive slots (0 and 4096), used in turn, and the send area at 8192: the server
                // sends its last pong and the region descriptor back to back, so a second receive
                // must be posted before the first is reposted (else the descriptor finds none: RNR)
                messages = ep.register(ByteBuffer.allocateDirect(3 * 4096), EnumSet.of(MemoryAccess.LOCAL_WRITE));
                local = ep.register(ByteBuffer.allocateDirect(2 * SIZE), EnumSet.of(MemoryAccess.LOCAL_WRITE));
                ep.postReceive(messages, 0, 4096, 1);
                ep.postReceive(messages, 4096, 4096, 1);
                ep.connect(address, new ConnectParameters(null, 16, 16));
                Object first = events.next();
                if ("established".equals(first)) {
                    break;
                }
                // the server is not listening yet (it may still be starting): the receive is flushed,
                // then the connection ends UNREACHABLE (iWARP, no listener) or REJECTED; try again
                Object cause = first;
                while (!(cause instanceof DisconnectCause)) {
                    cause = events.next();
                }
                ep.close();
                if (System.nanoTime() - deadline > 0
                        || (cause != DisconnectCause.UNREACHABLE && cause != DisconnectCause.REJECTED)) {
                    throw new AssertionError("connecting to " + address + " failed: " + cause);
                }
                Thread.sleep(1000);
            }
            ByteBuffer out = messages.buffer();
            int slot = 0;
            for (long i = 0; i < rounds; i++) {
                out.putLong(8192, i * 2);
                ep.postSend(messages, 8192, 8, 2);
                events.completion(WorkRequestType.SEND);
                events.completion(WorkRequestType.RECEIVE);
                assertEquals(i * 2 + 1, messages.buffer().getLong(slot), "pong of round " + i);
                ep.postReceive(messages, slot, 4096, 1);
                slot ^= 4096;
            }
            Events.Completion descriptor = events.completion(WorkRequestType.RECEIVE);
            assertEquals(16, descriptor.byteLength());
            ByteBuffer in = messages.buffer();
            long remoteAddress = in.getLong(slot);
            int token = in.getInt(slot + 8);
            assertEquals(SIZE, in.getInt(slot + 12));
            ep.postReceive(messages, slot, 4096, 1);
            ByteBuffer pattern = local.buffer();
            for (int i = 0; i < SIZE; i++) {
                pattern.put(i, (byte) (i * 31 + 7));
            }
            ep.postRdmaWrite(local, 0, SIZE, remoteAddress, token, 10);
            assertEquals(SIZE, events.completion(WorkRequestType.RDMA_WRITE).byteLength());
            ep.postRdmaRead(local, SIZE, SIZE, remoteAddress, token, 11);
            assertEquals(SIZE, events.completion(WorkRequestType.RDMA_READ).byteLength());
            ByteBuffer back = local.buffer();
            for (int i = 0; i < SIZE; i++) {
                assertEquals(back.get(i), back.get(SIZE + i), "byte " + i + " read back");
            }
            out.putInt(8192, 0x646f6e65);
            ep.postSend(messages, 8192, 4, 12);
            events.completion(WorkRequestType.SEND);
            ep.disconnect();
            Object last;
            do {
                last = events.next();
            } while (last instanceof Events.Completion c && c.status() == CompletionStatus.FLUSHED);
            assertEquals(DisconnectCause.LOCAL, last);
            assertEquals(List.of(), events.afterDisconnect);
            ep.close();
        } finally {
            provider.shutdown();
        }
    }
}
