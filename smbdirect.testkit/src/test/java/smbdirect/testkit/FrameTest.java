package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ListenerEvent;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.standalone.StandaloneTransport;

/** {@link Frame}: a typed getter and setter for every field of each [MS-SMBD] message, in a hook. */
class FrameTest {

    @Test
    void theNegotiateRequestsFieldsReadAsTheSpecLaysThemOut() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            SmbDirectListener l = server.listen(kit.address("server"), c -> new RecordingHandler());
            ScriptedPeer peer = kit.peer().sendCreditTarget(17).maxSendSize(1000).maxReceiveSize(4096)
                    .maxFragmentedSize(1 << 18).connect(l.localAddress());
            kit.settle();
            Frame request = peer.sent().get(0);
            assertEquals(Frame.Kind.NEGOTIATE_REQUEST, request.kind());
            assertEquals(0x0100, request.minVersion());
            assertEquals(0x0100, request.maxVersion());
            assertEquals(0, request.reserved());
            assertEquals(17, request.creditsRequested());
            assertEquals(1000, request.preferredSendSize());
            assertEquals(4096, request.maxReceiveSize());
            assertEquals(1 << 18, request.maxFragmentedSize());
            IllegalStateException e = assertThrows(IllegalStateException.class, request::dataOffset);
            assertEquals("DataOffset is not a field of a NEGOTIATE_REQUEST message", e.getMessage());
            assertThrows(IllegalStateException.class, () -> request.status(0));
        }
    }

    @Test
    void R_3_1_5_6_08_aNegotiateRequestFieldSetOutOfRangeIsRefusedNamingTheRuleAndValue() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            RecordingListenerEvents events = new RecordingListenerEvents();
            SmbDirectListener l = server.listen(kit.address("server"), c -> new RecordingHandler(), events);
            kit.peer().hook(frame -> {
                if (frame.kind() == Frame.Kind.NEGOTIATE_REQUEST) {
                    frame.maxFragmentedSize(131071);
                }
                return true;
            }).connect(l.localAddress());
            kit.settle();
            assertEquals(ListenerEvent.Kind.NEGOTIATION_FAILED, events.last().kind());
            assertEquals("R-3.1.5.6-08", events.last().reason().rule());
            assertTrue(events.last().reason().detail().startsWith("MaxFragmentedSize=131071"),
                    events.last().reason().detail());
        }
    }

    @Test
    void R_3_1_5_7_08_aNegotiateResponseWithAFailureStatusFailsTheConnect() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport client = kit.transport("client", Map.of());
            ScriptedPeer server = kit.peer().hook(frame -> {
                if (frame.kind() == Frame.Kind.NEGOTIATE_RESPONSE) {
                    assertEquals(0x0100, frame.negotiatedVersion());
                    assertEquals(8 << 20, frame.maxReadWriteSize());
                    assertEquals(32, frame.creditsGranted());
                    frame.status(0xC000009AL); // STATUS_INSUFFICIENT_RESOURCES
                }
                return true;
            });
            CompletableFuture<SmbDirectConnection> f = client.connect(server.listen(), Duration.ofSeconds(5),
                    new RecordingHandler()).toCompletableFuture();
            kit.settle();
            CompletionException e = assertThrows(CompletionException.class, f::join);
            CloseReason r = ((SmbDirectException) e.getCause()).closeReason();
            assertNotNull(r, e.toString());
            assertEquals("R-3.1.5.7-08", r.rule());
            assertTrue(r.detail().startsWith("Status=3221225626"), r.detail());
        }
    }

    @Test
    void aDataTransfersPayloadCanBeReadAndReplaced() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = server.listen(kit.address("server"), c -> h);
            ScriptedPeer peer = kit.peer().connect(l.localAddress());
            kit.settle();
            peer.hook(frame -> {
                if (frame.kind() == Frame.Kind.DATA && frame.dataLength() > 0) {
                    assertEquals("hello", new String(frame.payload()));
                    assertEquals(24, frame.dataOffset());
                    frame.payload("HELLO, WORLD".getBytes());
                }
                return true;
            });
            peer.send("hello".getBytes());
            kit.settle();
            assertEquals(List.of("HELLO, WORLD"), h.messages().stream().map(String::new).toList());
            Frame sent = peer.sent().get(peer.sent().size() - 1);
            assertEquals(24 + 12, sent.length());
            assertEquals(12, sent.dataLength());
        }
    }
}
