package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEvent;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.TransportDTO;

/**
 * Typed listener events in virtual time: each acceptance, decline, refusal (caps, budget) and failed
 * negotiation (a bad Negotiate Request, the Negotiation Timer) reaches the listener's own handler and
 * the engine's, and the DTOs keep the last ones as structured records.
 */
class ListenerEventsTest {

    private final List<ListenerEvent> own = new CopyOnWriteArrayList<>();
    private final List<ListenerEvent> engineWide = new CopyOnWriteArrayList<>();
    private final List<String> order = new ArrayList<>();
    /** What the accept handler does after recording the connection: its answer (or what it throws). */
    private Function<SmbDirectConnection, ConnectionHandler> answer;

    private Harness harness(TransportSettings settings) {
        Harness h = new Harness(settings);
        h.engine.setListenerEventHandler(engineWide::add);
        try {
            h.listener = h.engine.listen(new InetSocketAddress("127.0.0.1", 445), c -> {
                order.add("accepted " + c.id());
                h.accepted.add(c);
                return answer == null ? h.recorder : answer.apply(c);
            }, e -> {
                order.add(e.kind() + " " + e.connectionId());
                own.add(e);
            });
        } catch (SmbDirectException e) {
            throw new AssertionError(e);
        }
        return h;
    }

    private ListenerEvent only() {
        assertEquals(1, own.size(), own.toString());
        assertEquals(own, engineWide, "the engine's handler is told the same events");
        return own.get(0);
    }

    @Test
    void R_3_1_5_6_06_badNegotiateRequestIsANegotiationFailureNamingTheRuleAndTheValue() {
        Harness h = harness(TransportSettings.DEFAULTS);
        long start = h.engine.epochMillis();
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        e.deliver(Harness.negRequest(0x100, 0x100, 0, 1024, 1024, 131072));

        ListenerEvent ev = only();
        assertEquals(ListenerEvent.Kind.NEGOTIATION_FAILED, ev.kind());
        assertEquals(CloseReason.Kind.NEGOTIATION_FAILED, ev.reason().kind());
        assertEquals("R-3.1.5.6-06", ev.reason().rule());
        assertTrue(ev.reason().detail().contains("CreditsRequested=0"), ev.reason().detail());
        assertEquals(Harness.PEER, ev.peerAddress());
        assertEquals(h.listener.localAddress(), ev.listenerAddress());
        assertEquals(h.provider.name(), ev.provider());
        assertTrue(ev.connectionId() > 0);
        assertEquals(start, ev.timestamp().toEpochMilli());

        ListenerEventDTO d = h.listener.getListenerDTO().events[0];
        assertEquals("NEGOTIATION_FAILED", d.kind);
        assertEquals("PASSIVE", d.role);
        assertEquals("127.0.0.1:445", d.peerAddress);
        assertEquals("NEGOTIATION_FAILED", d.reasonKind);
        assertEquals("R-3.1.5.6-06", d.rule);
        assertEquals(ev.reason().detail(), d.detail);
        assertEquals(ev.connectionId(), d.connectionId);
        assertEquals(start, d.timestampMillis);

        TransportDTO t = h.engine.getTransportDTO();
        assertEquals(1, t.negotiationFailureEvents.length);
        assertEquals("R-3.1.5.6-06", t.negotiationFailureEvents[0].rule);
        assertEquals("127.0.0.1:445", t.negotiationFailureEvents[0].listener);
        @SuppressWarnings("removal")
        String last = t.lastNegotiationFailure;
        assertTrue(last.contains("R-3.1.5.6-06"), "the deprecated text field still works: " + last);
    }

    @Test
    void R_3_1_6_1_01_negotiationTimerExpiryIsANegotiationTimeoutEvent() {
        Harness h = harness(TransportSettings.DEFAULTS);
        long start = h.engine.epochMillis();
        h.request(null).endpoint.establish();
        h.scheduler.advance(Duration.ofMillis(4999));
        assertTrue(own.isEmpty(), own.toString());
        h.scheduler.advance(Duration.ofMillis(1));

        ListenerEvent ev = only();
        assertEquals(ListenerEvent.Kind.NEGOTIATION_TIMEOUT, ev.kind());
        assertEquals(CloseReason.Kind.NEGOTIATION_TIMEOUT, ev.reason().kind());
        assertEquals(start + 5000, ev.timestamp().toEpochMilli(), "stamped on the transport's (virtual) clock");
        assertEquals("NEGOTIATION_TIMEOUT", h.listener.getListenerDTO().events[0].kind);
    }

    @Test
    void connectionCapRefusalIsARefusedCapEventNamingTheLimit() {
        Harness h = harness(TransportSettings.builder().maxNegotiatingPerListener(1).build());
        h.request(null);
        assertTrue(h.request(null).rejected);

        ListenerEvent ev = only();
        assertEquals(ListenerEvent.Kind.REFUSED_CAP, ev.kind());
        assertTrue(ev.kind().isRefusal());
        assertEquals(CloseReason.Kind.RESOURCE_LIMIT, ev.reason().kind());
        assertEquals("maxNegotiatingPerListener=1 reached", ev.reason().detail());
        assertEquals(0, ev.connectionId(), "refused before a connection existed");
        assertEquals(Harness.PEER, ev.peerAddress());
        assertEquals(1, h.listener.getListenerDTO().refused);
        assertEquals("REFUSED_CAP", h.listener.getListenerDTO().events[0].kind);
        assertEquals(0, h.engine.getTransportDTO().negotiationFailureEvents.length, "a refusal is no negotiation");
    }

    @Test
    void maxConnectionsPerListenerRefusalNamesItsLimit() {
        Harness h = harness(TransportSettings.builder().maxConnectionsPerListener(1).build());
        h.passive(10, 1024, 1024, 131072);
        assertTrue(h.request(null).rejected);
        assertEquals(2, own.size(), own.toString());
        assertEquals(ListenerEvent.Kind.REFUSED_CAP, own.get(1).kind());
        assertEquals("maxConnectionsPerListener=1 reached", own.get(1).reason().detail());
    }

    @Test
    void receiveBufferBudgetRefusalIsARefusedBudgetEvent() {
        TransportSettings s = TransportSettings.builder().receiveCreditMax(10).maxReceiveSize(1024)
                .receiveBufferBudget(12 * 1024).build();
        Harness h = harness(s);
        h.passive(10, 1024, 1024, 131072);
        assertTrue(h.request(null).rejected);

        assertEquals(2, own.size(), own.toString());
        ListenerEvent ev = own.get(1);
        assertEquals(ListenerEvent.Kind.REFUSED_BUDGET, ev.kind());
        assertEquals(CloseReason.Kind.RESOURCE_LIMIT, ev.reason().kind());
        assertEquals("receiveBufferBudget=12288 would be exceeded", ev.reason().detail());
    }

    @Test
    void R_3_1_7_2_11_acceptedEventComesOnceTheAcceptHandlerTookTheNegotiatedConnection() {
        Harness h = harness(TransportSettings.DEFAULTS);
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        assertTrue(own.isEmpty(), "nothing before negotiation");
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));

        ListenerEvent ev = only();
        long id = h.accepted.get(0).id();
        assertEquals(ListenerEvent.Kind.ACCEPTED, ev.kind());
        assertNull(ev.reason());
        assertEquals(id, ev.connectionId());
        assertEquals(List.of("accepted " + id, "ACCEPTED " + id), order);
        ListenerEventDTO d = h.listener.getListenerDTO().events[0];
        assertEquals("ACCEPTED", d.kind);
        assertNull(d.reasonKind);
        assertNull(d.rule);
        assertEquals(1, h.listener.getListenerDTO().accepted);
        assertEquals(0, h.listener.getListenerDTO().declined);
    }

    @Test
    void anAcceptHandlerThatReturnsNullDeclinesTheConnectionAndTheEventSaysSo() {
        Harness h = harness(TransportSettings.DEFAULTS);
        answer = c -> null;
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));

        ListenerEvent ev = only();
        assertEquals(ListenerEvent.Kind.DECLINED, ev.kind());
        assertEquals(h.accepted.get(0).id(), ev.connectionId());
        assertEquals(CloseReason.Kind.LOCAL_CLOSE, ev.reason().kind());
        assertEquals("the accept handler declined the connection (returned null)", ev.reason().detail());
        assertFalse(h.accepted.get(0).isOpen(), "closed");
        ListenerDTO l = h.listener.getListenerDTO();
        assertEquals(0, l.accepted);
        assertEquals(1, l.declined);
        assertEquals(0, l.negotiationFailures, "it negotiated");
        assertEquals("DECLINED", l.events[0].kind);
        assertEquals("LOCAL_CLOSE", l.events[0].reasonKind);
        assertEquals(0, h.engine.getTransportDTO().negotiationFailures);
    }

    @Test
    void anAcceptHandlerThatThrowsDeclinesTheConnectionWithHandlerFailedNamingTheException() {
        Harness h = harness(TransportSettings.DEFAULTS);
        List<String> reported = new ArrayList<>();
        h.engine.setCallbackFailureHandler((callback, id, failure) -> reported.add(callback + " " + id + " " + failure));
        answer = c -> {
            throw new AssertionError("no share for " + c.peerAddress());
        };
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));

        ListenerEvent ev = only();
        long id = h.accepted.get(0).id();
        assertEquals(ListenerEvent.Kind.DECLINED, ev.kind());
        assertEquals(CloseReason.Kind.HANDLER_FAILED, ev.reason().kind());
        assertEquals("AcceptHandler.accepted threw java.lang.AssertionError: no share for " + Harness.PEER,
                ev.reason().detail());
        assertFalse(h.accepted.get(0).isOpen(), "closed");
        assertEquals(List.of("AcceptHandler.accepted " + id + " java.lang.AssertionError: no share for "
                + Harness.PEER), reported);
        assertEquals(1, h.listener.getListenerDTO().declined);
        assertTrue(h.listener.isOpen(), "the listener goes on");
    }

    @Test
    void theDtoKeepsTheLast16EventsNewestFirst() {
        Harness h = harness(TransportSettings.builder().maxNegotiatingPerListener(1).build());
        h.request(null);
        for (int i = 0; i < 20; i++) {
            h.scheduler.advance(Duration.ofMillis(10));
            h.request(null);
        }
        ListenerEventDTO[] events = h.listener.getListenerDTO().events;
        assertEquals(16, events.length);
        for (int i = 1; i < events.length; i++) {
            assertEquals(events[i - 1].timestampMillis - 10, events[i].timestampMillis, "newest first");
        }
        assertEquals(20, own.size(), "the handler is told of every event");
    }

    @Test
    void aThrowingHandlerChangesNothingElse() throws Exception {
        Harness h = new Harness();
        h.listener = h.engine.listen(new InetSocketAddress("127.0.0.1", 445), c -> {
            h.accepted.add(c);
            return h.recorder;
        }, e -> {
            throw new IllegalStateException("handler bug");
        });
        h.engine.setListenerEventHandler(engineWide::add);
        List<String> reported = new ArrayList<>();
        h.engine.setCallbackFailureHandler((callback, id, failure) -> reported.add(callback + " " + failure));
        FakeEndpoint e = h.request(null).endpoint;
        e.establish();
        e.deliver(Harness.negRequest(0x100, 0x100, 10, 1024, 1024, 131072));
        assertEquals(1, h.accepted.size(), "the connection is still accepted");
        assertTrue(h.accepted.get(0).isOpen(), "and stays open");
        assertEquals(1, engineWide.size(), "the engine's handler is still told");
        assertEquals(1, h.listener.getListenerDTO().events.length);
        assertEquals(List.of("ListenerEventHandler.onEvent java.lang.IllegalStateException: handler bug"), reported);
    }

    @Test
    void anActiveNegotiationFailureIsKeptInTheTransportDtoWithItsRole() {
        Harness h = harness(TransportSettings.DEFAULTS);
        h.connect();
        FakeEndpoint e = h.provider.last();
        e.establish();
        e.completeSends();
        e.deliver(Harness.negResponse(255, 0, 0, 8 << 20, 1364, 8192, 1 << 20));

        ListenerEventDTO[] failures = h.engine.getTransportDTO().negotiationFailureEvents;
        assertEquals(1, failures.length);
        assertEquals("ACTIVE", failures[0].role);
        assertNull(failures[0].listener);
        assertEquals("127.0.0.1:445", failures[0].peerAddress);
        assertTrue(own.isEmpty(), "no listener is involved");
    }
}
