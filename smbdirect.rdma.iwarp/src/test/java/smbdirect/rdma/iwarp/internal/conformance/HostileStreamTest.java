package smbdirect.rdma.iwarp.internal.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Random;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * Arbitrary and mutated byte streams after a good MPA setup: whatever arrives, the connection ends
 * through a protocol check (QP_ERROR with a Terminate naming the rule) or the peer's close, never
 * through an internal error, the provider keeps serving other connections, and nothing outside the
 * exposed registration changes. Seeded for replay.
 */
class HostileStreamTest {

    private static final int CASES = 150;

    @Test
    void randomBytesEndTheConnectionThroughAProtocolCheck() throws Exception {
        run(false, 9001);
    }

    @Test
    void mutatedValidStreamsEndThroughAProtocolCheckOrAreServed() throws Exception {
        run(true, 9002);
    }

    private void run(boolean mutate, long seed) throws Exception {
        Random random = new Random(seed);
        try (Rig rig = new Rig(IwarpSettings.builder().crc(false).mpaRequestTimeoutMillis(2000).build())) {
            InetSocketAddress address = rig.listen();
            for (int i = 0; i < CASES; i++) {
                try (RawPeer peer = RawPeer.connect(address)) {
                    peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x10, 2, RawPeer.word(2, 2)));
                    Rig.Side side = rig.accept(2, 64, Rig.params(2, 2));
                    MemoryRegion exposed = side.endpoint.register(ByteBuffer.allocateDirect(256),
                            EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE, MemoryAccess.REMOTE_READ));
                    MemoryRegion guard = side.endpoint.register(ByteBuffer.allocateDirect(256),
                            EnumSet.of(MemoryAccess.LOCAL_WRITE));
                    peer.readFrame();
                    side.events.awaitEstablished();
                    byte[] stream = mutate ? mutated(peer, exposed, random) : random(random);
                    peer.send(stream);
                    peer.hangUp();
                    DisconnectCause cause = side.events.awaitDisconnected();
                    String detail = side.events.detail();
                    assertNotNull(detail);
                    assertFalse(detail.contains("internal error"), "case " + i + ": " + detail);
                    assertTrue(cause == DisconnectCause.QP_ERROR || cause == DisconnectCause.PEER,
                            "case " + i + ": " + cause + " " + detail);
                    byte[] g = new byte[256];
                    guard.buffer().get(0, g);
                    assertEquals(0, java.util.Arrays.stream(toInts(g)).sum(), "case " + i + ": a non-exposed region changed");
                    side.endpoint.close();
                }
            }
            // the provider still serves
            try (RawPeer peer = RawPeer.connect(address)) {
                peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x10, 2, RawPeer.word(2, 2)));
                Rig.Side side = rig.accept(1, 64, Rig.params(2, 2));
                peer.readFrame();
                peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[] {1})));
                side.events.awaitCompletions(1);
            }
        }
    }

    private static int[] toInts(byte[] b) {
        int[] out = new int[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = b[i] & 0xFF;
        }
        return out;
    }

    private static byte[] random(Random random) {
        byte[] b = new byte[1 + random.nextInt(400)];
        random.nextBytes(b);
        return b;
    }

    /** A plausible stream (Sends, Writes to the exposed region, a Read Request), then bytes flipped. */
    private static byte[] mutated(RawPeer peer, MemoryRegion exposed, Random random) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(peer.fpdu(RawPeer.send(1, 0, true, new byte[10])));
        o.writeBytes(peer.fpdu(RawPeer.tagged(0xC1, 0x40, exposed.token(), exposed.address() + 16, new byte[32])));
        o.writeBytes(peer.fpdu(RawPeer.readRequest(1, 0x1234, 0, 16, exposed.token(), exposed.address())));
        o.writeBytes(peer.fpdu(RawPeer.send(2, 0, false, new byte[20])));
        o.writeBytes(peer.fpdu(RawPeer.send(2, 20, true, new byte[20])));
        byte[] b = o.toByteArray();
        int flips = 1 + random.nextInt(4);
        for (int f = 0; f < flips; f++) {
            b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return b;
    }
}
