package smbdirect.interop.rping;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.RdmaProvider;

/**
 * {@code rping -s}: the responder side of rping over any {@link RdmaProvider}. It listens, accepts
 * the first connection (later requests are rejected; rping without {@code -P} serves one) and for
 * each iteration RDMA Reads the client's source buffer, Sends a "go ahead", RDMA Writes what it read
 * ({@code strlen + 1} bytes) into the client's sink buffer and Sends a "go ahead" again, exactly as
 * {@code rping_test_server} does. The "go ahead" is its 16-byte send buffer, which rping never
 * fills: 16 zero bytes. The run ends well when the client disconnects between iterations.
 */
public final class RpingServer extends RpingPeer implements RdmaListenHandler {

    private static final Logger LOG = LoggerFactory.getLogger(RpingServer.class);

    private final RdmaListener listener;
    private boolean requested;
    private Rping.Info remote;

    private RpingServer(RdmaProvider provider, InetSocketAddress bind, RpingOptions options) throws RdmaException {
        super("server", options);
        this.listener = provider.listen(bind, this);
    }

    /** Listens on {@code bind} (port 0 picks one; see {@link #localAddress()}). */
    public static RpingServer listen(RdmaProvider provider, InetSocketAddress bind, RpingOptions options)
            throws RdmaException {
        return new RpingServer(provider, bind, options);
    }

    /** The bound address with the actual port. */
    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    @Override
    public synchronized void onConnectRequest(RdmaConnectRequest request) {
        if (requested || result.isDone()) {
            LOG.info("rping server rejects a further connection request from {}", request.peerAddress());
            request.reject(ByteBuffer.allocate(0));
            return;
        }
        requested = true;
        state = State.CONNECT_REQUEST;
        LOG.info("rping server: connection request from {}", request.peerAddress());
        try {
            endpoint = request.createEndpoint(new EndpointSettings(Rping.SEND_QUEUE_DEPTH, Rping.RECEIVE_QUEUE_DEPTH),
                    this);
            registerCommon(Rping.INFO_SIZE);
            postRecv();
            expect = State.RDMA_READ_ADV;
        } catch (RdmaException | RuntimeException e) {
            request.reject(ByteBuffer.allocate(0)); // also releases the endpoint
            endpoint = null;
            fail(new RpingException("setting up the connection failed: " + e.getMessage(), e));
            return;
        }
        try {
            // rdma_accept(id, NULL): the depths follow the request's
            endpoint.accept(new ConnectParameters(ByteBuffer.allocate(0),
                    depth(request.peerOutboundReadDepth(), endpoint.capabilities().maxInboundReadDepth()),
                    depth(request.peerInboundReadDepth(), endpoint.capabilities().maxOutboundReadDepth())));
        } catch (RdmaException | RuntimeException e) {
            fail(new RpingException("rdma_accept: " + e.getMessage(), e));
        }
    }

    private static int depth(int requested, int limit) {
        return Math.max(1, Math.min(requested > 0 ? requested : Rping.READ_DEPTH, limit));
    }

    @Override
    public void onListenerFailed(DisconnectCause cause, String detail) {
        fail(new RpingException("listener failed: " + cause + " (" + detail + ")"));
    }

    @Override
    public synchronized void onEstablished(ByteBuffer peerPrivateData) {
        // rping's server wakes on the first receive, not on ESTABLISHED
    }

    @Override
    void onRecv(Rping.Info info) throws RpingException, RdmaException {
        remote = info;
        // server_recv: a receive is the source advertisement at the start of an iteration, else the sink's
        arrive(state.number <= State.CONNECTED.number || state == State.RDMA_WRITE_COMPLETE
                ? State.RDMA_READ_ADV : State.RDMA_WRITE_ADV);
        if (state == State.RDMA_READ_ADV) {
            if (info.unsignedSize() > options.size()) {
                throw new RpingException("the client's buffer (" + info.unsignedSize()
                        + " bytes) is larger than the server's (" + options.size() + ", -S)");
            }
            expect = State.RDMA_READ_COMPLETE;
            endpoint.postRdmaRead(rdmaRegion, 0, info.size(), info.buf(), info.rkey(), WR_RDMA);
        } else {
            int length = Rping.strlen(rdmaRegion.buffer(), 0, options.size() - 1) + 1;
            if (Integer.toUnsignedLong(length) > info.unsignedSize()) {
                throw new RpingException("the client's sink (" + info.unsignedSize() + " bytes) cannot take the "
                        + length + "-byte echo");
            }
            expect = State.RDMA_WRITE_COMPLETE;
            endpoint.postRdmaWrite(rdmaRegion, 0, length, info.buf(), info.rkey(), WR_RDMA);
        }
    }

    @Override
    void onRdmaComplete(State completed) throws RpingException, RdmaException {
        arrive(completed);
        if (completed == State.RDMA_READ_COMPLETE) {
            print("server ping data: " + Rping.string(rdmaRegion.buffer(), 0, remote.size()));
            expect = State.RDMA_WRITE_ADV;
        } else {
            iterations++;
            expect = State.RDMA_READ_ADV;
        }
        endpoint.postSend(sendRegion, 0, Rping.INFO_SIZE, WR_SEND); // "go ahead"
    }

    @Override
    boolean acceptsDisconnect(State before, DisconnectCause cause) {
        // between iterations: the client disconnected after its last ping
        return cause == DisconnectCause.PEER && expect == State.RDMA_READ_ADV
                && (before == State.RDMA_WRITE_COMPLETE || before == State.CONNECT_REQUEST);
    }

    /** Stops listening and releases the connection's endpoint. */
    @Override
    public synchronized void close() {
        listener.close();
        super.close();
    }
}
