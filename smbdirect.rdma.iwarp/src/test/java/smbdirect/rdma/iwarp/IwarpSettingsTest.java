package smbdirect.rdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Validation and the listen allow-list of {@link IwarpSettings}. */
class IwarpSettingsTest {

    private static String refusal(IwarpSettings.Builder b) {
        return assertThrows(IllegalArgumentException.class, b::build).getMessage();
    }

    @Test
    void defaultsFollowSiwAndIwarpMd() {
        IwarpSettings d = IwarpSettings.defaults();
        assertEquals(List.of("127.0.0.1:5445"), d.listenAddresses());
        assertTrue(d.crc());
        assertEquals(IwarpSettings.FPDU_SIZE_OF_PATH, d.maxFpduSize(), "FPDUs follow the path's MSS, as siw's");
        assertEquals(5000, d.mpaRequestTimeoutMillis());
        assertEquals(10000, d.mpaReplyTimeoutMillis());
        assertTrue(d.tcpNoDelay());
        assertEquals(2, d.mpaRevision());
        assertEquals(RtrMode.NONE, d.peerToPeer());
    }

    @Test
    void everyBadValueIsRefusedNamingTheAttributeAndTheValue() {
        IwarpSettings.Builder b = IwarpSettings.builder();
        assertEquals("smbdirect.rdma.iwarp: maxFpduSize = 1462 is invalid (must be a multiple of 4 from 64 to 65536, "
                + "or 0 to follow the path's MSS)", refusal(IwarpSettings.builder().maxFpduSize(1462)));
        assertTrue(refusal(IwarpSettings.builder().maxFpduSize(4)).contains("maxFpduSize = 4"));
        assertTrue(refusal(b.maxFpduSize(60)).contains("maxFpduSize = 60"));
        assertTrue(refusal(IwarpSettings.builder().ioThreads(65)).contains("ioThreads = 65"));
        assertTrue(refusal(IwarpSettings.builder().mpaRequestTimeoutMillis(0)).contains("mpaRequestTimeoutMillis = 0"));
        assertTrue(refusal(IwarpSettings.builder().mpaReplyTimeoutMillis(-1)).contains("mpaReplyTimeoutMillis = -1"));
        assertTrue(refusal(IwarpSettings.builder().sendBufferSize(100)).contains("sendBufferSize = 100"));
        assertTrue(refusal(IwarpSettings.builder().receiveBufferSize(-4)).contains("receiveBufferSize = -4"));
        assertTrue(refusal(IwarpSettings.builder().maxConnections(0)).contains("maxConnections = 0"));
        assertTrue(refusal(IwarpSettings.builder().maxPendingConnections(0)).contains("maxPendingConnections = 0"));
        assertTrue(refusal(IwarpSettings.builder().mpaRevision(3)).contains("mpaRevision = 3"));
        assertTrue(refusal(IwarpSettings.builder().maxReadDepth(129)).contains("maxReadDepth = 129"));
        assertTrue(refusal(IwarpSettings.builder().firstFpduDelayMillis(10_001)).contains("firstFpduDelayMillis = 10001"));
        assertTrue(refusal(IwarpSettings.builder().mpaRevision(1).peerToPeer(RtrMode.WRITE)).contains("peerToPeer = WRITE"));
        assertTrue(refusal(IwarpSettings.builder().listenAddresses("host.example")).contains(
                "listenAddresses = host.example"));
        assertTrue(refusal(IwarpSettings.builder().listenAddresses("300.1.1.1")).contains("listenAddresses = 300.1.1.1"));
        assertTrue(refusal(IwarpSettings.builder().listenAddresses("10.0.0.1:70000")).contains("10.0.0.1:70000"));
        assertTrue(refusal(IwarpSettings.builder().listenAddresses("[::1")).contains("[::1"));
    }

    @Test
    void theAllowListMatchesAddressAndPort() {
        IwarpSettings s = IwarpSettings.builder().listenAddresses("10.0.0.5:5445", "127.0.0.1", "[::1]:5445", "*:6000")
                .build();
        assertTrue(s.allowsListen(new InetSocketAddress("10.0.0.5", 5445)));
        assertFalse(s.allowsListen(new InetSocketAddress("10.0.0.5", 445)), "another port");
        assertTrue(s.allowsListen(new InetSocketAddress("127.0.0.1", 0)), "any port");
        assertTrue(s.allowsListen(new InetSocketAddress("::1", 5445)));
        assertTrue(s.allowsListen(new InetSocketAddress("192.168.1.1", 6000)), "any address on 6000");
        assertFalse(s.allowsListen(new InetSocketAddress("192.168.1.1", 5445)));
        assertFalse(s.allowsListen(new InetSocketAddress("0.0.0.0", 5445)), "the wildcard needs its own entry");
        assertFalse(IwarpSettings.builder().listenAddresses(List.of()).build()
                .allowsListen(new InetSocketAddress("127.0.0.1", 5445)), "nothing allowed: no port ever opens");
        assertTrue(IwarpSettings.builder().listenAddresses("*").build()
                .allowsListen(new InetSocketAddress("0.0.0.0", 5445)));
    }

    @Test
    void blankEntriesAreIgnoredAndTheListIsImmutable() {
        IwarpSettings s = IwarpSettings.builder().listenAddresses(" 127.0.0.1 ", "", "  ").build();
        assertEquals(List.of("127.0.0.1"), s.listenAddresses());
        assertThrows(UnsupportedOperationException.class, () -> s.listenAddresses().add("x"));
    }
}
