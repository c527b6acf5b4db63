package smbdirect.interop.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.interop.fixture.Peers;
import smbdirect.rdma.tck.RdmaTckFixture;

/**
 * Our rping client against our rping server over each provider pair of {@link Peers}: the full
 * exchange (Sends of the 16-byte buffer info, RDMA Read of the client's source, RDMA Write into its
 * sink, the "go ahead" Sends, the client's disconnect), several iterations, byte-exact.
 */
@Timeout(120)
class RpingPairTest {

    static Stream<Named<Supplier<RdmaTckFixture>>> peers() {
        return Peers.all();
    }

    /** The line rping -v prints for ping {@code i} of {@code size} bytes (the C string, no terminator). */
    static String pingLine(String prefix, int i, int size) {
        byte[] d = Rping.data(i, size);
        return prefix + new String(d, 0, size - 1, StandardCharsets.ISO_8859_1);
    }

    static List<String> expectedLines(String prefix, int count, int size) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(pingLine(prefix, i, size));
        }
        return out;
    }

    /** What a test does with a fresh provider pair. */
    interface Body {
        void run(RdmaTckFixture f) throws Exception;
    }

    /** Runs {@code body} on a fresh pair and closes it (which checks for leaks). */
    static void with(Supplier<RdmaTckFixture> peers, Body body) throws Exception {
        RdmaTckFixture f = peers.get();
        try {
            body.run(f);
        } finally {
            f.close();
        }
    }

    /** Runs one client against one server; both reports, or the first failure. */
    static RpingReport[] run(RdmaTckFixture f, RpingOptions server, RpingOptions client) throws Exception {
        try (RpingServer s = RpingServer.listen(f.serverProvider(), f.serverAddress(0), server);
                RpingClient c = RpingClient.connect(f.clientProvider(), f.serverAddress(s.localAddress().getPort()),
                        client)) {
            RpingReport cr = Peers.await(f, c.result(), "the rping client");
            RpingReport sr = Peers.await(f, s.result(), "the rping server");
            return new RpingReport[] {cr, sr};
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void fiveIterationsCompleteByteExactAndTheClientDisconnects(Supplier<RdmaTckFixture> peers) throws Exception {
        with(peers, f -> {
            RpingReport[] r = run(f, RpingOptions.of(5), RpingOptions.of(5));
            assertEquals(5, r[0].iterations());
            assertEquals(expectedLines("ping data: ", 5, 64), r[0].lines());
            assertEquals(DisconnectCause.LOCAL, r[0].cause());
            assertEquals(5, r[1].iterations());
            assertEquals(expectedLines("server ping data: ", 5, 64), r[1].lines());
            assertEquals(DisconnectCause.PEER, r[1].cause());
        });
    }

    static Stream<Arguments> peersAndSizes() {
        return Peers.all().flatMap(p -> Stream.of(Rping.MIN_SIZE, 4096, Rping.MAX_SIZE).map(s -> Arguments.of(p, s)));
    }

    @ParameterizedTest(name = "{0}, -S {1}")
    @MethodSource("peersAndSizes")
    void everySizeRpingAcceptsIsEchoedByteExact(Supplier<RdmaTckFixture> peers, int size) throws Exception {
        with(peers, f -> {
            RpingOptions o = RpingOptions.of(3).withSize(size);
            RpingReport[] r = run(f, o, o);
            assertEquals(expectedLines("ping data: ", 3, size), r[0].lines());
            assertEquals(expectedLines("server ping data: ", 3, size), r[1].lines());
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void sixtyIterationsCarryThePatternStartAroundFromLowercaseZToA(Supplier<RdmaTckFixture> peers) throws Exception {
        with(peers, f -> {
            RpingReport[] r = run(f, RpingOptions.of(60), RpingOptions.of(60));
            assertEquals(60, r[1].iterations());
            assertEquals(expectedLines("ping data: ", 60, 64), r[0].lines());
            assertTrue(r[0].lines().get(58).startsWith("ping data: rdma-ping-58: ABC"), r[0].lines().get(58));
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void aPauseBeforeTheFirstSendChangesNothingOnTheWire(Supplier<RdmaTckFixture> peers) throws Exception {
        with(peers, f -> {
            RpingReport[] r = run(f, RpingOptions.of(2), RpingOptions.of(2).withFirstSendDelay(Duration.ofMillis(20)));
            assertEquals(expectedLines("ping data: ", 2, 64), r[0].lines());
            assertEquals(2, r[1].iterations());
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void aServerWhoseBufferIsSmallerThanTheClientsRefusesThePingAndBothSidesFail(Supplier<RdmaTckFixture> peers)
            throws Exception {
        with(peers, f -> {
            try (RpingServer s = RpingServer.listen(f.serverProvider(), f.serverAddress(0),
                    RpingOptions.of(1).withSize(32));
                    RpingClient c = RpingClient.connect(f.clientProvider(),
                            f.serverAddress(s.localAddress().getPort()), RpingOptions.of(1))) {
                ExecutionException se = assertThrows(ExecutionException.class,
                        () -> Peers.await(f, s.result(), "server"));
                assertInstanceOf(RpingException.class, se.getCause());
                assertEquals("the client's buffer (64 bytes) is larger than the server's (32, -S)",
                        se.getCause().getMessage());
                ExecutionException ce = assertThrows(ExecutionException.class,
                        () -> Peers.await(f, c.result(), "client"));
                assertTrue(ce.getCause().getMessage()
                        .startsWith("client DISCONNECT EVENT in state RDMA_READ_ADV after 0"), ce.getCause().getMessage());
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void theServerServesOneConnectionAndRejectsTheNext(Supplier<RdmaTckFixture> peers) throws Exception {
        with(peers, f -> {
            try (RpingServer s = RpingServer.listen(f.serverProvider(), f.serverAddress(0), RpingOptions.of(1))) {
                InetSocketAddress at = f.serverAddress(s.localAddress().getPort());
                try (RpingClient first = RpingClient.connect(f.clientProvider(), at, RpingOptions.of(1))) {
                    assertEquals(1, Peers.await(f, first.result(), "first client").iterations());
                    assertEquals(1, Peers.await(f, s.result(), "server").iterations());
                }
                try (RpingClient second = RpingClient.connect(f.clientProvider(), at, RpingOptions.of(1))) {
                    ExecutionException e = assertThrows(ExecutionException.class,
                            () -> Peers.await(f, second.result(), "second client"));
                    assertTrue(e.getCause().getMessage().contains("REJECTED"), e.getCause().getMessage());
                }
            }
        });
    }
}
