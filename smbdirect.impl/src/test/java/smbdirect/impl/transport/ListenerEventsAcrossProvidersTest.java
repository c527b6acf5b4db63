package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import smbdirect.api.ConnectionHandler;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TimerScheduler;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * A listener that moves to another provider keeps its last events: they span the providers it was
 * bound on, also after one of them left.
 */
class ListenerEventsAcrossProvidersTest {

    @RegisterExtension
    final TransportOverMock rig = new TransportOverMock();
    private final MockFabric fabric = rig.fabric("moves", DeliveryMode.INLINE);
    private final TimerScheduler timer = rig.timer();
    private final MultiProviderTransport transport = rig.transport();

    private static final ConnectionHandler HANDLER = new Fakes.RecordingHandler();

    @Test
    void aListenerKeepsItsEventsWhenItMovesAndWhenItsFormerProviderLeaves() throws Exception {
        MockProvider a = fabric.provider("a");
        MockProvider b = fabric.provider("b");
        MockProvider client = fabric.provider("client");
        SmbDirectEngine peer = new SmbDirectEngine(client, TransportSettings.DEFAULTS, timer);
        transport.addProvider(a, props("a", 10, 1));
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", 445), c -> HANDLER);
        peer.connect(new InetSocketAddress(a.address(), 445), Duration.ofSeconds(10), HANDLER).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);

        transport.addProvider(b, props("b", 20, 2));
        assertEquals("b", listener.providerName(), "moved to the better provider");
        peer.connect(new InetSocketAddress(b.address(), 445), Duration.ofSeconds(10), HANDLER).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);

        ListenerEventDTO[] events = listener.getListenerDTO().events;
        assertEquals(List.of("b", "a"), Arrays.stream(events).map(e -> e.provider).toList(), "newest first, both providers");
        assertEquals(List.of("ACCEPTED", "ACCEPTED"), Arrays.stream(events).map(e -> e.kind).toList());

        transport.removeProvider(a).toCompletableFuture().get(10, TimeUnit.SECONDS);
        TransportDTO t = transport.getTransportDTO();
        assertEquals(2, t.listeners[0].events.length, "the events of the provider that left stay");
    }
}
