package smbdirect.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

class PerfOptionsTest {

    @Test
    void defaultsAreAShortSendRun() {
        PerfOptions o = PerfOptions.defaults();
        assertEquals(8192, o.size());
        assertEquals(10_000, o.count());
        assertEquals(16, o.depth());
        assertEquals(PerfDirection.SEND, o.direction());
        assertNull(o.connect());
        assertNull(o.duration());
        assertEquals(PerfOptions.DEFAULT_TRACE_LIMIT, o.traceLimit());
        assertEquals(Duration.ofSeconds(60), o.timeout());
    }

    @Test
    void parsesSizesDurationsAndAddresses() {
        PerfOptions o = PerfOptions.parse(List.of("--size", "64k", "--duration=2s", "--depth", "4", "--direction",
                "PingPong", "--connect", "10.0.0.2:445", "--trace", "t.pcap", "--trace-limit", "10"));
        assertEquals(65536, o.size());
        assertEquals(Duration.ofSeconds(2), o.duration());
        assertEquals(Long.MAX_VALUE, o.count());
        assertEquals(4, o.depth());
        assertEquals(PerfDirection.PINGPONG, o.direction());
        assertEquals(new InetSocketAddress("10.0.0.2", 445), o.connect());
        assertEquals("t.pcap", o.trace().toString());
        assertEquals(10, o.traceLimit());
        assertEquals(Duration.ofSeconds(62), o.timeout());
    }

    @Test
    void badValuesAreRefusedNamingTheOptionAndValue() {
        assertEquals("--size must be at least 64 bytes, not 10",
                assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--size", "10"))).getMessage());
        assertEquals("option --count needs a number, not 'many'",
                assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--count", "many")))
                        .getMessage());
        assertEquals("--direction must be send, receive, pingpong, write or read, not 'up'",
                assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--direction", "up")))
                        .getMessage());
        assertEquals("option --connect needs host:port, not 'nohost'",
                assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--connect", "nohost")))
                        .getMessage());
        assertEquals("--count and --duration exclude each other", assertThrows(IllegalArgumentException.class,
                () -> PerfOptions.parse(List.of("--count", "5", "--duration", "1s"))).getMessage());
        assertEquals("--connect and --listen exclude each other", assertThrows(IllegalArgumentException.class,
                () -> PerfOptions.parse(List.of("--connect", "a:1", "--listen", "b:2"))).getMessage());
        assertEquals("option --depth needs a value",
                assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--depth"))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--bogus", "1")));
        assertEquals("option --provider needs a provider name (mock, verbs, iwarp, ...), not '(x=*)'",
                assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--provider", "(x=*)")))
                        .getMessage());
    }

    @Test
    void aProviderIsNamedWithProviderAndKeptWhenTheLocalAddressIsSupplied() throws Exception {
        assertNull(PerfOptions.defaults().provider());
        PerfOptions o = PerfOptions.parse(List.of("--provider", "iwarp", "--listen", "127.0.0.1:5445"));
        assertEquals("iwarp", o.provider());
        assertEquals(new InetSocketAddress("127.0.0.1", 5445), o.listen());
        PerfOptions local = PerfOptions.parse(List.of("-p", "iwarp", "--count", "7"))
                .withLocal(java.net.InetAddress.getByName("127.0.0.1"));
        assertEquals("iwarp", local.provider());
        assertEquals(7, local.count());
        assertEquals("127.0.0.1", local.local().getHostAddress());
    }

    @Test
    void helpAndVerboseAreFlagsWithoutAValueAndHelpWinsOverEverythingElse() {
        assertTrue(PerfOptions.parse(List.of("--help")).help());
        assertTrue(PerfOptions.parse(List.of("-h")).help());
        assertTrue(PerfOptions.parse(List.of("--size", "10", "--bogus", "-h")).help(), "help even with bad options");
        PerfOptions o = PerfOptions.parse(List.of("-v", "--count", "5", "--verbose"));
        assertTrue(o.verbose());
        assertFalse(o.help());
        assertEquals(5, o.count());
        assertFalse(PerfOptions.defaults().verbose());
    }

    @Test
    void anUnknownOptionIsNamedAsUnknownEvenWhenItIsTheLast() {
        assertEquals("unknown perf option '--bogus'; known: --size --count --duration --depth --direction --connect "
                + "--listen --provider --local --trace --trace-limit --timeout --warmup --connections --verbose --help",
                assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--bogus"))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("-x", "1")));
    }

    @Test
    void rdmaDirectionsAreWriteAndReadAndDescribedAsOperations() {
        PerfOptions w = PerfOptions.parse(List.of("--direction", "write", "--size", "1m", "--count", "7"));
        assertEquals(PerfDirection.WRITE, w.direction());
        assertTrue(w.direction().isRdma());
        assertEquals("write 7 RDMA operations of 1048576 B, depth 16", w.describe());
        assertEquals(PerfDirection.READ, PerfOptions.parse(List.of("--direction=READ")).direction());
        assertFalse(PerfDirection.SEND.isRdma());
    }

    @Test
    void theHelpTextNamesEveryOptionTheParserKnows() {
        for (String option : List.of("--size", "--count", "--duration", "--depth", "--direction", "--connect",
                "--listen", "--provider", "--local", "--timeout", "--trace", "--trace-limit", "--warmup", "--verbose", "--help",
                "write:", "read:")) {
            assertTrue(PerfOptions.usage().contains(option), option + " in\n" + PerfOptions.usage());
        }
    }

    @Test
    void aWarmUpGoesWithADurationAndLengthensTheDefaultTimeout() {
        PerfOptions o = PerfOptions.parse(List.of("--warmup", "2s", "--duration", "10s"));
        assertEquals(Duration.ofSeconds(2), o.warmup());
        assertEquals(Duration.ofSeconds(72), o.timeout());
        assertEquals("send for 10000 ms after 2000 ms of warm-up of 8192 B, depth 16", o.describe());
        assertEquals(Duration.ZERO, PerfOptions.defaults().warmup());
        assertEquals("--warmup needs --duration (the measured time after it)", assertThrows(
                IllegalArgumentException.class, () -> PerfOptions.parse(List.of("--warmup", "2s"))).getMessage());
    }

    @Test
    void connectionsAreOneByDefaultAndABadCountIsRefusedByName() {
        assertEquals(1, PerfOptions.defaults().connections());
        PerfOptions o = PerfOptions.parse(List.of("--connections", "8"));
        assertEquals(8, o.connections());
        assertTrue(o.describe().endsWith(", on each of 8 connections"), o.describe());
        assertEquals(4, PerfOptions.parse(List.of("-P", "4")).connections());
        for (String bad : List.of("0", "-1", "257", "many")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> PerfOptions.parse(List.of("--connections", bad)));
            assertTrue(e.getMessage().contains("--connections"), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PerfOptions.parse(List.of("--connections", "2", "--listen", "10.0.0.1:5445")));
        assertTrue(e.getMessage().contains("--connections"), e.getMessage());
        assertTrue(PerfOptions.usage().contains("--connections N"), PerfOptions.usage());
    }
}
