package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.impl.engine.ManualScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;

/**
 * The transport's drain over the mock fabric, in virtual time (the fabric delivers only when the test
 * runs it, timers fire only when the test advances the clock): a provider withdrawn while the runtime
 * runs (a hot swap, a provider replaced after a configuration change) and a transport that stops
 * refuse new connections at once, let the connection finish the reply it had in flight, and close it
 * with PROVIDER_REPLACED or SHUTDOWN; the peer gets the reply before it sees the end. With no drain
 * time everything closes at once.
 */
class DrainOverMockTest {

    private static final int PORT = 445;

    private final ManualScheduler time = new ManualScheduler();
    private final MockFabric fabric = MockFabric.builder().name("drain").mode(DeliveryMode.DETERMINISTIC).build();
    private final MockProvider a = fabric.provider("a");
    private final MockProvider peerProvider = fabric.provider("peer");
    private final SmbDirectEngine peer = new SmbDirectEngine(peerProvider, TransportSettings.DEFAULTS, time);
    private final MultiProviderTransport transport = new MultiProviderTransport(EngineFactory::create, time,
            TransportSettings.builder().drainTimeout(Duration.ofSeconds(10)).build(), ProviderFilter.ANY);
    /** The transport's side of each accepted connection. */
    private final List<Recorder> accepted = new ArrayList<>();

    /** Records messages (as text) and the close reason of one connection. */
    private static final class Recorder implements ConnectionHandler {
        SmbDirectConnection connection;
        final List<String> events = new ArrayList<>();
        CloseReason closed;

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
            byte[] b = new byte[message.length()];
            message.payload().duplicate().get(b);
            events.add(new String(b, StandardCharsets.UTF_8));
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
            closed = reason;
            events.add("closed " + reason.kind());
        }
    }

    @AfterEach
    void close() {
        transport.shutdown();
        peer.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test over"));
        fabric.runUntilIdle();
        fabric.close();
    }

    /** The transport listens on {@code a}; the peer connects; returns both ends. */
    private Recorder[] connected() throws Exception {
        transport.addProvider(a, props("a", 10, 1));
        transport.listen(new InetSocketAddress("0.0.0.0", PORT), c -> {
            Recorder r = new Recorder();
            r.connection = c;
            accepted.add(r);
            return r;
        });
        Recorder far = new Recorder();
        CompletableFuture<SmbDirectConnection> f = peerConnect(far);
        fabric.runUntilIdle();
        far.connection = f.getNow(null);
        assertNotNull(far.connection, "negotiated");
        assertEquals(1, accepted.size());
        return new Recorder[] {accepted.get(0), far};
    }

    private CompletableFuture<SmbDirectConnection> peerConnect(Recorder handler) {
        return peer.connect(new InetSocketAddress(a.address(), PORT), Duration.ofSeconds(5), handler)
                .toCompletableFuture();
    }

    /** The transport's end hands over a reply; returns the outcome of its send. */
    private static CompletableFuture<Throwable> reply(Recorder near, String text) {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        near.connection.send(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), (m, x) -> outcome.complete(x));
        return outcome;
    }

    /**
     * Starts the drain with a reply in flight; checks that nothing new is accepted meanwhile and that
     * the reply arrives before the end; returns the reason the transport's end was closed with.
     */
    private CloseReason drainWithAReplyInFlight(java.util.function.Supplier<java.util.concurrent.CompletionStage<Void>> drain)
            throws Exception {
        Recorder[] ends = connected();
        Recorder near = ends[0];
        Recorder far = ends[1];
        CompletableFuture<Throwable> sent = reply(near, "reply 1");
        CompletableFuture<Void> done = drain.get().toCompletableFuture();
        assertTrue(near.connection.isOpen(), "the reply is still in flight");
        assertFalse(done.isDone());
        assertEquals(1, transport.getTransportDTO().connections.length, "the draining connection is shown live");

        // a new connection during the drain is refused
        Recorder late = new Recorder();
        CompletableFuture<SmbDirectConnection> refused = peerConnect(late);
        fabric.runUntilIdle();
        assertTrue(refused.isCompletedExceptionally(), "no new connection during the drain");
        assertEquals(1, accepted.size());

        // the reply arrives and is acknowledged; the connection then closes at the next look
        assertEquals(null, sent.getNow(new AssertionError("not completed")), "the reply was sent");
        time.advance(Duration.ofMillis(20));
        fabric.runUntilIdle();
        assertFalse(near.connection.isOpen());
        assertTrue(done.isDone());
        assertEquals(List.of("reply 1", "closed PEER_DISCONNECT"), far.events,
                "the peer got the reply, then saw the end");
        assertEquals(1, near.events.size(), near.events.toString());
        return near.closed;
    }

    @Test
    void aWithdrawnProviderDrainsItsConnectionsAndClosesThemAsReplaced() throws Exception {
        CloseReason r = drainWithAReplyInFlight(() -> transport.removeProvider(a));
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, r.kind());
        assertTrue(r.detail().contains("RDMA provider 'a' withdrawn"), r.detail());
        assertFalse(r.detail().contains("ran out"), r.detail());
        smbdirect.api.dto.ConnectionDTO[] history = transport.getTransportDTO().recentlyClosed;
        assertTrue(history.length > 0 && history[0].closeReason.startsWith("PROVIDER_REPLACED"),
                "the runtime DTO shows the reason: " + (history.length == 0 ? "nothing" : history[0].closeReason));
    }

    @Test
    void aStoppingTransportDrainsAndClosesWithShutdown() throws Exception {
        CloseReason r = drainWithAReplyInFlight(transport::shutdown);
        assertEquals(CloseReason.of(CloseReason.Kind.SHUTDOWN, "SMB Direct transport stopped"), r);
    }

    @Test
    void aProviderWithdrawnWhileTheRuntimeStopsClosesWithShutdown() throws Exception {
        CloseReason r = drainWithAReplyInFlight(() -> transport.removeProvider(a, true));
        assertEquals(CloseReason.Kind.SHUTDOWN, r.kind());
    }

    @Test
    void aReplyNeverAcknowledgedIsCutByTheDrainTime() throws Exception {
        Recorder[] ends = connected();
        Recorder near = ends[0];
        CompletableFuture<Throwable> sent = reply(near, "reply 1"); // the fabric is not run: never acknowledged
        CompletableFuture<Void> done = transport.removeProvider(a).toCompletableFuture();
        time.advance(Duration.ofMillis(9_990));
        assertTrue(near.connection.isOpen());
        time.advance(Duration.ofMillis(10));
        fabric.runUntilIdle();
        assertTrue(done.isDone());
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, near.closed.kind());
        assertTrue(near.closed.detail().endsWith("; the drain time of 10 s ran out with 1 message to send in flight"),
                near.closed.detail());
        assertTrue(sent.isDone());
    }

    @Test
    void noDrainTimeClosesAtOnce() throws Exception {
        transport.configure(TransportSettings.builder().drainTimeout(Duration.ZERO).build(), ProviderFilter.ANY);
        Recorder[] ends = connected();
        Recorder near = ends[0];
        CompletableFuture<Throwable> sent = reply(near, "reply 1");
        transport.removeProvider(a);
        assertFalse(near.connection.isOpen(), "closed without waiting for the reply");
        fabric.runUntilIdle();
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, near.closed.kind());
        SmbDirectException x = assertInstanceOf(SmbDirectException.class, sent.getNow(null));
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, x.closeReason().kind());
    }
}
