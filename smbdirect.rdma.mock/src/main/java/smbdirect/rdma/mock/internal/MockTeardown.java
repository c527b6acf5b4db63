package smbdirect.rdma.mock.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.rdma.mock.MockEndpoint.State;

/**
 * How a connection of the fabric ends, for one endpoint: a break (a failed work request, an
 * injected fault) or {@code disconnect()} ends one side or both, flushing every work request that
 * had not executed with FLUSHED after the completions already queued and queuing
 * {@code onDisconnected} as the last callback; {@code close()} and {@code crash()} release the
 * endpoint at once without further callbacks (the peer of a close hears PEER, the peer of a crash
 * nothing until it sends: PEER_LOST); a removed device ends its endpoints and leaves their peers
 * half-open. A connection request still open is abandoned, and its active side hears
 * CONNECT_ERROR.
 *
 * <p>Locking: {@link #breakBoth} and {@link #breakSide} run with the connection's lock held
 * ({@link MockQueuePair}) and only queue callbacks; the other methods run on any thread, take the
 * lock, and signal the endpoints whose callbacks they queued after releasing it.
 */
final class MockTeardown {
    private static final Logger LOG = LoggerFactory.getLogger(MockTeardown.class);

    private final MockQueuePair ep;

    MockTeardown(MockQueuePair ep) {
        this.ep = ep;
    }

    /** Under lock: breaks this side and, if it is connected to this one, the peer. */
    void breakBoth(DisconnectCause local, DisconnectCause remote, String detail) {
        MockQueuePair p = ep.peer;
        boolean notify = ep.state == State.CONNECTED && !ep.peerLost && p != null && p.state == State.CONNECTED;
        LOG.debug("Endpoint {} breaks: {}", ep.id, detail);
        breakSide(ep, local, detail, MockQueuePair.NO_BYTES);
        if (notify) {
            breakSide(p, remote, detail, MockQueuePair.NO_BYTES);
        }
    }

    /**
     * Under lock: flushes every work request of {@code ep} that has not executed, then queues
     * onDisconnected as its last callback.
     */
    static void breakSide(MockQueuePair ep, DisconnectCause cause, String detail, byte[] data) {
        if (ep.state == State.DISCONNECTED || ep.state == State.CLOSED) {
            return;
        }
        Wr wr;
        while ((wr = ep.sendQueue.poll()) != null) {
            ep.complete(wr, CompletionStatus.FLUSHED, 0, false, 0);
        }
        while ((wr = ep.recvQueue.poll()) != null) {
            ep.complete(wr, CompletionStatus.FLUSHED, 0, false, 0);
        }
        ep.state = State.DISCONNECTED;
        Event e = ep.obtainEvent();
        e.kind = Event.DISCONNECTED;
        e.cause = cause;
        e.detail = detail;
        e.data = data;
        ep.enqueue(e);
        abandonRequest(ep, "the peer's endpoint ended before accepting: " + detail);
    }

    /**
     * Under lock: the connection request of {@code ep}, if still open, is abandoned; when {@code ep}
     * is the passive side, the active side ends with CONNECT_ERROR and {@code detail}.
     */
    private static void abandonRequest(MockQueuePair ep, String detail) {
        ConnectRequestImpl r = ep.request;
        if (r != null && r.isOpen()) {
            r.phase = ConnectRequestImpl.Phase.ABANDONED;
            ep.fabric.pendingRequests.remove(r);
            if (!ep.active) {
                r.active.requestEnded(r, DisconnectCause.CONNECT_ERROR, detail, MockQueuePair.NO_BYTES);
            }
        }
    }

    /** The SPI's {@code disconnect}: LOCAL here, PEER at a connected peer; a connect in progress ends. */
    void disconnect() {
        MockQueuePair p;
        synchronized (ep.lock) {
            p = ep.peer;
            if (ep.state == State.CONNECTED) {
                boolean notify = !ep.peerLost && p != null && p.state == State.CONNECTED;
                breakSide(ep, DisconnectCause.LOCAL, "disconnect requested on endpoint " + ep.id,
                        MockQueuePair.NO_BYTES);
                if (notify) {
                    breakSide(p, DisconnectCause.PEER, "the peer disconnected",
                            MockQueuePair.NO_BYTES);
                }
            } else if (ep.state == State.CONNECTING) {
                breakSide(ep, DisconnectCause.LOCAL, "disconnect requested while connecting", MockQueuePair.NO_BYTES);
            } else {
                return;
            }
        }
        ep.signalBoth(p);
    }

    /** The SPI's {@code close}: released at once, no callback after; a connected peer ends with PEER. */
    void close() {
        MockQueuePair p;
        synchronized (ep.lock) {
            if (ep.state == State.CLOSED) {
                return;
            }
            p = ep.peer;
            if (ep.state == State.CONNECTED && !ep.peerLost && p != null && p.state == State.CONNECTED) {
                breakSide(p, DisconnectCause.PEER, "the peer released its queue pair without disconnecting",
                        MockQueuePair.NO_BYTES);
            }
            abandonRequest(ep, "the peer released its endpoint without accepting or rejecting");
            releaseUnderLock();
        }
        ep.provider.released(ep);
        if (p != null) {
            p.signal();
        }
    }

    /** {@code MockEndpoint.crash}: released at once; a connected peer hears nothing and finds it lost. */
    void crash() {
        MockQueuePair p;
        synchronized (ep.lock) {
            if (ep.state == State.CLOSED) {
                return;
            }
            p = ep.peer;
            if (ep.state == State.CONNECTED && p != null && p.state == State.CONNECTED) {
                p.peerLost = true;
            }
            abandonRequest(ep, "the peer vanished during connection setup");
            LOG.debug("Endpoint {} crashes", ep.id);
            releaseUnderLock();
        }
        ep.provider.released(ep);
        if (p != null) {
            p.signal();
        }
    }

    /** The device went away (removal or shutdown): this side ends, its peer is left half-open. */
    void deviceGone(DisconnectCause cause, String detail) {
        MockQueuePair p;
        synchronized (ep.lock) {
            if (ep.state == State.CLOSED || ep.state == State.DISCONNECTED) {
                return;
            }
            p = ep.peer;
            if (ep.state == State.CONNECTED && !ep.peerLost && p != null && p.state == State.CONNECTED) {
                p.peerLost = true;
            }
            breakSide(ep, cause, detail, MockQueuePair.NO_BYTES);
        }
        ep.signalBoth(p);
    }

    /** Under lock: drops everything of the endpoint (queued work, queued callbacks, registrations); CLOSED. */
    private void releaseUnderLock() {
        Wr wr;
        while ((wr = ep.sendQueue.poll()) != null) {
            wr.region = null;
        }
        while ((wr = ep.recvQueue.poll()) != null) {
            wr.region = null;
        }
        ep.discardEvents();
        ep.sendOutstanding = 0;
        ep.recvOutstanding = 0;
        for (MockRegion r : ep.regions.values()) {
            r.registered = false;
            r.valid = false;
        }
        ep.regions.clear();
        ep.state = State.CLOSED;
    }
}
