package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;

/**
 * The {@link VerbsRdmaProvider}'s side of the RDMA CM: the endpoints and listeners by identifier,
 * and the CM thread's loop, which waits for the one event channel's next event and hands it to its
 * owner: a connection request to its listener (on this thread), any other event of an endpoint to
 * the endpoint's completion thread, a device's removal to the listener it names. Thread-safe.
 */
final class CmDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsRdmaProvider.class);

    private final VerbsRdmaProvider provider;
    private final VerbsBackend backend;
    private final VerbsSettings settings;
    private final Map<VerbsBackend.CmId, VerbsEndpoint> endpoints = new ConcurrentHashMap<>();
    private final Map<VerbsBackend.CmId, VerbsListener> listeners = new ConcurrentHashMap<>();

    CmDispatcher(VerbsRdmaProvider provider, VerbsBackend backend, VerbsSettings settings) {
        this.provider = provider;
        this.backend = backend;
        this.settings = settings;
    }

    void add(VerbsBackend.CmId id, VerbsEndpoint endpoint) {
        endpoints.put(id, endpoint);
    }

    void add(VerbsBackend.CmId id, VerbsListener listener) {
        listeners.put(id, listener);
    }

    void forget(VerbsEndpoint endpoint) {
        endpoints.remove(endpoint.cmId(), endpoint);
    }

    void forget(VerbsListener listener) {
        listeners.remove(listener.cmId(), listener);
    }

    int endpointCount() {
        return endpoints.size();
    }

    int listenerCount() {
        return listeners.size();
    }

    /** The endpoints open now (a copy). */
    List<VerbsEndpoint> endpoints() {
        return new ArrayList<>(endpoints.values());
    }

    /** The listeners open now (a copy). */
    List<VerbsListener> listeners() {
        return new ArrayList<>(listeners.values());
    }

    /** The CM thread: events until the provider stops. */
    void loop() {
        while (provider.isRunning()) {
            try {
                pump(settings.eventTimeoutMillis());
            } catch (RuntimeException e) {
                LOG.error("RDMA CM event handling failed", e);
            }
        }
    }

    /**
     * Waits up to {@code timeoutMillis} for one CM event and dispatches it (CM thread, or a test);
     * returns whether there was one.
     */
    boolean pump(int timeoutMillis) {
        VerbsBackend.CmEvent event;
        try {
            event = backend.nextCmEvent(timeoutMillis);
        } catch (IOException e) {
            if (provider.isRunning() && !provider.isShutdown()) {
                LOG.error("rdma_get_cm_event failed: {}", e.getMessage());
                VerbsRdmaProvider.parkMillis(timeoutMillis);
            }
            return false;
        }
        if (event == null) {
            return false;
        }
        dispatch(event);
        return true;
    }

    private void dispatch(VerbsBackend.CmEvent event) {
        int type = event.type();
        LOG.debug("{} (listen id {}, id {})", StatusMapper.cmEventName(type), event.listenId(), event.id());
        if (type == VerbsConstants.CM_EVENT_CONNECT_REQUEST) {
            VerbsListener listener = event.listenId() == null ? null : listeners.get(event.listenId());
            if (listener == null || provider.isShutdown()) {
                LOG.debug("connection request without an open listener; rejecting");
                backend.destroyId(event.id());
                return;
            }
            listener.onConnectRequest(event);
            return;
        }
        VerbsEndpoint endpoint = event.id() == null ? null : endpoints.get(event.id());
        if (endpoint != null) {
            endpoint.group().execute(() -> endpoint.onCmEvent(event));
            return;
        }
        VerbsListener listener = event.id() == null ? null : listeners.get(event.id());
        if (listener != null && type == VerbsConstants.CM_EVENT_DEVICE_REMOVAL) {
            listener.fail(DisconnectCause.DEVICE_REMOVED, StatusMapper.cmEventName(type));
            return;
        }
        LOG.debug("{} for an identifier without endpoint or listener", StatusMapper.cmEventName(type));
    }
}
