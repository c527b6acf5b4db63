package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import smbdirect.api.CloseReason;
import smbdirect.api.ListenerEvent;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.standalone.CallbackFailure;
import smbdirect.standalone.StandaloneTransport;

/**
 * A handler of the upper layer that throws: its connection closes with HANDLER_FAILED naming the
 * handler's exception, what the upper layer handed over fails with that exception as the cause,
 * nothing else is affected, and the test kit fails the test with the exception as the cause,
 * whatever the throwable.
 */
class HandlerFailureTest {

    /** A handler whose onMessage throws {@code failure} for the message "boom". */
    private static final class Throwing extends RecordingHandler {
        final Throwable failure;
        final List<Throwable> sendFailures = new ArrayList<>();

        Throwing(Throwable failure) {
            this.failure = failure;
        }

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
            super.onMessage(c, message);
            if (message.length() == 4 && message.payload().get(message.payload().position()) == 'b') {
                // the peer withholds credits: these wait in the send queue when the handler throws
                for (int i = 0; i < 3; i++) {
                    c.send(ByteBuffer.wrap(new byte[] {(byte) i}), (m, f) -> sendFailures.add(f));
                }
                sneakyThrow(failure);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    static Stream<Throwable> whateverTheThrowable() {
        return Stream.of(new AssertionError("expected an SMB2 header"), new IllegalStateException("bad header"),
                new StackOverflowError("recursive parser"), new Exception("checked, thrown sneakily"));
    }

    @ParameterizedTest
    @MethodSource("whateverTheThrowable")
    void aThrowableInOnMessageFailsTheTestWithItAsTheCause(Throwable inHandler) throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            Throwing handler = new Throwing(inHandler);
            SmbDirectListener l = server.listen(kit.address("server"), c -> handler);
            ScriptedPeer client = kit.peer().connect(l.localAddress());
            kit.settle();
            client.send("boom".getBytes());
            AssertionError failed = assertThrows(AssertionError.class, kit::settle);
            assertSame(inHandler, failed.getCause());
            assertTrue(failed.getMessage().contains("ConnectionHandler.onMessage of connection "), failed.getMessage());
            assertEquals(CloseReason.Kind.HANDLER_FAILED, handler.closeReason().kind());
            assertEquals("ConnectionHandler.onMessage threw " + inHandler, handler.closeReason().detail());
            kit.settle(); // reported once
        }
    }

    @Test
    void theConnectionClosesWithHandlerFailedAndItsPendingSendsFailWithTheHandlersException() throws Exception {
        IllegalStateException inHandler = new IllegalStateException("bad header");
        try (SmbDirectTestKit kit = SmbDirectTestKit.create().tolerateCallbackFailures()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            Throwing handler = new Throwing(inHandler);
            RecordingHandler other = new RecordingHandler();
            ScriptedPeer client = kit.peer();
            ScriptedPeer bystander = kit.peer();
            SmbDirectListener l = server.listen(kit.address("server"),
                    c -> c.peerAddress().getAddress().equals(client.raw().provider().address()) ? handler : other);
            client.connect(l.localAddress());
            bystander.connect(l.localAddress());
            kit.settle();
            client.withholdCredits(true);
            client.send("boom".getBytes());
            kit.settle();

            CloseReason r = handler.closeReason();
            assertEquals(CloseReason.Kind.HANDLER_FAILED, r.kind());
            assertEquals("ConnectionHandler.onMessage threw java.lang.IllegalStateException: bad header", r.detail());
            assertEquals(1, handler.disconnectNotifications(), "told once, as for any close");
            assertEquals(3, handler.sendFailures.size(), "every send handed over completed");
            for (Throwable f : handler.sendFailures) {
                SmbDirectException e = assertInstanceOf(SmbDirectException.class, f);
                assertEquals(SmbDirectException.Kind.CONNECTION_CLOSED, e.kind());
                assertEquals(r, e.closeReason());
                assertSame(inHandler, e.getCause());
            }
            assertEquals(ScriptedPeer.State.CLOSED, client.state(), "the peer was disconnected");
            List<CallbackFailure> failures = kit.callbackFailures();
            assertEquals(1, failures.size());
            assertEquals("ConnectionHandler.onMessage", failures.get(0).callback());
            assertSame(inHandler, failures.get(0).failure());

            bystander.send("still here".getBytes());
            kit.settle();
            assertEquals("still here", new String(other.messages().get(0)), "other connections go on");
            assertTrue(bystander.isEstablished());
            assertTrue(l.isOpen());
        }
    }

    @Test
    void aSendCompletionThatThrowsClosesItsConnectionAndFailsTheTest() throws Exception {
        RuntimeException inCompletion = new UnsupportedOperationException("not yet");
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = server.listen(kit.address("server"), c -> {
                accepted.complete(c);
                return h;
            });
            ScriptedPeer client = kit.peer().connect(l.localAddress());
            kit.settle();
            List<Throwable> told = new ArrayList<>();
            accepted.get().send(ByteBuffer.wrap("reply".getBytes()), (m, f) -> {
                told.add(f);
                throw inCompletion;
            });
            AssertionError failed = assertThrows(AssertionError.class, kit::settle);
            assertSame(inCompletion, failed.getCause());
            assertTrue(failed.getMessage().contains("SendCompletion.sendComplete"), failed.getMessage());
            assertEquals(Arrays.asList((Throwable) null), told, "told once, of a successful send");
            assertEquals("SendCompletion.sendComplete threw java.lang.UnsupportedOperationException: not yet",
                    h.closeReason().detail());
            assertEquals(ScriptedPeer.State.CLOSED, client.state(), "the connection was closed");
        }
    }

    @Test
    void aFailureTheTestDidNotSettleAfterFailsItAtClose() throws Exception {
        AssertionError inHandler = new AssertionError("told too late");
        SmbDirectTestKit kit = SmbDirectTestKit.create();
        StandaloneTransport server = kit.transport("server", Map.of());
        SmbDirectListener l = server.listen(kit.address("server"), c -> new RecordingHandler() {
            @Override
            public void onDisconnected(SmbDirectConnection c2, CloseReason reason) {
                throw inHandler; // thrown while the kit shuts the transport down
            }
        });
        kit.peer().connect(l.localAddress());
        kit.settle();
        AssertionError failed = assertThrows(AssertionError.class, kit::close);
        assertSame(inHandler, failed.getCause());
        assertTrue(failed.getMessage().contains("ConnectionHandler.onDisconnected"), failed.getMessage());
    }

    @Test
    void anAcceptHandlerThatReturnsNullIsADeclinedListenerEvent() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            RecordingListenerEvents events = new RecordingListenerEvents();
            SmbDirectListener l = server.listen(kit.address("server"), c -> null, events);
            ScriptedPeer client = kit.peer().connect(l.localAddress());
            kit.settle();

            assertEquals(List.of(ListenerEvent.Kind.DECLINED), events.kinds());
            assertEquals(client.raw().provider().address(), events.last().peerAddress().getAddress());
            CloseReason r = events.last().reason();
            assertEquals(CloseReason.Kind.LOCAL_CLOSE, r.kind());
            assertEquals("the accept handler declined the connection (returned null)", r.detail());
            assertEquals(ScriptedPeer.State.CLOSED, client.state(), "closed");
            ListenerDTO dto = l.getListenerDTO();
            assertEquals(0, dto.accepted);
            assertEquals(1, dto.declined);
            assertEquals("DECLINED", dto.events[0].kind);
            assertEquals("LOCAL_CLOSE", dto.events[0].reasonKind);
            assertEquals(r.detail(), dto.events[0].detail);
        }
    }

    @Test
    void anAcceptHandlerThatThrowsIsADeclinedListenerEventNamingTheExceptionAndFailsTheTest() throws Exception {
        IllegalArgumentException inHandler = new IllegalArgumentException("no share");
        RecordingListenerEvents events = new RecordingListenerEvents();
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            SmbDirectListener l = server.listen(kit.address("server"), c -> {
                throw inHandler;
            }, events);
            kit.peer().connect(l.localAddress());
            AssertionError failed = assertThrows(AssertionError.class, kit::settle);
            assertSame(inHandler, failed.getCause());
            assertTrue(l.isOpen(), "the listener goes on");
        }
        assertEquals(List.of(ListenerEvent.Kind.DECLINED), events.kinds());
        assertEquals(CloseReason.Kind.HANDLER_FAILED, events.last().reason().kind());
        assertEquals("AcceptHandler.accepted threw java.lang.IllegalArgumentException: no share",
                events.last().reason().detail());
        assertFalse(events.last().kind().isRefusal(), "it negotiated: not a refusal");
    }
}
