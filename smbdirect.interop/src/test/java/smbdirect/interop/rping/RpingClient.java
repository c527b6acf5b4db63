package smbdirect.interop.rping;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaProvider;

/**
 * {@code rping -c}: the initiator side of rping over any {@link RdmaProvider}. It connects with
 * IRD = ORD = 1 and no private data, then for each of {@code count} iterations puts the ping data
 * in its source buffer, Sends the source's {@code rping_rdma_info}, waits for the "go ahead", Sends
 * its sink's info, waits for the second "go ahead" and (with {@code validate}) compares sink and
 * source byte for byte, as {@code rping_test_client} does. Then it disconnects.
 *
 * <p>rping reuses one send buffer for both advertisements; this client gives each its own 16 bytes
 * so that no Send's memory is rewritten before its completion. The bytes on the wire are the same.
 */
public final class RpingClient extends RpingPeer {

    private static final Logger LOG = LoggerFactory.getLogger(RpingClient.class);

    private MemoryRegion startRegion;

    private RpingClient(RpingOptions options) {
        super("client", options);
        if (options.count() < 1) {
            throw new IllegalArgumentException("count must be at least 1 (rping's -C 0, forever, is not supported): "
                    + options.count());
        }
    }

    /**
     * Creates the endpoint and buffers, posts the receive and connects to {@code server}; the run
     * goes on in the provider's callbacks, see {@link #result()}.
     *
     * @throws RdmaException when the provider refuses the endpoint, a registration or the connect
     *     (nothing is left behind then)
     */
    public static RpingClient connect(RdmaProvider provider, InetSocketAddress server, RpingOptions options)
            throws RdmaException {
        RpingClient c = new RpingClient(options);
        synchronized (c) {
            try {
                c.endpoint = provider.createEndpoint(
                        new EndpointSettings(Rping.SEND_QUEUE_DEPTH, Rping.RECEIVE_QUEUE_DEPTH), c);
                c.registerCommon(2 * Rping.INFO_SIZE);
                c.startRegion = c.endpoint.register(ByteBuffer.allocateDirect(options.size()), RDMA_ACCESS);
                c.postRecv();
                c.state = State.ROUTE_RESOLVED;
                c.expect = State.CONNECTED;
                LOG.info("rping client connecting to {}", server);
                c.endpoint.connect(server,
                        new ConnectParameters(ByteBuffer.allocate(0), Rping.READ_DEPTH, Rping.READ_DEPTH));
            } catch (RdmaException | RuntimeException e) {
                if (c.endpoint != null) {
                    c.endpoint.close();
                }
                throw e;
            }
        }
        return c;
    }

    @Override
    public synchronized void onEstablished(ByteBuffer peerPrivateData) {
        try {
            arrive(State.CONNECTED);
        } catch (RpingException e) {
            fail(e);
            return;
        }
        if (options.firstSendDelay().isZero()) {
            startPing();
        } else {
            CompletableFuture.delayedExecutor(options.firstSendDelay().toNanos(), TimeUnit.NANOSECONDS)
                    .execute(this::startPing);
        }
    }

    /** The top of rping_test_client's loop: fill the source, advertise it. */
    private synchronized void startPing() {
        if (state != State.CONNECTED && state != State.RDMA_WRITE_COMPLETE) {
            return; // disconnected or failed while the first Send waited
        }
        try {
            state = State.RDMA_READ_ADV;
            Rping.fill(startRegion.buffer(), 0, iterations, options.size());
            new Rping.Info(startRegion.address(), startRegion.token(), options.size()).encode(sendRegion.buffer(), 0);
            expect = State.RDMA_WRITE_ADV;
            endpoint.postSend(sendRegion, 0, Rping.INFO_SIZE, WR_SEND);
        } catch (RdmaException | RuntimeException e) {
            fail(e);
        }
    }

    @Override
    void onRecv(Rping.Info info) throws RpingException, RdmaException {
        // client_recv: the first "go ahead" follows the server's RDMA Read, the second its RDMA Write
        arrive(state == State.RDMA_READ_ADV ? State.RDMA_WRITE_ADV : State.RDMA_WRITE_COMPLETE);
        if (state == State.RDMA_WRITE_ADV) {
            new Rping.Info(rdmaRegion.address(), rdmaRegion.token(), options.size())
                    .encode(sendRegion.buffer(), Rping.INFO_SIZE);
            expect = State.RDMA_WRITE_COMPLETE;
            endpoint.postSend(sendRegion, Rping.INFO_SIZE, Rping.INFO_SIZE, WR_SEND);
            return;
        }
        if (options.validate() && !sameBytes(startRegion, rdmaRegion, options.size())) {
            throw new RpingException("data mismatch! ping " + iterations + ": sent \""
                    + Rping.string(startRegion.buffer(), 0, options.size()) + "\", got back \""
                    + Rping.string(rdmaRegion.buffer(), 0, options.size()) + "\"");
        }
        print("ping data: " + Rping.string(rdmaRegion.buffer(), 0, options.size()));
        iterations++;
        if (iterations < options.count()) {
            startPing();
        } else {
            endpoint.disconnect(); // rping_disconnect after the last ping
        }
    }

    private static boolean sameBytes(MemoryRegion a, MemoryRegion b, int length) {
        byte[] x = new byte[length];
        byte[] y = new byte[length];
        a.buffer().get(0, x);
        b.buffer().get(0, y);
        return Arrays.equals(x, y);
    }

    @Override
    void onRdmaComplete(State completed) throws RpingException {
        throw new RpingException("unknown!!!!! completion " + completed + " on the client");
    }

    @Override
    boolean acceptsDisconnect(State before, DisconnectCause cause) {
        return cause == DisconnectCause.LOCAL && iterations == options.count();
    }
}
