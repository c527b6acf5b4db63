package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.standalone.StandaloneTransport;

/** Close reasons and failures name what failed with its values. */
class FailureMessagesTest {

    @Test
    void aFailedRdmaWriteNamesTheTokenOffsetLengthAndTheAccessOfBothRegistrations() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = transport.listen(kit.address("server"), c -> {
                accepted.complete(c);
                return h;
            });
            ScriptedPeer client = kit.peer().connect(l.localAddress());
            kit.settle();
            PeerBuffer readOnly = client.register(65536, RemoteAccess.READ); // a WRITE was needed
            BufferDescriptor d = readOnly.descriptor();
            SmbDirectConnection c = accepted.get();
            CompletableFuture<Throwable> failure = new CompletableFuture<>();
            c.register(ByteBuffer.allocateDirect(65536), RemoteAccess.LOCAL_ONLY).thenAccept(local -> c.rdmaWrite(local,
                    0, 65536, List.of(d), 0, (n, f) -> failure.complete(f)));
            kit.settle();

            String request = "RDMA Write of 65536 bytes (this request 65536 bytes at the peer's offset 0x"
                    + Long.toHexString(d.offset()) + " with token 0x" + Integer.toHexString(d.token())
                    + "; the local source registered LOCAL_ONLY) failed: REMOTE_ACCESS_ERROR (the peer refused the"
                    + " access: the token is not registered or no longer valid, the range lies outside the"
                    + " registration, or the registration lacks remote write access)";
            assertEquals(request, failure.get().getMessage());
            CloseReason r = h.closeReason();
            assertEquals(CloseReason.Kind.PROVIDER_ERROR, r.kind());
            assertTrue(r.detail().startsWith(request), r.detail());
            assertTrue(r.detail().endsWith("the provider reports: remote access error: RDMA_WRITE of 65536 bytes at 0x"
                    + Long.toHexString(d.offset()) + " with token 0x" + Integer.toHexString(d.token())
                    + ": the target side's region is registered [LOCAL_WRITE, REMOTE_READ], without REMOTE_WRITE"),
                    r.detail());
        }
    }

    @Test
    void aPeerDisconnectSaysSoOnceWithoutTheFabricsInsides() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = transport.listen(kit.address("server"), c -> h);
            ScriptedPeer client = kit.peer().connect(l.localAddress());
            kit.settle();
            client.send("whole".getBytes());
            kit.settle();
            client.disconnect();
            kit.settle();
            assertEquals("PEER_DISCONNECT: the peer disconnected", h.closeReason().toString());
            assertEquals(List.of("whole"), h.messages().stream().map(String::new).toList());
        }
    }
}
