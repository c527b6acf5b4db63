package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.rdma.iwarp.internal.IwarpEndpoint.State;

/**
 * How one endpoint ends: once, for any cause (iwarp.md §5.7). {@link #end} stops the setup's
 * timers, stops the transmitter after the rest of a partly written FPDU and our Terminate if there
 * is one, closes the TCP connection gracefully ({@link Channel#closeGracefully}), completes every
 * outstanding work request (FLUSHED unless it already failed) and calls {@code onDisconnected}, the
 * last callback. {@code disconnect()} ends with LOCAL on the I/O thread; {@code close()} makes the
 * endpoint CLOSED at once (no callback after it, every registration invalid) and closes the
 * connection on the I/O thread without a callback; a provider shutdown ends with PROVIDER_SHUTDOWN.
 * An endpoint created from a request that was never accepted gets no callback: its connection
 * belongs to its {@link PassiveSetup}.
 *
 * <p>Thread-safety: {@link #disconnect} and {@link #close} run on any thread and change the
 * endpoint's state under its lock; the rest runs on the I/O thread, and the handler is called
 * without the lock.
 */
final class IwarpTeardown {

    private static final Logger LOG = LoggerFactory.getLogger(IwarpTeardown.class);

    private final IwarpEndpoint ep;
    /** The endpoint's lock: guards its state and {@link #disconnectRequested}. */
    private final Object lock;
    private final RdmaEndpointHandler handler;
    private final ByteBuffer empty = ByteBuffer.allocate(0).asReadOnlyBuffer();
    /** Guarded by lock. */
    private boolean disconnectRequested;

    IwarpTeardown(IwarpEndpoint ep, Object lock, RdmaEndpointHandler handler) {
        this.ep = ep;
        this.lock = lock;
        this.handler = handler;
    }

    /** The SPI's {@code disconnect}: once, and only where there is a connection to end. */
    void disconnect() {
        synchronized (lock) {
            State s = ep.state();
            if (disconnectRequested || s == State.IDLE || s == State.REQUESTED || s == State.REJECTED
                    || s == State.ERROR || s == State.CLOSED) {
                return;
            }
            disconnectRequested = true;
        }
        ep.loop.execute(() -> end(DisconnectCause.LOCAL, "disconnect() called", null, null));
    }

    /** The SPI's {@code close}: CLOSED at once, registrations invalid, the connection closed on the I/O thread. */
    void close() {
        State previous;
        synchronized (lock) {
            previous = ep.state();
            if (previous == State.CLOSED) {
                return;
            }
            ep.state(State.CLOSED);
        }
        ep.regions.deregisterAll();
        ep.provider.forget(ep);
        if (previous == State.REQUESTED) {
            ep.passiveSetup().releaseByClose();
        }
        ep.loop.execute(this::closeOnLoop);
    }

    private void closeOnLoop() {
        ep.stopSetup();
        if (!ep.markEnded()) {
            return;
        }
        closeChannel(null);
    }

    /** Provider shutdown: ends the endpoint with PROVIDER_SHUTDOWN (loop thread). */
    void shutdown(String detail) {
        State s = ep.state();
        if (s == State.REQUESTED || s == State.REJECTED) {
            ep.markEnded();
            return; // the request's channel belongs to the setup
        }
        end(DisconnectCause.PROVIDER_SHUTDOWN, detail, null, null);
    }

    /**
     * I/O thread: the connection ends (or never comes) with {@code cause}; the first end wins. Sends
     * {@code terminate} after the rest of a partly written FPDU, closes the TCP connection gracefully,
     * completes every outstanding request (FLUSHED unless it already failed), then calls
     * {@code onDisconnected} once. An endpoint created from a request that was never accepted gets
     * no callback.
     */
    void end(DisconnectCause cause, String detail, ByteBuffer terminate, ByteBuffer rejectData) {
        if (!ep.markEnded()) {
            return;
        }
        State previous;
        synchronized (lock) {
            previous = ep.state();
            if (previous != State.CLOSED) {
                ep.state(State.ERROR);
            }
        }
        ep.stopSetup();
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} ends: {}: {}", ep, cause, detail);
        }
        closeChannel(terminate);
        if (previous == State.CLOSED || previous == State.REQUESTED || previous == State.REJECTED) {
            return;
        }
        ep.queues.flush();
        ep.queues.deliver();
        if (ep.state() != State.CLOSED) {
            try {
                handler.onDisconnected(cause, detail, rejectData == null ? empty : rejectData);
            } catch (RuntimeException e) {
                LOG.error("onDisconnected handler of {} failed", ep, e);
            }
        }
    }

    /** Writes what must still go out (the rest of a started FPDU, {@code terminate}), then a FIN, then closes. */
    private void closeChannel(ByteBuffer terminate) {
        Channel channel = ep.channel();
        if (channel == null) {
            return;
        }
        Transmitter tx = ep.transmitter();
        if (tx != null) {
            int to = tx.abort(terminate);
            channel.closeGracefully(tx.pendingBuffers(), tx.pendingFrom(), to);
        } else if (terminate != null) {
            channel.closeGracefully(new ByteBuffer[] {terminate}, 0, 1);
        } else {
            channel.closeGracefully(null, 0, 0);
        }
    }
}
