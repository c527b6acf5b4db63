package smbdirect.bench;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointConfig;
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
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * The floor of the mock: two endpoints of one fabric connected through the provider SPI with no
 * protocol on top. Each side registers one receive region of {@code receives} slots of
 * {@code receiveSize} bytes and one send region; a consumed receive is posted again at once (before
 * the counter moves, so a sender that keeps {@code sent - received < receives} never finds the
 * receiver without a receive). Optionally the server answers every message with a Send of
 * {@code echoLength} bytes (ping-pong).
 *
 * <p>Not thread-safe for senders: one benchmark thread sends on the client; the handlers run on
 * the fabric's threads (or inline).
 */
final class RawPair implements AutoCloseable {

    static final int PORT = 445;

    final MockFabric fabric;
    final Side client;
    final Side server;
    private final RdmaListener listener;

    RawPair(DeliveryMode mode, int receiveSize, int receives, int sendRegionSize, int echoLength)
            throws RdmaException, InterruptedException {
        fabric = MockFabric.builder().name("raw-" + mode.name().toLowerCase()).mode(mode).build();
        MockProvider serverDevice = fabric.provider("server");
        MockProvider clientDevice = fabric.provider("client");
        client = new Side(receiveSize, receives, sendRegionSize, 0);
        server = new Side(receiveSize, receives, sendRegionSize, echoLength);
        EndpointConfig config = new EndpointConfig(receives + 1, receives + 1);
        CompletableFuture<Void> accepted = new CompletableFuture<>();
        listener = serverDevice.listen(new InetSocketAddress(serverDevice.address(), PORT), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                try {
                    RdmaEndpoint ep = request.createEndpoint(config, server);
                    server.start(ep);
                    ep.accept(new ConnectParameters(null, 8, 8));
                    accepted.complete(null);
                } catch (RdmaException e) {
                    accepted.completeExceptionally(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                accepted.completeExceptionally(new IllegalStateException(cause + " " + detail));
            }
        });
        RdmaEndpoint ep = clientDevice.createEndpoint(config, client);
        client.start(ep);
        ep.connect(listener.localAddress(), new ConnectParameters(null, 8, 8));
        try {
            accepted.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("raw connection not accepted", e);
        }
        Spin spin = new Spin();
        while (!client.established || !server.established) {
            spin.idle("establishment");
        }
    }

    @Override
    public void close() {
        client.endpoint.disconnect();
        Spin spin = new Spin();
        while (!client.disconnected || !server.disconnected) {
            spin.idle("disconnect");
        }
        client.endpoint.close();
        server.endpoint.close();
        listener.close();
        fabric.close();
    }

    /** One end: its receive region, its send region and its counters. */
    static final class Side implements RdmaEndpointHandler {
        final int receiveSize;
        final int receives;
        final ByteBuffer recvMemory;
        final ByteBuffer sendMemory;
        final int echoLength;
        RdmaEndpoint endpoint;
        MemoryRegion recvRegion;
        MemoryRegion sendRegion;
        volatile boolean established;
        volatile boolean disconnected;
        volatile long received;
        volatile long sendsCompleted;
        /** RDMA Reads and Writes completed, and the bytes of the last one. */
        volatile long rdmaCompleted;
        volatile int rdmaLastBytes;
        volatile String failure;
        private long sendWrId;

        Side(int receiveSize, int receives, int sendRegionSize, int echoLength) {
            this.receiveSize = receiveSize;
            this.receives = receives;
            this.recvMemory = ByteBuffer.allocateDirect(receiveSize * receives);
            this.sendMemory = Buffers.pattern(sendRegionSize);
            this.echoLength = echoLength;
        }

        void start(RdmaEndpoint ep) throws RdmaException {
            endpoint = ep;
            recvRegion = ep.register(recvMemory, EnumSet.of(MemoryAccess.LOCAL_WRITE));
            sendRegion = ep.register(sendMemory, EnumSet.noneOf(MemoryAccess.class));
            for (int i = 0; i < receives; i++) {
                ep.postReceive(recvRegion, i * receiveSize, receiveSize, i);
            }
        }

        /** Posts a Send of {@code length} bytes at {@code offset} of the send region. */
        void send(int offset, int length) {
            try {
                endpoint.postSend(sendRegion, offset, length, ++sendWrId);
            } catch (RdmaException e) {
                throw new IllegalStateException("postSend failed", e);
            }
        }

        void checkHealthy() {
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
                    endpoint.postReceive(recvRegion, (int) slot * receiveSize, receiveSize, slot);
                    if (echoLength > 0) {
                        endpoint.postSend(sendRegion, 0, echoLength, ++sendWrId);
                    }
                } catch (RdmaException e) {
                    failure = "repost failed: " + e.getMessage();
                }
                received = received + 1; // single writer: callbacks of one endpoint are never concurrent
            } else if (wc.type() == WorkRequestType.SEND) {
                sendsCompleted = sendsCompleted + 1;
            } else if (wc.type() == WorkRequestType.RDMA_WRITE || wc.type() == WorkRequestType.RDMA_READ) {
                rdmaLastBytes = wc.byteLength();
                rdmaCompleted = rdmaCompleted + 1;
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            disconnected = true;
        }
    }
}
