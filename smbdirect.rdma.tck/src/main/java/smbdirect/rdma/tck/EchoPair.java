package smbdirect.rdma.tck;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

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
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * Two endpoints connected through the provider SPI with no protocol on top, for the steady-state
 * allocation tests of the providers and the floors of the benchmarks. Each {@link Side} registers one
 * receive region of {@code receives} slots and posts every slot; a consumed receive is posted again at
 * once, before the counter moves, so a sender that keeps {@code sent - received < receives} never
 * finds the receiver without a receive. Optionally the server answers every message with a Send
 * (ping-pong), and each side has a local region and a region the peer may read and write, for RDMA.
 *
 * <p>Steady state allocates nothing here: the callbacks only repost, count and (on the server) echo;
 * only a failure builds a text. Waiting is left to the caller ({@link #idle}), on its own thread.
 *
 * <p>Not thread-safe for senders: one thread sends on the client; the handlers run on the provider's
 * threads (or inline, inside a post).
 */
public final class EchoPair implements AutoCloseable {

    /** How long connection setup and the disconnect of {@link #close()} may take before the pair is broken. */
    private static final long SETUP_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** The active (connecting) side. */
    public final Side client;
    /** The passive (listening) side; it echoes when the pair was built with {@link Builder#echo}. */
    public final Side server;
    private final RdmaListener listener;

    private EchoPair(Builder b, RdmaProvider clientProvider, RdmaProvider serverProvider, InetSocketAddress listenAt)
            throws RdmaException, InterruptedException {
        client = new Side(b, 0);
        server = new Side(b, b.echoLength);
        CompletableFuture<Void> accepted = new CompletableFuture<>();
        listener = serverProvider.listen(listenAt, new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                try {
                    RdmaEndpoint ep = request.createEndpoint(b.config, server);
                    server.start(ep);
                    ep.accept(new ConnectParameters(null, 8, 8));
                    accepted.complete(null);
                } catch (RdmaException e) {
                    accepted.completeExceptionally(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                accepted.completeExceptionally(new IllegalStateException("listener failed: " + cause + " " + detail));
            }
        });
        try {
            RdmaEndpoint ep = clientProvider.createEndpoint(b.config, client);
            client.start(ep);
            ep.connect(listener.localAddress(), new ConnectParameters(null, 8, 8));
            try {
                accepted.get(SETUP_NANOS, TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("the connection was not accepted", e);
            }
            long deadline = System.nanoTime() + SETUP_NANOS;
            int spins = 0;
            while (!client.established || !server.established) {
                spins = idle(spins, deadline, "establishment");
            }
        } catch (RdmaException | InterruptedException | RuntimeException e) {
            closeEndpoints();
            throw e;
        }
    }

    /** A pair of 8 receives of 64 bytes a side, send regions of 64 bytes, no RDMA regions, no echo. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * One round of waiting for progress that other threads make, without allocating: spins briefly,
     * then yields (two cores may be shared with the provider's threads).
     * {@code int spins = 0; while (notYet) spins = idle(spins, deadline, what);}
     *
     * @param deadline {@link System#nanoTime()} after which the wait fails
     * @return the spins so far, for the next round
     * @throws AssertionError when the deadline passed without progress (a lost message: the run is broken)
     */
    public static int idle(int spins, long deadline, String what) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
            if ((spins & 0x3ff) == 0 && System.nanoTime() > deadline) {
                throw new AssertionError("no progress waiting for " + what);
            }
        }
        return spins + 1;
    }

    /**
     * Disconnects (the client asks; both sides are told), then closes both endpoints and the
     * listener. The providers stay open: they are the caller's.
     *
     * @throws IllegalStateException when the disconnect did not reach both sides within 30 s (the
     *     endpoints and the listener are closed all the same)
     */
    @Override
    public void close() {
        try {
            if (client.endpoint != null && client.established && server.established) {
                client.endpoint.disconnect();
                long deadline = System.nanoTime() + SETUP_NANOS;
                while (!client.disconnected || !server.disconnected) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the disconnect did not reach both sides");
                    }
                    Thread.yield();
                }
            }
        } finally {
            closeEndpoints();
        }
    }

    private void closeEndpoints() {
        if (client.endpoint != null) {
            client.endpoint.close();
        }
        if (server.endpoint != null) {
            server.endpoint.close();
        }
        listener.close();
    }

    /** The shape of a pair: regions, queue depths, echo. */
    public static final class Builder {
        private int receives = 8;
        private int receiveSize = 64;
        private Supplier<ByteBuffer> sendMemory;
        private int rdmaSize;
        private int echoLength;
        private EndpointSettings config = new EndpointSettings(16, 16);

        private Builder() {
        }

        /** Each side posts {@code count} receives of {@code size} bytes (slot {@code i} is work request {@code i}). */
        public Builder receives(int count, int size) {
            if (count < 1 || size < 1) {
                throw new IllegalArgumentException("receives " + count + " of " + size + " bytes");
            }
            receives = count;
            receiveSize = size;
            return this;
        }

        /** The memory of each side's send region, one buffer a side (default: a direct buffer of the receive size). */
        public Builder sendMemory(Supplier<ByteBuffer> memory) {
            sendMemory = Objects.requireNonNull(memory, "memory");
            return this;
        }

        /**
         * Each side registers a local region of {@code size} bytes (RDMA Read sink, RDMA Write source)
         * and one of {@code size} bytes its peer may read and write.
         */
        public Builder rdmaRegions(int size) {
            rdmaSize = size;
            return this;
        }

        /** The server answers every message received with a Send of {@code length} bytes from its send region. */
        public Builder echo(int length) {
            echoLength = length;
            return this;
        }

        /** The queue depths of both endpoints (default 16 and 16). */
        public Builder endpointSettings(EndpointSettings endpointSettings) {
            config = Objects.requireNonNull(endpointSettings, "endpointSettings");
            return this;
        }

        /**
         * Listens on {@code listenAt} with {@code serverProvider}, connects from {@code clientProvider}
         * and waits until both sides are established.
         *
         * @throws IllegalStateException when the connection was not accepted and established in time
         */
        public EchoPair connect(RdmaProvider clientProvider, RdmaProvider serverProvider, InetSocketAddress listenAt)
                throws RdmaException, InterruptedException {
            return new EchoPair(this, clientProvider, serverProvider, listenAt);
        }
    }

    /** One end: its regions, its counters (each written by one thread at a time) and the first failure. */
    public static final class Side implements RdmaEndpointHandler {
        private final int receives;
        private final int receiveSize;
        private final int echoLength;
        private final ByteBuffer receiveMemory;
        private final ByteBuffer sendMemory;
        private final int rdmaSize;
        private RdmaEndpoint endpoint;
        private MemoryRegion receiveRegion;
        private MemoryRegion sendRegion;
        private MemoryRegion rdmaLocal;
        private long exposedAddress;
        private int exposedToken;
        private volatile boolean established;
        private volatile boolean disconnected;
        private volatile long received;
        private volatile long sendsCompleted;
        private volatile long rdmaCompleted;
        private volatile int rdmaLastBytes;
        private volatile String failure;
        private long sendWrId;

        private Side(Builder b, int echoLength) {
            this.receives = b.receives;
            this.receiveSize = b.receiveSize;
            this.echoLength = echoLength;
            this.receiveMemory = ByteBuffer.allocateDirect(b.receives * b.receiveSize);
            this.sendMemory = b.sendMemory == null ? ByteBuffer.allocateDirect(b.receiveSize) : b.sendMemory.get();
            this.rdmaSize = b.rdmaSize;
        }

        private void start(RdmaEndpoint ep) throws RdmaException {
            endpoint = ep;
            receiveRegion = ep.register(receiveMemory, EnumSet.of(MemoryAccess.LOCAL_WRITE));
            sendRegion = ep.register(sendMemory, EnumSet.noneOf(MemoryAccess.class));
            if (rdmaSize > 0) {
                rdmaLocal = ep.register(ByteBuffer.allocateDirect(rdmaSize), EnumSet.of(MemoryAccess.LOCAL_WRITE));
                MemoryRegion exposed = ep.register(ByteBuffer.allocateDirect(rdmaSize),
                        EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE, MemoryAccess.REMOTE_READ));
                exposedAddress = exposed.address();
                exposedToken = exposed.token();
            }
            for (int i = 0; i < receives; i++) {
                ep.postReceive(receiveRegion, i * receiveSize, receiveSize, i);
            }
        }

        /** Posts a Send of {@code length} bytes from the start of the send region. */
        public void send(int length) {
            send(0, length);
        }

        /** Posts a Send of {@code length} bytes at {@code offset} of the send region. */
        public void send(int offset, int length) {
            try {
                endpoint.postSend(sendRegion, offset, length, ++sendWrId);
            } catch (RdmaException e) {
                throw new IllegalStateException("postSend failed", e);
            }
        }

        /** The endpoint, for RDMA requests and registrations of the caller's own. */
        public RdmaEndpoint endpoint() {
            return endpoint;
        }

        /** The local region for RDMA ({@link Builder#rdmaRegions}), or null. */
        public MemoryRegion rdmaLocal() {
            return rdmaLocal;
        }

        /** The address of the region the peer may read and write ({@link Builder#rdmaRegions}). */
        public long exposedAddress() {
            return exposedAddress;
        }

        /** The token of the region the peer may read and write ({@link Builder#rdmaRegions}). */
        public int exposedToken() {
            return exposedToken;
        }

        /** Messages received (each receive reposted before this moves). */
        public long received() {
            return received;
        }

        /** Sends completed. */
        public long sendsCompleted() {
            return sendsCompleted;
        }

        /** RDMA Reads and Writes completed. */
        public long rdmaCompleted() {
            return rdmaCompleted;
        }

        /** The bytes of the last RDMA Read or Write completed. */
        public int rdmaLastBytes() {
            return rdmaLastBytes;
        }

        /** The first failure: a completion that did not succeed, a repost that failed, an unexpected disconnect; or null. */
        public String failure() {
            return failure;
        }

        /** Throws the first failure, if there was one. */
        public void checkHealthy() {
            String f = failure;
            if (f != null) {
                throw new IllegalStateException(f);
            }
        }

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            established = true;
        }

        @Override
        public void onCompletion(WorkCompletion wc) {
            if (wc.status() != CompletionStatus.SUCCESS) {
                if (failure == null) {
                    failure = wc.type() + " completed with " + wc.status();
                }
                return;
            }
            if (wc.type() == WorkRequestType.RECEIVE) {
                long slot = wc.wrId();
                try {
                    endpoint.postReceive(receiveRegion, (int) slot * receiveSize, receiveSize, slot);
                    if (echoLength > 0) {
                        endpoint.postSend(sendRegion, 0, echoLength, ++sendWrId);
                    }
                } catch (RdmaException e) {
                    failure = "repost failed: " + e.getMessage();
                }
                received = received + 1; // one writer: callbacks of one endpoint never run concurrently
            } else if (wc.type() == WorkRequestType.SEND) {
                sendsCompleted = sendsCompleted + 1;
            } else if (wc.type() == WorkRequestType.RDMA_WRITE || wc.type() == WorkRequestType.RDMA_READ) {
                rdmaLastBytes = wc.byteLength();
                rdmaCompleted = rdmaCompleted + 1;
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            if (failure == null && cause != DisconnectCause.LOCAL && cause != DisconnectCause.PEER
                    && cause != DisconnectCause.PROVIDER_SHUTDOWN) {
                failure = "disconnected: " + cause + " " + detail;
            }
            disconnected = true;
        }
    }
}
