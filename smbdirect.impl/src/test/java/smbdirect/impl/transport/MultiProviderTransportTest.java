package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.AcceptHandler;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.transport.Fakes.FakeConnection;
import smbdirect.impl.transport.Fakes.FakeEngine;
import smbdirect.impl.transport.Fakes.FakeEngines;
import smbdirect.impl.transport.Fakes.FakeProvider;
import smbdirect.impl.engine.ManualScheduler;
import smbdirect.impl.transport.Fakes.RecordingHandler;

class MultiProviderTransportTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 445);
    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.0.0.2", 50123);

    private final FakeEngines engines = new FakeEngines();
    private final ManualScheduler scheduler = new ManualScheduler();
    private final FakeProvider a = new FakeProvider("a");
    private final FakeProvider b = new FakeProvider("b");
    private final RecordingHandler serverSide = new RecordingHandler();
    private final AcceptHandler acceptor = c -> serverSide;

    private MultiProviderTransport transport(String filter) throws Exception {
        return new MultiProviderTransport(engines, scheduler, TransportSettings.DEFAULTS, ProviderFilter.parse(filter));
    }

    private static SmbDirectConnection connect(MultiProviderTransport t, ConnectionHandler h) throws Exception {
        return t.connect(SERVER, Duration.ofSeconds(1), h).toCompletableFuture().get(1, TimeUnit.SECONDS);
    }

    private static String selected(TransportDTO dto) {
        return Arrays.stream(dto.providers).filter(p -> p.selected).map(p -> p.name).findFirst().orElse(null);
    }

    @Test
    void betterProviderTakesNewConnectionsAndListenersWhileOldConnectionsKeepRunning() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        SmbDirectListener listener = t.listen(SERVER, acceptor);
        FakeConnection acceptedOnA = engines.get("a").arrive(445, CLIENT);
        RecordingHandler clientOnA = new RecordingHandler();
        SmbDirectConnection connectedOnA = connect(t, clientOnA);
        assertEquals("a", listener.providerName());

        t.addProvider(b, props("b", 10, 2));

        assertEquals("b", selected(t.getTransportDTO()));
        assertEquals("b", connect(t, new RecordingHandler()).providerName());
        assertEquals("b", listener.providerName(), "the listener follows the selected provider");
        assertTrue(engines.get("a").listeners.isEmpty(), "the endpoint on a is closed");
        assertEquals(445, engines.get("b").listeners.get(0).address.getPort(), "same port on b");
        assertTrue(acceptedOnA.isOpen() && connectedOnA.isOpen(), "connections on a keep running");
        assertNotNull(engines.get("b").arrive(445, CLIENT), "b accepts on the moved listener");
        assertNull(engines.get("a").arrive(445, CLIENT), "a no longer listens");
    }

    @Test
    void providerLeavingClosesOnlyItsConnectionsAndListenersReopenOnTheNext() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(b, props("b", 0, 2));
        t.addProvider(a, props("a", 10, 1));
        SmbDirectListener listener = t.listen(SERVER, acceptor);
        RecordingHandler clientOnA = new RecordingHandler();
        SmbDirectConnection onA = connect(t, clientOnA);
        FakeConnection acceptedOnA = engines.get("a").arrive(445, CLIENT);
        assertEquals("a", onA.providerName());
        // a connection on b, from before a was preferred over it, through b's engine directly
        RecordingHandler clientOnB = new RecordingHandler();
        SmbDirectConnection onB = engines.get("b").connect(SERVER, Duration.ofSeconds(1), clientOnB)
                .toCompletableFuture().get();

        t.removeProvider(a).toCompletableFuture().get(1, TimeUnit.SECONDS);

        assertEquals(List.of(CloseReason.Kind.PROVIDER_REPLACED), clientOnA.reasons.stream().map(CloseReason::kind).toList());
        assertFalse(acceptedOnA.isOpen());
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, acceptedOnA.closeReason.kind());
        assertTrue(onB.isOpen());
        assertTrue(clientOnB.reasons.isEmpty());
        assertEquals("b", listener.providerName(), "listeners reopen on b");
        assertTrue(listener.isOpen());
        assertNotNull(engines.get("b").arrive(445, CLIENT));
        TransportDTO dto = t.getTransportDTO();
        assertEquals(1, dto.providers.length);
        assertTrue(dto.providers[0].selected);
        assertEquals(1, dto.providers[0].listeners);
    }

    @Test
    void connectionsOfALeavingProviderAreReportedProviderGoneWhateverTheyNoticedFirst() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        t.listen(SERVER, acceptor);
        RecordingHandler client = new RecordingHandler();
        connect(t, client);
        engines.get("a").arrive(445, CLIENT);
        engines.get("a").closeOnShutdownAs = CloseReason.of(CloseReason.Kind.PEER_DISCONNECT, "peer went first");

        t.removeProvider(a).toCompletableFuture().get();

        for (RecordingHandler h : List.of(client, serverSide)) {
            assertEquals(1, h.reasons.size());
            CloseReason r = h.reasons.get(0);
            assertEquals(CloseReason.Kind.PROVIDER_REPLACED, r.kind());
            assertTrue(r.detail().contains("'a' withdrawn") && r.detail().contains("peer went first"), r.detail());
        }
    }

    @Test
    void connectionClosedBeforeItsProviderLeftKeepsItsReason() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        RecordingHandler client = new RecordingHandler();
        connect(t, client).close();
        t.removeProvider(a).toCompletableFuture().get();
        assertEquals(List.of(CloseReason.Kind.LOCAL_CLOSE), client.reasons.stream().map(CloseReason::kind).toList());
    }

    @Test
    void changingTheFilterMovesNewWorkButKeepsConnectionsOnTheDeselectedProvider() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 10, 1));
        t.addProvider(b, props("b", 0, 2));
        SmbDirectListener listener = t.listen(SERVER, acceptor);
        RecordingHandler clientOnA = new RecordingHandler();
        SmbDirectConnection onA = connect(t, clientOnA);

        t.configure(TransportSettings.DEFAULTS, ProviderFilter.parse("(smbdirect.provider=b)"));

        assertEquals("b", selected(t.getTransportDTO()));
        assertEquals("(smbdirect.provider=b)", t.getTransportDTO().settings.provider_target, "the filter in force shown");
        assertEquals("b", connect(t, new RecordingHandler()).providerName());
        assertEquals("b", listener.providerName());
        assertTrue(onA.isOpen());
        assertTrue(clientOnA.reasons.isEmpty());
        assertNull(engines.get("a").shutdownReason, "a deselected provider is not shut down");
    }

    @Test
    void rankingUpdateReselects() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 10, 1));
        t.addProvider(b, props("b", 0, 2));
        assertEquals("a", selected(t.getTransportDTO()));
        t.updateProvider(b, props("b", 20, 2));
        assertEquals("b", selected(t.getTransportDTO()));
        assertEquals("b", connect(t, new RecordingHandler()).providerName());
    }

    @Test
    void equalRankingPrefersTheOlderService() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(b, props("b", 5, 7));
        t.addProvider(a, props("a", 5, 3));
        assertEquals("a", selected(t.getTransportDTO()));
        assertEquals(List.of("a", "b"), t.providerNames());
    }

    @Test
    void withoutProviderOperationsFailWithProviderGoneAndListenersWait() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> t.connect(SERVER, Duration.ofSeconds(1), new RecordingHandler()).toCompletableFuture().get());
        SmbDirectException cause = assertInstanceOf(SmbDirectException.class, e.getCause());
        assertEquals(SmbDirectException.Kind.NO_PROVIDER, cause.kind());
        assertEquals(CloseReason.Kind.PROVIDER_GONE, cause.closeReason().kind());
        SmbDirectException thrown = assertThrows(SmbDirectException.class, () -> t.listen(SERVER, acceptor));
        assertEquals(SmbDirectException.Kind.NO_PROVIDER, thrown.kind());

        t.addProvider(a, props("a", 0, 1));
        SmbDirectListener listener = t.listen(new InetSocketAddress("10.0.0.1", 0), acceptor);
        int port = listener.localAddress().getPort();
        t.removeProvider(a).toCompletableFuture().get();
        ListenerDTO waiting = listener.getListenerDTO();
        assertEquals("WAITING", waiting.state);
        assertTrue(waiting.stateDetail.contains("(smbdirect.provider=*)"), waiting.stateDetail);
        assertTrue(listener.isOpen());

        t.addProvider(b, props("b", 0, 2));
        assertEquals("OPEN", listener.getListenerDTO().state);
        assertEquals("b", listener.providerName());
        assertEquals(port, engines.get("b").listeners.get(0).address.getPort(), "a chosen port is kept");
    }

    @Test
    void configuredListenerWaitsForAnAcceptHandler() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        RelocatingListener l = t.openConfigured("smb", SERVER, null, "no accept handler");
        l.setAcceptHandler(null, "no AcceptHandler service matches (name=x)");
        ListenerDTO dto = t.getTransportDTO().listeners[0];
        assertEquals("smb", dto.name);
        assertEquals("WAITING", dto.state);
        assertEquals("no AcceptHandler service matches (name=x)", dto.stateDetail);
        assertTrue(engines.get("a").listeners.isEmpty(), "not bound without a handler");

        l.setAcceptHandler(acceptor, null);
        assertEquals("OPEN", l.getListenerDTO().state);
        assertNotNull(engines.get("a").arrive(445, CLIENT));
        assertEquals(1, l.getListenerDTO().accepted);

        l.setAcceptHandler(null, "no AcceptHandler service matches (name=x)");
        assertEquals("WAITING", l.getListenerDTO().state);
        assertTrue(engines.get("a").listeners.isEmpty());
        assertEquals(1, l.getListenerDTO().accepted, "counters survive re-binding");

        l.close();
        assertEquals(0, t.getTransportDTO().listeners.length);
    }

    @Test
    void configuredListenerWithItsOwnFilterStaysOnItsProvider() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        t.addProvider(b, props("b", 10, 2));
        RelocatingListener l = t.openConfigured("only-a", SERVER, ProviderFilter.parse("(smbdirect.provider=a)"), "no accept handler");
        l.setAcceptHandler(acceptor, null);
        assertEquals("a", l.providerName());
        t.removeProvider(a).toCompletableFuture().get();
        assertEquals("WAITING", l.getListenerDTO().state);
        assertTrue(l.getListenerDTO().stateDetail.contains("(smbdirect.provider=a)"));
        assertTrue(engines.get("b").listeners.isEmpty());
    }

    @Test
    void anAcceptHandlerFailureGoesToTheEngineAndLeavesTheListenerOpen() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        RelocatingListener l = t.openConfigured("smb", SERVER, null, "no accept handler");
        IllegalStateException broke = new IllegalStateException("upper layer broke");
        l.setAcceptHandler(c -> {
            throw broke;
        }, null);
        // the engine closes the connection with HANDLER_FAILED naming it (see the test kit's HandlerFailureTest)
        assertSame(broke, assertThrows(IllegalStateException.class, () -> engines.get("a").arrive(445, CLIENT)));
        assertEquals("OPEN", l.getListenerDTO().state);
        l.setAcceptHandler(acceptor, null);
        assertNotNull(engines.get("a").arrive(445, CLIENT), "the listener goes on");
    }

    @Test
    void failedBindIsRetriedOnTheTimer() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        RelocatingListener l = t.openConfigured("smb", SERVER, null, "no accept handler");
        FakeEngine engine = engines.get("a");
        engine.failNextBinds = 2;
        l.setAcceptHandler(acceptor, null);
        assertEquals("FAILED", l.getListenerDTO().state);
        assertTrue(l.getListenerDTO().stateDetail.contains("address in use"), l.getListenerDTO().stateDetail);
        scheduler.advance(Duration.ofSeconds(1));
        assertEquals("FAILED", l.getListenerDTO().state);
        scheduler.advance(Duration.ofSeconds(1));
        assertEquals("OPEN", l.getListenerDTO().state);
        assertEquals(1, scheduler.pending(), "one periodic listener check");
        l.close();
        scheduler.advance(Duration.ofSeconds(1));
        assertEquals(0, scheduler.pending(), "no check without listeners");
    }

    @Test
    void endpointClosedByTheProviderIsReopened() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        SmbDirectListener l = t.listen(SERVER, acceptor);
        FakeEngine engine = engines.get("a");
        engine.listeners.get(0).close(); // as when the device is removed
        assertNull(engine.arrive(445, CLIENT));
        scheduler.advance(Duration.ofSeconds(1));
        assertEquals("OPEN", l.getListenerDTO().state);
        assertEquals(2, engine.everListened.size());
        assertNotNull(engine.arrive(445, CLIENT));
    }

    @Test
    void dtoListsTheSelectedProviderFirst() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=b)");
        t.addProvider(a, props("a", 10, 1));
        t.addProvider(b, props("b", 0, 2));
        TransportDTO dto = t.getTransportDTO();
        assertEquals(List.of("b", "a"), Arrays.stream(dto.providers).map(p -> p.name).toList());
        assertTrue(dto.providers[0].selected);
    }

    @Test
    @SuppressWarnings("removal") // the deprecated lastNegotiationFailure still works
    void dtoAggregatesAllProviders() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 10, 1));
        t.addProvider(b, props("b", 0, 2));
        connect(t, new RecordingHandler());
        engines.get("b").connect(SERVER, Duration.ofSeconds(1), new RecordingHandler());
        engines.get("b").connect(SERVER, Duration.ofSeconds(1), new RecordingHandler()).toCompletableFuture().get()
                .close();
        t.listen(SERVER, acceptor);
        TransportDTO dto = t.getTransportDTO();
        assertEquals(List.of("a", "b"), Arrays.stream(dto.providers).map(p -> p.name).toList());
        ProviderDTO pa = dto.providers[0];
        assertTrue(pa.selected);
        assertEquals(10, pa.ranking);
        assertEquals("ROCE", pa.transportType);
        assertEquals(1, pa.connections);
        assertEquals(1, pa.listeners);
        assertEquals("send queue 256 work requests, receive queue 256 work requests, 2 scatter/gather entries, 64 B inline,"
                + " messages up to 1 GiB, RDMA Reads 16 in (IRD) / 16 out (ORD), registrations up to 1 GiB,"
                + " Send with Invalidate", pa.capabilities);
        assertFalse(dto.providers[1].selected);
        assertEquals(1, dto.providers[1].connections);
        assertEquals(2, dto.connections.length);
        assertEquals(1, dto.recentlyClosed.length);
        assertEquals(2, dto.negotiationFailures);
        assertEquals("failure on a", dto.lastNegotiationFailure, "the selected provider's failure first");
        assertEquals(1, dto.listeners.length);
        assertEquals("OPEN", dto.listeners[0].state);
    }

    @Test
    void shutdownClosesEverythingWithShutdown() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        SmbDirectListener l = t.listen(SERVER, acceptor);
        RecordingHandler h = new RecordingHandler();
        connect(t, h);
        t.shutdown().toCompletableFuture().get(1, TimeUnit.SECONDS);
        assertEquals(List.of(CloseReason.Kind.SHUTDOWN), h.reasons.stream().map(CloseReason::kind).toList());
        assertFalse(l.isOpen());
        assertTrue(engines.get("a").listeners.isEmpty());
        t.addProvider(b, props("b", 0, 2));
        assertNull(engines.get("b"), "no engine after shutdown");
        assertThrows(SmbDirectException.class, () -> t.listen(SERVER, acceptor));
    }

    @Test
    void removingAnUnknownProviderIsHarmless() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        t.removeProvider(b).toCompletableFuture().get();
        t.addProvider(a, props("a", 0, 1));
        assertEquals(List.of("a"), t.providerNames());
        assertSame(engines.get("a"), engines.byName.get("a"));
    }

    @Test
    void operatorClosesAnyLiveConnectionByIdOnItsProvider() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 0, 1));
        t.listen(SERVER, acceptor);
        FakeConnection accepted = engines.get("a").arrive(445, CLIENT);
        RecordingHandler client = new RecordingHandler();
        SmbDirectConnection connected = connect(t, client);
        CloseReason operator = CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "closed by operator (test)");

        assertNotNull(t.closeConnection(accepted.id(), null, operator), "an accepted connection closes by id");
        assertEquals(List.of(operator), accepted.disconnects);
        assertTrue(connected.isOpen(), "only the named connection closes");
        assertNull(t.closeConnection(accepted.id(), null, operator), "a closed connection is no longer live");
        assertNull(t.closeConnection(connected.id(), "b", operator), "no such provider");
        assertNull(t.closeConnection(9999, null, operator), "no such id");
        assertTrue(connected.isOpen());

        assertNotNull(t.closeConnection(connected.id(), "a", operator));
        assertEquals(List.of(operator), client.reasons);
    }

    @Test
    void closeByIdLiveOnTwoProvidersNeedsTheProviderNamed() throws Exception {
        engines.idsPerEngine = true;
        MultiProviderTransport t = transport("(smbdirect.provider=a)");
        t.addProvider(a, props("a", 0, 1));
        t.addProvider(b, props("b", 0, 2));
        SmbDirectConnection onA = connect(t, new RecordingHandler());
        t.configure(TransportSettings.DEFAULTS, ProviderFilter.parse("(smbdirect.provider=b)"));
        SmbDirectConnection onB = connect(t, new RecordingHandler());
        assertEquals(onA.id(), onB.id(), "ids are per provider");
        CloseReason operator = CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "closed by operator (test)");

        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> t.closeConnection(onA.id(), null, operator));
        assertTrue(x.getMessage().contains("[a, b]") || x.getMessage().contains("[b, a]"), x.getMessage());
        assertTrue(onA.isOpen() && onB.isOpen(), "an ambiguous id closes nothing");

        assertNotNull(t.closeConnection(onB.id(), "b", operator));
        assertFalse(onB.isOpen());
        assertTrue(onA.isOpen());
    }

    @Test
    void aTransportPinnedToAProviderListensAndConnectsThereAndItsListenerStaysWhenTheSelectionMoves()
            throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 10, 1));
        t.addProvider(b, props("b", 0, 2));
        SmbDirectTransport onB = t.onProvider("b");

        SmbDirectListener pinned = onB.listen(SERVER, acceptor);
        SmbDirectConnection viaB = onB.connect(SERVER, Duration.ofSeconds(1), new RecordingHandler())
                .toCompletableFuture().get(1, TimeUnit.SECONDS);

        assertEquals("a", selected(t.getTransportDTO()), "the selection is unchanged");
        assertEquals("b", pinned.providerName());
        assertEquals("b", viaB.providerName());
        assertEquals("a", connect(t, new RecordingHandler()).providerName(), "the transport itself still uses a");
        t.updateProvider(b, props("b", 20, 2));
        t.addProvider(new FakeProvider("c"), props("c", 30, 3));
        assertEquals("c", selected(t.getTransportDTO()));
        assertEquals("b", pinned.providerName(), "a pinned listener never follows the selection");
        assertNotNull(engines.get("b").arrive(445, CLIENT));
        assertSame(t.getTransportDTO().providers.length, onB.getTransportDTO().providers.length);
    }

    @Test
    void aPinnedListenerWaitsWhileItsProviderIsGoneAndOpensAgainWhenItReturns() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 10, 1));
        t.addProvider(b, props("b", 0, 2));
        SmbDirectListener pinned = t.onProvider("b").listen(SERVER, acceptor);

        t.removeProvider(b).toCompletableFuture().get(1, TimeUnit.SECONDS);

        ListenerDTO waiting = pinned.getListenerDTO();
        assertEquals("WAITING", waiting.state, "it does not move to a");
        assertTrue(waiting.stateDetail.contains("smbdirect.provider=b"), waiting.stateDetail);
        assertTrue(engines.get("a").listeners.isEmpty());
        FakeProvider b2 = new FakeProvider("b");
        t.addProvider(b2, props("b", 0, 4));
        assertEquals("OPEN", pinned.getListenerDTO().state);
        assertEquals("b", pinned.providerName());
        assertNotNull(engines.get("b").arrive(445, CLIENT));
    }

    @Test
    void aProviderNameThatIsNotBoundIsRefusedNamingTheProvidersThereAre() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        t.addProvider(a, props("a", 10, 1));
        SmbDirectTransport onX = t.onProvider("x*)(y");

        SmbDirectException listen = assertThrows(SmbDirectException.class, () -> onX.listen(SERVER, acceptor));
        assertEquals(SmbDirectException.Kind.NO_PROVIDER, listen.kind());
        assertTrue(listen.getMessage().contains("no RDMA provider named 'x*)(y' (providers: [a])"), listen.getMessage());
        ExecutionException connect = assertThrows(ExecutionException.class,
                () -> onX.connect(SERVER, Duration.ofSeconds(1), new RecordingHandler()).toCompletableFuture().get());
        assertEquals(SmbDirectException.Kind.NO_PROVIDER, ((SmbDirectException) connect.getCause()).kind());
        assertTrue(t.getTransportDTO().listeners.length == 0, "nothing was opened");
    }

    @Test
    void theProvidersOwnSettingsAndStatisticsAreInItsDto() throws Exception {
        MultiProviderTransport t = transport("(smbdirect.provider=*)");
        FakeProvider described = new FakeProvider("d") {
            @Override
            public String describeSettings() {
                return "listens only on 127.0.0.1:5445";
            }

            @Override
            public String describeStatistics() {
                throw new IllegalStateException("counters unavailable");
            }
        };
        t.addProvider(described, props("d", 0, 1));
        t.addProvider(a, props("a", -10, 2));

        ProviderDTO d = Arrays.stream(t.getTransportDTO().providers).filter(p -> p.name.equals("d")).findFirst()
                .orElseThrow();
        ProviderDTO plain = Arrays.stream(t.getTransportDTO().providers).filter(p -> p.name.equals("a")).findFirst()
                .orElseThrow();
        assertEquals("listens only on 127.0.0.1:5445", d.settings);
        assertEquals("(not reported: counters unavailable)", d.statistics, "a failing provider does not break the DTO");
        assertNull(plain.settings);
        assertNull(plain.statistics);
    }
}
