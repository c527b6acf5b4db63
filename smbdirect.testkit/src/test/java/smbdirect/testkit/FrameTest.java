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

import org.junit.jupiter.api.DisplayName;
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

    @Test
    @DisplayName("R-2.2-02 R-2.2-04 R-2.2-07: the factories lay every message out as the spec says (little-endian,"
            + " Reserved and Padding 0)")
    void theFactoriesLayEveryMessageOutAsTheSpecSays() {
        Frame request = Frame.negotiateRequest(10, 1364, 8192, 1 << 20);
        assertEquals(Frame.Kind.NEGOTIATE_REQUEST, request.kind());
        assertEquals(20, request.length());
        // 2.2.1: MinVersion, MaxVersion, Reserved, CreditsRequested, PreferredSendSize, MaxReceiveSize, MaxFragmentedSize
        assertEquals(List.of(0x0100, 0x0100, 0, 10), List.of(request.u16(0), request.u16(2), request.u16(4),
                request.u16(6)));
        assertEquals(List.of(1364L, 8192L, 1L << 20), List.of(request.u32(8), request.u32(12), request.u32(16)));

        Frame response = Frame.negotiateResponse(255, 7, 1 << 23, 1364, 8192, 1 << 20);
        assertEquals(Frame.Kind.NEGOTIATE_RESPONSE, response.kind());
        assertEquals(32, response.length());
        // 2.2.2: MinVersion, MaxVersion, NegotiatedVersion, Reserved, CreditsRequested, CreditsGranted, Status, ...
        assertEquals(List.of(0x0100, 0x0100, 0x0100, 0, 255, 7), List.of(response.u16(0), response.u16(2),
                response.u16(4), response.u16(6), response.u16(8), response.u16(10)));
        assertEquals(List.of(0L, 1L << 23, 1364L, 8192L, 1L << 20), List.of(response.u32(12), response.u32(16),
                response.u32(20), response.u32(24), response.u32(28)));
        assertEquals(0xC00000BBL, response.status(0xC00000BBL).u32(12), "a failed response is one setter away");

        Frame empty = Frame.dataTransfer(32, 5, 0x0001, 0, new byte[0]);
        assertEquals(Frame.Kind.DATA, empty.kind());
        assertEquals(20, empty.length());
        // 2.2.3: CreditsRequested, CreditsGranted, Flags, Reserved, RemainingDataLength, DataOffset, DataLength
        assertEquals(List.of(32, 5, 1, 0), List.of(empty.u16(0), empty.u16(2), empty.u16(4), empty.u16(6)));
        assertEquals(List.of(0L, 0L, 0L), List.of(empty.u32(8), empty.u32(12), empty.u32(16)));

        Frame data = Frame.dataTransfer(32, 0, 0, 4000, "abc".getBytes());
        assertEquals(24 + 3, data.length());
        assertEquals(List.of(4000L, 24L, 3L), List.of(data.u32(8), data.u32(12), data.u32(16)));
        assertEquals(0, data.u32(20), "four bytes of zero Padding before the payload");
        assertEquals("abc", new String(data.payload()));
    }

    @Test
    void R_3_1_5_8_03_aDataTransferBuiltByTheFactoryAndSentRawIsCheckedByTheTransport() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = server.listen(kit.address("server"), c -> h);
            ScriptedPeer peer = kit.peer().connect(l.localAddress());
            kit.settle();
            peer.sendRaw(Frame.dataTransfer(32, 0, 0, 0, "as built".getBytes()));
            kit.settle();
            assertEquals(List.of("as built"), h.messages().stream().map(String::new).toList());

            peer.sendRaw(Frame.dataTransfer(32, 0, 0, 0, new byte[16]).dataOffset(20));
            kit.settle();
            assertEquals(CloseReason.Kind.PROTOCOL_VIOLATION, h.closeReason().kind(), h.closeReason().toString());
            assertEquals("R-3.1.5.8-03", h.closeReason().rule());
            assertTrue(h.closeReason().detail().startsWith("DataOffset=20"), h.closeReason().detail());
        }
    }
}
