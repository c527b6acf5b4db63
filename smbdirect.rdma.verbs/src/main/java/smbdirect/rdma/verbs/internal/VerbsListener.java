package smbdirect.rdma.verbs.internal;

import java.net.InetSocketAddress;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;

/**
 * A listening RDMA CM identifier. Connection requests are delivered on the CM thread. Thread-safe:
 * {@link #close} waits for a delivery in progress on another thread, so no request is reported
 * after it returns.
 */
final class VerbsListener implements RdmaListener {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsListener.class);

    private final VerbsRdmaProvider provider;
    private final VerbsBackend.CmId id;
    private final InetSocketAddress localAddress;
    private final RdmaListenHandler handler;
    /** The completion group of the device the listener is bound to, held while it listens; null when unbound. */
    private final CompletionGroup group;
    private final ReentrantLock delivery = new ReentrantLock();
    private volatile boolean closed;

    VerbsListener(VerbsRdmaProvider provider, VerbsBackend.CmId id, InetSocketAddress localAddress,
            RdmaListenHandler handler, CompletionGroup group) {
        this.provider = provider;
        this.id = id;
        this.localAddress = localAddress;
        this.handler = handler;
        this.group = group;
    }

    VerbsBackend.CmId cmId() {
        return id;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** CM thread: a CONNECT_REQUEST with its new identifier. */
    void onConnectRequest(VerbsBackend.CmEvent event) {
        VerbsConnectRequest request = new VerbsConnectRequest(provider, this, event);
        delivery.lock();
        try {
            if (closed) {
                request.reject(null);
                return;
            }
            handler.onConnectRequest(request);
        } catch (RuntimeException e) {
            LOG.error("onConnectRequest handler of {} failed; rejecting the request", this, e);
            request.reject(null);
        } finally {
            delivery.unlock();
        }
    }

    /** The provider stops the listener (device removal, shutdown): last callback, then release. */
    void fail(DisconnectCause cause, String detail) {
        if (closed) {
            return;
        }
        delivery.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            handler.onListenerFailed(cause, detail);
        } catch (RuntimeException e) {
            LOG.error("onListenerFailed handler of {} failed", this, e);
        } finally {
            delivery.unlock();
        }
        release();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!delivery.isHeldByCurrentThread()) {
            delivery.lock();
            delivery.unlock();
        }
        release();
    }

    private void release() {
        provider.forget(this);
        provider.backend().destroyId(id);
        if (group != null) {
            provider.release(group, false);
        }
    }

    @Override
    public String toString() {
        return "VerbsListener[" + localAddress + (closed ? ", closed" : "") + "]";
    }
}
