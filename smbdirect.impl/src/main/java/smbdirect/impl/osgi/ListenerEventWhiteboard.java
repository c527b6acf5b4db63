package smbdirect.impl.osgi;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.ListenerEvent;
import smbdirect.api.ListenerEventHandler;

/**
 * The {@link ListenerEventHandler} services of the whiteboard, told in turn of every listener event;
 * one that throws is logged and the others are still told. Thread-safe (copy-on-write).
 */
final class ListenerEventWhiteboard implements ListenerEventHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ListenerEventWhiteboard.class);

    private final List<ListenerEventHandler> handlers = new CopyOnWriteArrayList<>();

    void add(ListenerEventHandler handler) {
        handlers.add(handler);
    }

    void remove(ListenerEventHandler handler) {
        handlers.remove(handler);
    }

    @Override
    public void onEvent(ListenerEvent event) {
        for (ListenerEventHandler h : handlers) {
            try {
                h.onEvent(event);
            } catch (RuntimeException e) {
                LOG.warn("Listener event handler {} failed on {}", h, event, e);
            }
        }
    }
}
