package smbdirect.interop.siw;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;

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

/**
 * An rping peer over the provider SPI that breaks the protocol on purpose so that one side must
 * send a Terminate: as client it Sends more bytes than rping's 16-byte receive holds; as server it
 * posts a receive shorter than rping's 16-byte Send. {@link #ended()} completes with how the
 * connection ended. Callbacks are serialised on {@code this}.
 */
final class TerminatingPeer implements RdmaEndpointHandler, RdmaListenHandler, AutoCloseable {

    /** How the connection ended, as the provider reported it. */
    record End(DisconnectCause cause, String detail) {
    }

    private final CompletableFuture<End> ended = new CompletableFuture<>();
    private final int sendLength;
    private final int receiveLength;
    private RdmaEndpoint endpoint;
    private RdmaListener listener;
    private MemoryRegion region;

    private TerminatingPeer(int sendLength, int receiveLength) {
        this.sendLength = sendLength;
        this.receiveLength = receiveLength;
    }

    /** Connects to {@code server} and Sends {@code sendLength} bytes at once. */
    static TerminatingPeer connectAndSend(RdmaProvider provider, InetSocketAddress server, int sendLength)
            throws RdmaException {
        TerminatingPeer p = new TerminatingPeer(sendLength, 16);
        synchronized (p) {
            p.endpoint = provider.createEndpoint(new EndpointSettings(4, 2), p);
            p.region = p.endpoint.register(ByteBuffer.allocateDirect(Math.max(sendLength, 16)),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE));
            p.endpoint.postReceive(p.region, 0, 16, 1);
            p.endpoint.connect(server, new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
        }
        return p;
    }

    /** Listens on {@code bind}; the connection it accepts posts one receive of {@code receiveLength} bytes. */
    static TerminatingPeer listenWithShortReceive(RdmaProvider provider, InetSocketAddress bind, int receiveLength)
            throws RdmaException {
        TerminatingPeer p = new TerminatingPeer(0, receiveLength);
        synchronized (p) {
            p.listener = provider.listen(bind, p);
        }
        return p;
    }

    /** The listening address (server side). */
    InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    CompletableFuture<End> ended() {
        return ended;
    }

    @Override
    public synchronized void onConnectRequest(RdmaConnectRequest request) {
        if (endpoint != null) {
            request.reject(ByteBuffer.allocate(0));
            return;
        }
        try {
            endpoint = request.createEndpoint(new EndpointSettings(4, 2), this);
            region = endpoint.register(ByteBuffer.allocateDirect(16), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            endpoint.postReceive(region, 0, receiveLength, 1);
            endpoint.accept(new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
        } catch (RdmaException | RuntimeException e) {
            ended.completeExceptionally(e);
        }
    }

    @Override
    public void onListenerFailed(DisconnectCause cause, String detail) {
        ended.completeExceptionally(new IllegalStateException("listener failed: " + cause + " " + detail));
    }

    @Override
    public synchronized void onEstablished(ByteBuffer peerPrivateData) {
        if (sendLength > 0) {
            try {
                endpoint.postSend(region, 0, sendLength, 2);
            } catch (RdmaException | RuntimeException e) {
                ended.completeExceptionally(e);
            }
        }
    }

    @Override
    public void onCompletion(WorkCompletion completion) {
        // the Send completes once TCP has it; the receive is flushed when the Terminate ends the connection
    }

    @Override
    public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        ended.complete(new End(cause, detail));
    }

    @Override
    public synchronized void close() {
        if (endpoint != null) {
            endpoint.close();
        }
        if (listener != null) {
            listener.close();
        }
    }
}
