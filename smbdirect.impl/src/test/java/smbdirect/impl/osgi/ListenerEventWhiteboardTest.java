package smbdirect.impl.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEvent;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.impl.config.ConfigurationAnnotations;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.transport.EngineFactory;
import smbdirect.impl.transport.Fakes;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * The whiteboard of listener events: every {@link ListenerEventHandler} service bound to the
 * transport component is told of the events of every listener (API-opened and configured), next to
 * the handler given to {@code listen}; the real engine over the mock fabric produces them.
 */
class ListenerEventWhiteboardTest {

    private final MockFabric fabric = MockFabric.builder().name("wb").mode(DeliveryMode.INLINE).build();
    private final SmbDirectTransportComponent component = new SmbDirectTransportComponent(
            ConfigurationAnnotations.transportConfig("maxConnectionsPerListener", 1), EngineFactory::create);

    @AfterEach
    void close() {
        component.deactivate();
        fabric.close();
    }

    private static final ConnectionHandler HANDLER = new Fakes.RecordingHandler();

    @Test
    void whiteboardServicesAndTheListensHandlerAreToldOfAcceptanceAndRefusal() throws Exception {
        MockProvider server = fabric.provider("server");
        MockProvider client = fabric.provider("client");
        component.addProvider(server, props("server", 0, 1));
        List<ListenerEvent> whiteboard = new CopyOnWriteArrayList<>();
        List<ListenerEvent> own = new CopyOnWriteArrayList<>();
        ListenerEventHandler failing = e -> {
            throw new IllegalStateException("a broken whiteboard service");
        };
        ListenerEventHandler recording = whiteboard::add;
        component.addListenerEventHandler(failing);
        component.addListenerEventHandler(recording);
        SmbDirectListener listener = component.listen(new InetSocketAddress(server.address(), 445), c -> HANDLER,
                own::add);
        SmbDirectEngine peer = new SmbDirectEngine(client, TransportSettings.DEFAULTS, component.timer());
        InetSocketAddress to = new InetSocketAddress(server.address(), 445);

        peer.connect(to, Duration.ofSeconds(10), HANDLER).toCompletableFuture().get(10, TimeUnit.SECONDS);
        ExecutionException refused = assertThrows(ExecutionException.class,
                () -> peer.connect(to, Duration.ofSeconds(10), HANDLER).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof smbdirect.api.SmbDirectException, String.valueOf(refused));

        assertEquals(List.of(ListenerEvent.Kind.ACCEPTED, ListenerEvent.Kind.REFUSED_CAP),
                whiteboard.stream().map(ListenerEvent::kind).toList());
        assertEquals(whiteboard, own, "the listen handler sees the same events");
        ListenerEvent refusal = whiteboard.get(1);
        assertEquals("server", refusal.provider());
        assertEquals(listener.localAddress(), refusal.listenerAddress());
        assertEquals("maxConnectionsPerListener=1 reached", refusal.reason().detail());

        ListenerDTO dto = component.getTransportDTO().listeners[0];
        assertEquals(2, dto.events.length);
        assertEquals("REFUSED_CAP", dto.events[0].kind, "newest first");
        assertEquals("ACCEPTED", dto.events[1].kind);

        // a listener opened without a handler of its own: the whiteboard is told; once the service is
        // unregistered, it is told nothing more
        listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        InetSocketAddress otherAddress = new InetSocketAddress(server.address(), 446);
        SmbDirectListener other = component.listen(otherAddress, c -> HANDLER);
        peer.connect(otherAddress, Duration.ofSeconds(10), HANDLER).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(3, whiteboard.size());
        assertEquals(other.localAddress(), whiteboard.get(2).listenerAddress());
        component.removeListenerEventHandler(recording);
        component.removeListenerEventHandler(failing);
        assertThrows(ExecutionException.class, () -> peer.connect(otherAddress, Duration.ofSeconds(10), HANDLER)
                .toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertEquals(3, whiteboard.size(), "an unregistered service is told nothing more");
        assertEquals(2, other.getListenerDTO().events.length, "the listener still records its events");
    }
}
