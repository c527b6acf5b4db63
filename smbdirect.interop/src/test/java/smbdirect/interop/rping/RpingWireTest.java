package smbdirect.interop.rping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.interop.fixture.Peers;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.RawMessage;
import smbdirect.rdma.mock.RawPeer;
import smbdirect.rdma.mock.tck.MockTckFixture;

/**
 * Each of our rping sides against a raw peer of the mock fabric that plays the other side by hand,
 * as rping.c does it: the exact bytes of every Send, the RDMA Read and Write against the advertised
 * buffers, and rping's errors when the other side misbehaves.
 */
@Timeout(60)
class RpingWireTest {

    private static final Duration T = Duration.ofSeconds(10);
    private static final byte[] GO_AHEAD = new byte[16];

    private MockTckFixture f;
    private RawPeer raw;

    @BeforeEach
    void fabric() {
        f = Peers.mock(DeliveryMode.THREADED);
        raw = f.fabric().rawPeer();
    }

    @AfterEach
    void close() {
        raw.close();
        f.close();
    }

    private static byte[] info(long buf, int rkey, int size) {
        ByteBuffer b = ByteBuffer.allocate(16);
        new Rping.Info(buf, rkey, size).encode(b, 0);
        return b.array();
    }

    private static byte[] bytes(MemoryRegion r, int length) {
        byte[] out = new byte[length];
        r.buffer().get(0, out);
        return out;
    }

    /** Connects the raw peer to {@code s} as rping's client; returns its source (holding {@code data}) and sink. */
    private MemoryRegion[] rawClient(RpingServer s, byte[] data) throws Exception {
        raw.receiveSize(64).connect(f.serverAddress(s.localAddress().getPort()), new byte[0]);
        raw.awaitEstablished(T);
        MemoryRegion source = raw.register(64, EnumSet.of(MemoryAccess.REMOTE_READ));
        source.buffer().put(0, data);
        MemoryRegion sink = raw.register(64, EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        return new MemoryRegion[] {source, sink};
    }

    @Test
    void theServerReadsTheSourceSendsSixteenZeroBytesWritesTheEchoAndSendsSixteenZeroBytesAgain() throws Exception {
        try (RpingServer s = RpingServer.listen(f.serverProvider(), f.serverAddress(0), RpingOptions.of(1))) {
            MemoryRegion[] b = rawClient(s, Rping.data(7, 64));
            MemoryRegion source = b[0];
            MemoryRegion sink = b[1];
            raw.send(info(source.address(), source.token(), 64));
            List<RawMessage> m = raw.awaitMessages(1, T);
            assertArrayEquals(GO_AHEAD, m.get(0).bytes(), "the go ahead after the RDMA Read");
            raw.send(info(sink.address(), sink.token(), 64));
            m = raw.awaitMessages(2, T);
            assertArrayEquals(GO_AHEAD, m.get(1).bytes(), "the go ahead after the RDMA Write");
            // the write completed before the Send that announces it (rping waits for its completion)
            assertArrayEquals(Rping.data(7, 64), bytes(sink, 64));
            raw.disconnect();
            RpingReport r = Peers.await(f, s.result(), "server");
            assertEquals(1, r.iterations());
            assertEquals(List.of(RpingPairTest.pingLine("server ping data: ", 7, 64)), r.lines());
            assertEquals(DisconnectCause.PEER, r.cause());
        }
    }

    @Test
    void theServerWritesBackOnlyTheCStringAndItsTerminator() throws Exception {
        try (RpingServer s = RpingServer.listen(f.serverProvider(), f.serverAddress(0), RpingOptions.of(1))) {
            MemoryRegion[] b = rawClient(s, "short\0tail".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            MemoryRegion source = b[0];
            MemoryRegion sink = b[1];
            sink.buffer().put(0, new byte[] {'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x'});
            raw.send(info(source.address(), source.token(), 64));
            raw.awaitMessages(1, T);
            raw.send(info(sink.address(), sink.token(), 64));
            raw.awaitMessages(2, T);
            assertEquals("short\0xx", new String(bytes(sink, 8), java.nio.charset.StandardCharsets.US_ASCII));
            raw.disconnect();
            assertEquals(1, Peers.await(f, s.result(), "server").iterations());
        }
    }

    @Test
    void aSendOfAnyOtherLengthThanSixteenBytesFailsTheServerWithRpingsMessage() throws Exception {
        try (RpingServer s = RpingServer.listen(f.serverProvider(), f.serverAddress(0), RpingOptions.of(1))) {
            raw.connect(f.serverAddress(s.localAddress().getPort()), new byte[0]);
            raw.awaitEstablished(T);
            raw.send(new byte[8]);
            ExecutionException e = assertThrows(ExecutionException.class, () -> Peers.await(f, s.result(), "server"));
            assertEquals("Received bogus data, size 8", e.getCause().getMessage());
            assertEquals(DisconnectCause.PEER, raw.awaitDisconnected(T), "the server disconnects");
        }
    }

    /** Plays rping's server by hand against our client; {@code corrupt} alters the echo. */
    private RpingClient clientAgainstRawServer(boolean corrupt, List<byte[]> advertisements) throws Exception {
        InetSocketAddress at = raw.receiveSize(16).listen(new InetSocketAddress(raw.provider().address(), 0));
        RpingClient c = RpingClient.connect(f.clientProvider(), at, RpingOptions.of(1));
        raw.awaitEstablished(T);
        MemoryRegion buf = raw.register(64, EnumSet.of(MemoryAccess.LOCAL_WRITE));
        byte[] source = raw.awaitMessages(1, T).get(0).bytes();
        advertisements.add(source);
        Rping.Info src = Rping.Info.decode(ByteBuffer.wrap(source), 0);
        raw.rdmaRead(buf, 0, src.size(), src.buf(), src.rkey());
        raw.send(GO_AHEAD);
        byte[] sinkInfo = raw.awaitMessages(2, T).get(1).bytes();
        advertisements.add(sinkInfo);
        Rping.Info sink = Rping.Info.decode(ByteBuffer.wrap(sinkInfo), 0);
        byte[] echo = bytes(buf, 64);
        if (corrupt) {
            echo[20] ^= 0x20;
        }
        raw.rdmaWrite(echo, sink.buf(), sink.rkey());
        raw.send(GO_AHEAD);
        return c;
    }

    @Test
    void theClientAdvertisesItsSourceThenItsSinkAsBigEndianBufTokenSize() throws Exception {
        List<byte[]> adv = new java.util.ArrayList<>();
        try (RpingClient c = clientAgainstRawServer(false, adv)) {
            RpingReport r = Peers.await(f, c.result(), "client");
            assertEquals(1, r.iterations());
            assertEquals(DisconnectCause.PEER, raw.awaitDisconnected(T), "the client disconnects after -C 1");
            assertEquals(2, adv.size());
            Rping.Info src = Rping.Info.decode(ByteBuffer.wrap(adv.get(0)), 0);
            Rping.Info sink = Rping.Info.decode(ByteBuffer.wrap(adv.get(1)), 0);
            assertEquals(64, src.size());
            assertEquals(64, sink.size());
            assertTrue(src.rkey() != sink.rkey(), "source and sink are two registrations");
            assertEquals(List.of(RpingPairTest.pingLine("ping data: ", 0, 64)), r.lines());
        }
    }

    @Test
    void aCorruptedEchoIsADataMismatch() throws Exception {
        try (RpingClient c = clientAgainstRawServer(true, new java.util.ArrayList<>())) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> Peers.await(f, c.result(), "client"));
            assertTrue(e.getCause().getMessage().startsWith("data mismatch! ping 0: sent \"rdma-ping-0: ABCDEFG"),
                    e.getCause().getMessage());
            assertEquals(DisconnectCause.PEER, raw.awaitDisconnected(T));
        }
    }
}
