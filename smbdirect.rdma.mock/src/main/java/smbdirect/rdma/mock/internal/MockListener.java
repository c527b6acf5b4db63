package smbdirect.rdma.mock.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;

/** A listening identifier. Thread-safe; its callbacks are serialised like an endpoint's. */
final class MockListener extends Deliverable implements RdmaListener {
    final MockDevice provider;
    private final RdmaListenHandler handler;
    private final InetSocketAddress key;
    private final InetSocketAddress bound;
    private final long id;
    private boolean closed;

    MockListener(FabricImpl fabric, MockDevice provider, RdmaListenHandler handler, InetSocketAddress key,
            InetSocketAddress bound) {
        super(fabric, new Object());
        this.provider = provider;
        this.handler = handler;
        this.key = key;
        this.bound = bound;
        this.id = fabric.ids.incrementAndGet();
    }

    @Override
    public InetSocketAddress localAddress() {
        return bound;
    }

    /** The address connections are made to (the device's IP and the port). */
    InetSocketAddress connectAddress() {
        return key;
    }

    /** Queues a connection request; false when the listener stopped. */
    boolean offer(ConnectRequestImpl request) {
        synchronized (lock) {
            if (closed) {
                return false;
            }
            Event e = obtainEvent();
            e.kind = Event.CONNECT_REQUEST;
            e.request = request;
            enqueue(e);
        }
        signal();
        return true;
    }

    /** The provider stops the listener: last callback onListenerFailed. */
    void fail(DisconnectCause cause, String detail) {
        List<ConnectRequestImpl> orphans;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            orphans = takeQueuedRequests();
            Event e = obtainEvent();
            e.kind = Event.LISTENER_FAILED;
            e.cause = cause;
            e.detail = detail;
            enqueue(e);
        }
        unbind();
        for (ConnectRequestImpl r : orphans) {
            r.abandon("listener " + bound + " failed: " + detail);
        }
        signal();
    }

    @Override
    public void close() {
        List<ConnectRequestImpl> orphans;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            orphans = takeQueuedRequests();
            discardEvents();
        }
        unbind();
        for (ConnectRequestImpl r : orphans) {
            r.abandon("listener " + bound + " closed before the request was reported");
        }
    }

    private List<ConnectRequestImpl> takeQueuedRequests() {
        List<ConnectRequestImpl> orphans = new ArrayList<>();
        for (Event e : events) {
            if (e.kind == Event.CONNECT_REQUEST) {
                orphans.add(e.request);
            }
        }
        events.removeIf(e -> e.kind == Event.CONNECT_REQUEST);
        queuedChanged();
        return orphans;
    }

    private void unbind() {
        fabric.unbind(key, this);
        provider.listeners.remove(this);
    }

    @Override
    void discarded(Event e) {
        // listeners have no queue accounting
    }

    @Override
    void dispatch(Event e) {
        if (e.kind == Event.CONNECT_REQUEST) {
            boolean stopped;
            synchronized (lock) {
                stopped = closed;
            }
            if (stopped) {
                e.request.abandon("listener " + bound + " closed before the request was reported");
            } else {
                handler.onConnectRequest(e.request);
            }
        } else {
            handler.onListenerFailed(e.cause, e.detail);
        }
    }

    @Override
    public String toString() {
        return "RdmaListener#" + id + "[" + provider.name() + " " + bound + "]";
    }
}
