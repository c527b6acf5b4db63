package smbdirect.interop.rping;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkCompletion;

/**
 * What rping's client and server share: the control block's buffers on one endpoint, the state
 * rping's completion handler drives, and the end of the run. Written only against the provider SPI.
 *
 * <p>rping runs a main thread that waits on a semaphore for the state the completion handler sets;
 * here each callback moves the state and checks it against the state the main loop would be waiting
 * for ({@link #expect}), failing with rping's own message ("wait for RDMA_WRITE_ADV state 8") when
 * they differ. State changes happen before every post, so a provider that calls back from inside a
 * post sees a consistent peer. Callbacks and the client's delayed start are serialised on
 * {@code this}.
 */
abstract class RpingPeer implements RdmaEndpointHandler, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RpingPeer.class);

    /** rping.c's {@code enum test_state}, with its numbers (they appear in rping's messages). */
    enum State {
        IDLE(1), CONNECT_REQUEST(2), ADDR_RESOLVED(3), ROUTE_RESOLVED(4), CONNECTED(5), RDMA_READ_ADV(6),
        RDMA_READ_COMPLETE(7), RDMA_WRITE_ADV(8), RDMA_WRITE_COMPLETE(9), DISCONNECTED(10), ERROR(11);

        final int number;

        State(int number) {
            this.number = number;
        }
    }

    static final long WR_RECV = 1;
    static final long WR_SEND = 2;
    static final long WR_RDMA = 3;

    static final Set<MemoryAccess> RECV_ACCESS = EnumSet.of(MemoryAccess.LOCAL_WRITE);
    static final Set<MemoryAccess> SEND_ACCESS = EnumSet.noneOf(MemoryAccess.class);
    static final Set<MemoryAccess> RDMA_ACCESS = EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ,
            MemoryAccess.REMOTE_WRITE);

    final String role;
    final RpingOptions options;
    final CompletableFuture<RpingReport> result = new CompletableFuture<>();
    final List<String> lines = new ArrayList<>();
    RdmaEndpoint endpoint;
    MemoryRegion recvRegion;
    MemoryRegion sendRegion;
    MemoryRegion rdmaRegion;
    State state = State.IDLE;
    State expect;
    int iterations;
    private boolean failed;

    RpingPeer(String role, RpingOptions options) {
        this.role = role;
        this.options = options;
    }

    /** The run's outcome: a report, or an {@link RpingException}. */
    public CompletableFuture<RpingReport> result() {
        return result;
    }

    /** Registers the buffers every rping side has: the receive, the send and the RDMA buffer. */
    void registerCommon(int sendBytes) throws RdmaException {
        recvRegion = endpoint.register(ByteBuffer.allocateDirect(Rping.INFO_SIZE), RECV_ACCESS);
        sendRegion = endpoint.register(ByteBuffer.allocateDirect(sendBytes), SEND_ACCESS);
        rdmaRegion = endpoint.register(ByteBuffer.allocateDirect(options.size()), RDMA_ACCESS);
    }

    void postRecv() throws RdmaException {
        endpoint.postReceive(recvRegion, 0, Rping.INFO_SIZE, WR_RECV);
    }

    @Override
    public final synchronized void onCompletion(WorkCompletion wc) {
        if (failed || state == State.DISCONNECTED) {
            return;
        }
        if (wc.status() == CompletionStatus.FLUSHED) {
            return; // rping: IBV_WC_WR_FLUSH_ERR is noted and skipped
        }
        try {
            if (wc.status() != CompletionStatus.SUCCESS) {
                throw new RpingException("cq completion failed status " + wc.status() + " (" + wc.type()
                        + ", vendor error " + wc.vendorError() + ")");
            }
            switch (wc.type()) {
                case SEND -> {
                    // rping: "send completion", nothing to do
                }
                case RECEIVE -> {
                    if (wc.byteLength() != Rping.INFO_SIZE) {
                        throw new RpingException("Received bogus data, size " + wc.byteLength());
                    }
                    Rping.Info info = Rping.Info.decode(recvRegion.buffer(), 0);
                    postRecv(); // rping re-posts before it wakes the main loop
                    onRecv(info);
                }
                case RDMA_READ -> onRdmaComplete(State.RDMA_READ_COMPLETE);
                case RDMA_WRITE -> onRdmaComplete(State.RDMA_WRITE_COMPLETE);
                default -> throw new RpingException("unknown!!!!! completion " + wc.type());
            }
        } catch (RpingException | RdmaException | RuntimeException e) {
            fail(e);
        }
    }

    /** A 16-byte receive arrived (already re-posted). */
    abstract void onRecv(Rping.Info info) throws RpingException, RdmaException;

    /** An RDMA Read or Write this side posted completed. */
    abstract void onRdmaComplete(State completed) throws RpingException, RdmaException;

    /** Moves to {@code now} and checks that it is the state rping's main loop waits for. */
    void arrive(State now) throws RpingException {
        state = now;
        if (now != expect) {
            throw new RpingException("wait for " + expect + " state " + now.number);
        }
    }

    @Override
    public final synchronized void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        State before = state;
        state = State.DISCONNECTED;
        LOG.info("rping {} disconnected ({}: {}) after {} iteration(s)", role, cause, detail, iterations);
        if (failed) {
            return;
        }
        if (!acceptsDisconnect(before, cause)) {
            failed = true;
            result.completeExceptionally(new RpingException(role + " DISCONNECT EVENT in state " + before
                    + " after " + iterations + " iteration(s): " + cause + " (" + detail + ")"));
            return;
        }
        result.complete(new RpingReport(iterations, lines, cause, detail));
    }

    /** Whether a disconnect in state {@code before} ends the run as rping's {@code return 0} does. */
    abstract boolean acceptsDisconnect(State before, DisconnectCause cause);

    /** Fails the run and disconnects (rping: {@code cb->state = ERROR}, then {@code rdma_disconnect}). */
    synchronized void fail(Exception e) {
        if (failed || result.isDone()) {
            return;
        }
        failed = true;
        state = State.ERROR;
        RpingException ex = e instanceof RpingException re ? re
                : new RpingException(role + ": " + e.getMessage(), e);
        LOG.info("rping {} failed after {} iteration(s): {}", role, iterations, ex.getMessage());
        result.completeExceptionally(ex);
        if (endpoint != null) {
            endpoint.disconnect();
        }
    }

    void print(String line) {
        lines.add(line);
        LOG.debug("rping {}: {}", role, line);
    }

    /**
     * Releases the endpoint and its regions (rping: {@code rdma_destroy_id}, {@code ibv_dereg_mr}).
     * Call once the result is done; closing earlier disconnects without further callbacks.
     */
    @Override
    public synchronized void close() {
        if (endpoint != null) {
            endpoint.close();
        }
        if (!result.isDone()) {
            result.completeExceptionally(new RpingException(role + " closed before the run ended"));
        }
    }
}
