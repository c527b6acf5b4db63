package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;

/**
 * The engine's drain, in virtual time: new connections are refused at once, an established
 * connection finishes what is in flight (sends handed over and not acknowledged, RDMA operations,
 * a message partly received) and closes with the drain's reason as soon as it has nothing, new
 * sends of its upper layer still go meanwhile, the drain time closes what is left with the reason
 * saying what it was, and no drain time closes everything at once.
 */
class DrainTest {

    private static final CloseReason STOP = CloseReason.of(CloseReason.Kind.SHUTDOWN, "SMB Direct transport stopped");
    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

    private final Harness h = new Harness();
    private final List<Throwable> outcomes = new ArrayList<>();

    private Connection established() {
        Connection c = h.active(255, 255, 1364, 8192, 1 << 20);
        h.provider.last().completeSends();
        return c;
    }

    private void send(Connection c, int seed) {
        c.send(ByteBuffer.wrap(Harness.bytes(100, seed)), (m, x) -> outcomes.add(x));
    }

    private void assertOpenAfter(Connection c, Duration d) {
        h.scheduler.advance(d);
        assertTrue(c.isOpen(), "still finishing what is in flight after " + d);
        assertEquals(List.of(), h.recorder.disconnects);
    }

    @Test
    void aMessageInFlightIsAcknowledgedThenTheConnectionClosesWithTheDrainsReason() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        send(c, 1);
        CompletableFuture<Void> done = h.engine.drain(STOP, TEN_SECONDS).toCompletableFuture();
        assertOpenAfter(c, Duration.ofSeconds(1));
        assertFalse(done.isDone());

        e.completeSends(); // the peer acknowledged it
        assertEquals(1, outcomes.size());
        assertNull(outcomes.get(0), "the message in flight completed");
        h.scheduler.advance(Duration.ofMillis(20));
        assertFalse(c.isOpen());
        assertEquals(List.of(STOP), h.recorder.disconnects, "closed with the reason, nothing ran out");
        assertTrue(done.isDone());
        h.provider.assertNoLeaks();
    }

    @Test
    void newSendsOfTheUpperLayerStillGoDuringTheDrain() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        send(c, 1);
        h.engine.drain(STOP, TEN_SECONDS);
        int posted = e.sends.size();
        send(c, 2); // the reply the server finishes while draining
        assertEquals(posted + 1, e.sends.size(), "the new send was posted");
        e.completeSends();
        assertEquals(2, outcomes.size());
        assertTrue(outcomes.stream().allMatch(x -> x == null), "both sent: " + outcomes);
        h.scheduler.advance(Duration.ofMillis(20));
        assertEquals(List.of(STOP), h.recorder.disconnects);
    }

    @Test
    void aReplySentFromOnMessageWhileTheDrainStartsIsNotCut() {
        List<CloseReason> closed = new ArrayList<>();
        ConnectionHandler server = new ConnectionHandler() {
            @Override
            public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
                h.engine.drain(STOP, TEN_SECONDS); // the runtime stops while the request is being handled
                c.send(ByteBuffer.wrap(Harness.bytes(10, 3)), (x, failure) -> outcomes.add(failure));
            }

            @Override
            public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
                closed.add(reason);
            }
        };
        CompletableFuture<SmbDirectConnection> f = h.engine.connect(Harness.PEER, Duration.ofSeconds(120), server)
                .toCompletableFuture();
        FakeEndpoint e = h.provider.last();
        e.establish();
        e.completeSends();
        e.deliver(Harness.negResponse(255, 255, 0, 8 << 20, 1364, 8192, 1 << 20));
        Connection c = (Connection) f.join();
        e.completeSends();

        e.deliver(Harness.dt(10, 10, 0, 0, Harness.bytes(20, 1))); // the request
        assertTrue(c.isOpen(), "the reply handed over from the callback is in flight");
        assertEquals(List.of(), closed);
        e.completeSends();
        assertEquals(1, outcomes.size());
        assertNull(outcomes.get(0), "the reply was sent");
        h.scheduler.advance(Duration.ofMillis(20));
        assertEquals(List.of(STOP), closed);
    }

    @Test
    void whenTheDrainTimeRunsOutWhatIsLeftClosesWithTheReasonSayingWhatWasInFlight() {
        Connection c = established();
        send(c, 1); // never acknowledged
        CompletableFuture<Void> done = h.engine.drain(STOP, TEN_SECONDS).toCompletableFuture();
        assertOpenAfter(c, Duration.ofMillis(9_990));

        h.scheduler.advance(Duration.ofMillis(10));
        assertFalse(c.isOpen());
        assertEquals(1, h.recorder.disconnects.size());
        CloseReason r = h.recorder.disconnects.get(0);
        assertEquals(CloseReason.Kind.SHUTDOWN, r.kind());
        assertEquals("SMB Direct transport stopped; the drain time of 10 s ran out with 1 message to send in flight",
                r.detail());
        SmbDirectException failed = assertInstanceOf(SmbDirectException.class, outcomes.get(0));
        assertEquals(r, failed.closeReason(), "the message left fails with the same reason");
        assertTrue(done.isDone());
        h.provider.assertNoLeaks();
    }

    @Test
    void anRdmaOperationPostedKeepsTheConnectionUntilItCompletes() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        RegisteredBuffer local = c.register(ByteBuffer.allocateDirect(4096), RemoteAccess.LOCAL_ONLY)
                .toCompletableFuture().join();
        List<Object> rdmaDone = new ArrayList<>();
        c.rdmaWrite(local, 0, 4096, List.of(new BufferDescriptor(0x5000, 7, 4096)), 0,
                (bytes, failure) -> rdmaDone.add(failure == null ? bytes : failure));
        h.engine.drain(CloseReason.of(CloseReason.Kind.PROVIDER_REPLACED, "RDMA provider 'fake' withdrawn"),
                TEN_SECONDS);
        assertOpenAfter(c, Duration.ofSeconds(5));

        e.completeRdma();
        assertEquals(List.of(4096L), rdmaDone);
        h.scheduler.advance(Duration.ofMillis(20));
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, h.recorder.disconnects.get(0).kind());
    }

    @Test
    void aMessagePartlyReceivedIsDeliveredBeforeTheConnectionCloses() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.deliver(Harness.dt(10, 10, 0, 50, Harness.bytes(50, 1))); // the first half of a 100-byte message
        h.engine.drain(STOP, TEN_SECONDS);
        assertOpenAfter(c, Duration.ofSeconds(1));

        e.deliver(Harness.dt(10, 0, 0, 0, Harness.bytes(50, 2)));
        assertEquals(1, h.recorder.messages.size(), "the whole message was delivered");
        assertEquals(100, h.recorder.messages.get(0).length);
        h.scheduler.advance(Duration.ofMillis(20));
        assertEquals(List.of(STOP), h.recorder.disconnects);
    }

    @Test
    void anIdleConnectionClosesAtOnce() {
        Connection c = established();
        h.engine.drain(STOP, TEN_SECONDS);
        assertFalse(c.isOpen());
        assertEquals(List.of(STOP), h.recorder.disconnects);
    }

    @Test
    void noDrainTimeClosesEverythingAtOnceAndFailsWhatWasInFlight() {
        Connection c = established();
        send(c, 1);
        CompletableFuture<Void> done = h.engine.drain(STOP, Duration.ZERO).toCompletableFuture();
        assertFalse(c.isOpen());
        assertTrue(done.isDone());
        assertEquals(List.of(STOP), h.recorder.disconnects);
        assertEquals(STOP, assertInstanceOf(SmbDirectException.class, outcomes.get(0)).closeReason());
    }

    @Test
    void noNewConnectionIsAcceptedOrMadeDuringTheDrain() {
        Connection busy = h.passive(255, 1364, 8192, 1 << 20);
        send(busy, 1);
        h.engine.drain(STOP, TEN_SECONDS);
        assertTrue(busy.isOpen());
        assertTrue(h.provider.listeners.get(0).closed, "the listener stopped accepting");
        assertFalse(h.listener.isOpen());

        FakeProvider.FakeRequest late = h.provider.new FakeRequest(Harness.PEER, null, 8, 8);
        h.provider.listeners.get(0).handler.onConnectRequest(late);
        assertTrue(late.rejected, "a connection request arriving during the drain is refused");
        assertEquals(1, h.accepted.size());
        CompletableFuture<SmbDirectConnection> out = h.connect().toCompletableFuture();
        assertTrue(out.isCompletedExceptionally(), "no new connection is made either");
        assertTrue(busy.isOpen(), "the draining connection goes on");
    }

    @Test
    void aConnectionStillNegotiatingIsRefusedAtOnce() {
        CompletableFuture<SmbDirectConnection> f = h.connect().toCompletableFuture();
        h.provider.last().establish(); // negotiating: the Negotiate Response has not come
        h.engine.drain(STOP, TEN_SECONDS);
        assertTrue(f.isCompletedExceptionally());
        SmbDirectException x = assertInstanceOf(SmbDirectException.class,
                org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.CompletionException.class, f::join)
                        .getCause());
        assertEquals(CloseReason.Kind.SHUTDOWN, x.closeReason().kind());
    }
}
