package smbdirect.interop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.fixture.Peers;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.RawMessage;
import smbdirect.rdma.mock.RawPeer;
import smbdirect.rdma.mock.tck.MockTckFixture;

/**
 * Our SMB Direct engine (default settings, over an iWARP-typed mock device) against the exact bytes
 * Linux 6.1's ksmbd and cifs put on the wire over siw (tools/siw-vm/PROOF.md d1 and d3, captures
 * d1-ksmbd-delay.pcap and d3-cifs.pcap), replayed by a raw peer: what the engine sends where
 * ksmbd and cifs look, and whether it accepts what they send. The iWARP provider carries the MPA
 * RFC 6581 word itself; the SPI's private data is what follows it.
 */
@Timeout(60)
class LinuxPeerReplayTest {

    private static final Logger LOG = LoggerFactory.getLogger(LinuxPeerReplayTest.class);
    private static final Duration T = Duration.ofSeconds(10);
    private static final HexFormat HEX = HexFormat.of();

    /** d1: the [MS-SMBD] 2.2.1 Negotiate Request ksmbd answered (Min/Max 0x0100, 255, 1364, 8192, 1 MiB). */
    static final byte[] KSMBD_ANSWERED_REQUEST = HEX.parseHex("000100010000ff00540500000020000000001000");
    /** d1: ksmbd's Negotiate Response to it (254 credits granted, 8 MiB read/write, 1364/1364, 173910). */
    static final byte[] KSMBD_RESPONSE = HEX.parseHex(
            "0001000100010000ff00fe000000000000008000540500005405000056a70200");
    /** d3: cifs's MPA Request private data after the RFC 6581 word (IRD 32, ORD 1, host byte order). */
    static final byte[] CIFS_PRIVATE_DATA = HEX.parseHex("2000000001000000");
    /** d3: cifs's Negotiate Request (255 credits, PreferredSendSize 1364, MaxReceiveSize 1364, 173910). */
    static final byte[] CIFS_REQUEST = HEX.parseHex("000100010000ff00540500005405000056a70200");

    private MockTckFixture f;
    private RawPeer raw;
    private ScheduledExecutorService timers;
    private SmbDirectEngine engine;
    private final Collector handler = new Collector();

    /** Counts messages and keeps the close reason. */
    static final class Collector implements ConnectionHandler {
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            closed.complete(reason);
        }
    }

    @BeforeEach
    void engine() {
        f = Peers.mock(DeliveryMode.THREADED);
        raw = f.fabric().rawPeer();
        timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "replay-timers");
            t.setDaemon(true);
            return t;
        });
        engine = new SmbDirectEngine(f.clientProvider(), TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
    }

    @AfterEach
    void close() throws Exception {
        engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end")).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        raw.close();
        timers.shutdownNow();
        f.close();
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void asClientTheEngineSendsKsmbdTheRequestKsmbdAnsweredAndAcceptsKsmbdsResponse() throws Exception {
        // ksmbd's MPA Reply in d1 carried IRD 16, ORD 8 (SMB_DIRECT_CM_INITIATOR_DEPTH) and no private data
        InetSocketAddress at = raw.receiveSize(1364).readDepths(16, 8)
                .listen(new InetSocketAddress(raw.provider().address(), 5445));
        CompletableFuture<SmbDirectConnection> c = engine.connect(at, Duration.ofSeconds(120), handler)
                .toCompletableFuture();
        List<RawMessage> got = raw.awaitMessages(1, T);
        assertArrayEquals(KSMBD_ANSWERED_REQUEST, got.get(0).bytes(), "the engine's Negotiate Request");
        // the [MS-SMBD] 6.1 header, big-endian: ksmbd compares it with the CM's values (equal: not "legacy")
        assertArrayEquals(HEX.parseHex("0000000800000008"), raw.requestPrivateData(), "IRD 8, ORD 8");
        raw.send(KSMBD_RESPONSE);
        SmbDirectConnection conn = c.get(T.toSeconds(), TimeUnit.SECONDS);
        ConnectionDTO d = conn.getConnectionDTO();
        assertEquals(0x0100, d.protocol);
        assertEquals(1364, d.maxSendSize, "min(our 1364, ksmbd's MaxReceiveSize 1364)");
        assertEquals(1364, d.maxReceiveSize, "ksmbd's PreferredSendSize");
        assertEquals(173910, d.maxFragmentedSendSize, "ksmbd's MaxFragmentedSize");
        assertTrue(d.sendCredits > 0 && d.sendCredits <= 254, "ksmbd granted 254: " + d.sendCredits);
        // the engine's first message grants ksmbd credits
        got = raw.awaitMessages(2, T);
        int granted = le(got.get(1).bytes()).getShort(2) & 0xFFFF;
        assertTrue(granted > 0, "credits granted to ksmbd: " + granted);
    }

    @Test
    void asServerTheEngineAcceptsCifssHeaderAndRequestAndAnswersWhatCifsChecks() throws Exception {
        CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
        SmbDirectListener l = engine.listen(new InetSocketAddress(f.clientProvider().address(), 5445), conn -> {
            accepted.complete(conn);
            return handler;
        });
        try {
            // cifs's MPA Request: RFC 6581 IRD 32, ORD 0 (the SPI has no ORD 0: 1), then its 8 bytes
            raw.receiveSize(1364).readDepths(32, 1).connect(l.localAddress(), CIFS_PRIVATE_DATA);
            raw.awaitEstablished(T);
            byte[] reply = raw.peerAcceptPrivateData();
            raw.send(CIFS_REQUEST);
            byte[] resp = raw.awaitMessages(1, T).get(0).bytes();
            ByteBuffer r = le(resp);
            // fs/smb/client/smbdirect.c (6.1) process_negotiation_response: what cifs refuses
            assertTrue(resp.length >= 32, "packet_length " + resp.length);
            assertEquals(0x0100, r.getShort(4) & 0xFFFF, "negotiated_version");
            assertTrue((r.getShort(8) & 0xFFFF) != 0, "credits_requested");
            assertTrue((r.getShort(10) & 0xFFFF) != 0, "credits_granted");
            assertEquals(0, r.getInt(12), "status");
            assertTrue(Integer.toUnsignedLong(r.getInt(20)) <= 1364, "preferred_send_size <= cifs's max_receive_size");
            assertTrue(Integer.toUnsignedLong(r.getInt(24)) >= 128, "max_receive_size >= SMBD_MIN_RECEIVE_SIZE");
            assertTrue(Integer.toUnsignedLong(r.getInt(28)) >= 131072, "max_fragmented_size >= SMBD_MIN_FRAGMENTED_SIZE");
            SmbDirectConnection conn = accepted.get(T.toSeconds(), TimeUnit.SECONDS);
            ConnectionDTO d = conn.getConnectionDTO();
            assertEquals(1364, d.maxSendSize, "min(our 1364, cifs's MaxReceiveSize 1364)");
            assertEquals(173910, d.maxFragmentedSendSize);
            // R-6.2-01 / A-45: cifs's little-endian header read as IRD 32, ORD 1; the echo is big-endian
            assertEquals(1, d.inboundReadDepth, "our IRD bounded by cifs's ORD 1");
            assertEquals(8, d.outboundReadDepth, "our ORD 8 (the default) bounded by cifs's IRD 32");
            assertArrayEquals(HEX.parseHex("0000000100000008"), reply, "the echoed header, big-endian");
            LOG.info("cifs replay: accept private data {}, engine IRD {} ORD {}, response {}", HEX.formatHex(reply),
                    d.inboundReadDepth, d.outboundReadDepth, HEX.formatHex(resp));
        } finally {
            l.close();
        }
    }
}
