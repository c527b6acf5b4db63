package smbdirect.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import smbdirect.api.ListenerEvent;
import smbdirect.api.ListenerEventHandler;

/**
 * A {@link ListenerEventHandler} that keeps every event it was told, for assertions: give it to
 * {@code listen(address, acceptHandler, events)}.
 *
 * <pre>{@code
 * RecordingListenerEvents events = new RecordingListenerEvents();
 * SmbDirectListener l = server.listen(kit.address("server"), c -> handler, events);
 * ...
 * assertEquals(ListenerEvent.Kind.NEGOTIATION_FAILED, events.last().kind());
 * assertEquals("R-3.1.5.6-06", events.last().reason().rule());
 * }</pre>
 *
 * Thread-safe.
 */
public class RecordingListenerEvents implements ListenerEventHandler {

    private final List<ListenerEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(ListenerEvent event) {
        events.add(event);
    }

    /** Every event so far, oldest first. */
    public List<ListenerEvent> events() {
        return List.copyOf(events);
    }

    /** The kinds of every event so far, oldest first. */
    public List<ListenerEvent.Kind> kinds() {
        return events.stream().map(ListenerEvent::kind).toList();
    }

    /** The events of {@code kind}, oldest first. */
    public List<ListenerEvent> ofKind(ListenerEvent.Kind kind) {
        return events.stream().filter(e -> e.kind() == kind).toList();
    }

    /**
     * The newest event.
     *
     * @throws AssertionError when there was none
     */
    public ListenerEvent last() {
        if (events.isEmpty()) {
            throw new AssertionError("no listener event");
        }
        return events.get(events.size() - 1);
    }

    /** Forgets the events so far. */
    public void clear() {
        events.clear();
    }
}
