package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testkit.VerifiedTraffic;

/**
 * Hot swap between the embedded mock and the software iWARP provider (real TCP on loopback) in
 * Felix, under continuous traffic both ways: connections on the provider that stays survive byte
 * for byte, those on the one that leaves end with PROVIDER_REPLACED, the listener follows the selection;
 * and the iWARP provider's configuration changed from Config Admin under traffic.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class IwarpSwapIT extends FelixSupport {

    @Inject
    SmbDirectTransport transport;

    @Configuration
    public Option[] config() {
        return felixOptions(reactorBundle("smbdirect.rdma.iwarp"));
    }

    /** A connection over the selected provider, which must be {@code provider}. */
    private TrafficPair open(String name, InetSocketAddress to, String provider,
            BlockingQueue<TrafficPair.Accepted> accepted)
            throws Exception {
        return open(transport, name, to, provider, accepted);
    }

    private TrafficPair open(SmbDirectTransport via, String name, InetSocketAddress to, String provider,
            BlockingQueue<TrafficPair.Accepted> accepted) throws Exception {
        VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
        SmbDirectConnection c = via.connect(to, Duration.ofSeconds(10), r).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertEquals(provider, c.providerName());
        TrafficPair.Accepted s = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull("the listener accepted the connection", s);
        assertEquals(provider, s.connection().providerName());
        return new TrafficPair(name, c, r, s);
    }

    private SmbDirectListener listen(int port, BlockingQueue<TrafficPair.Accepted> accepted) throws Exception {
        return transport.listen(new InetSocketAddress("0.0.0.0", port), c -> {
            VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
            accepted.add(new TrafficPair.Accepted(c, r));
            return r;
        });
    }

    private ProviderDTO iwarpDTO() {
        return providerDTO(transport, "iwarp");
    }

    @Test
    public void iwarpArrivesOverTheMockAndLeavesTakingOnlyItsConnections() throws Exception {
        int port = freeLoopbackPort();
        MockProvider mock = mockProvider("mock");
        await("mock selected", () -> "mock".equals(selectedProvider(transport)));
        assertEquals("installing the bundle registers no iWARP provider", null, iwarpDTO());
        BlockingQueue<TrafficPair.Accepted> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = listen(port, accepted);
        assertEquals("mock", listener.providerName());
        TrafficPair onMock = open("mock", new InetSocketAddress(mock.address(), port), "mock", accepted);
        onMock.awaitMore("traffic on mock");

        org.osgi.service.cm.Configuration iwarp = configureIwarp(port);
        await("iwarp selected", () -> "iwarp".equals(selectedProvider(transport)));
        await("the listener moved to iwarp",
                () -> "iwarp".equals(listener.providerName()) && listenerOpenOn(transport, "iwarp"));
        TrafficPair onIwarp = open("iwarp", new InetSocketAddress(InetAddress.getLoopbackAddress(), port), "iwarp",
                accepted);
        onMock.awaitMore("traffic on mock continues while iwarp takes new work");
        onIwarp.awaitMore("traffic over iwarp");

        iwarp.delete();
        onIwarp.assertEnded(CloseReason.Kind.PROVIDER_REPLACED);
        await("iwarp is gone from the DTO", () -> iwarpDTO() == null);
        await("the listener moved back to mock", () -> "mock".equals(listener.providerName()));
        onMock.awaitMore("traffic on mock continues after iwarp left");
        TrafficPair again = open("mock-again", new InetSocketAddress(mock.address(), port), "mock", accepted);
        again.awaitMore("a new connection on mock");
        onMock.assertSurvived();
        again.assertSurvived();
        listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    public void aMockLeavingOverIwarpTakesOnlyItsConnections() throws Exception {
        int port = freeLoopbackPort();
        configureIwarp(port);
        await("iwarp selected", () -> "iwarp".equals(selectedProvider(transport)));
        BlockingQueue<TrafficPair.Accepted> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = listen(port, accepted);
        await("the listener is open on iwarp",
                () -> "iwarp".equals(listener.providerName()) && listenerOpenOn(transport, "iwarp"));
        InetSocketAddress iwarpAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        TrafficPair onIwarp = open("iwarp", iwarpAddress, "iwarp", accepted);
        onIwarp.awaitMore("traffic over iwarp");

        org.osgi.service.cm.Configuration better = addMockProvider("better", 100);
        MockProvider mock = mockProvider("better");
        await("the better mock selected", () -> "better".equals(selectedProvider(transport)));
        await("the listener moved to the mock", () -> "better".equals(listener.providerName()));
        TrafficPair onMock = open("better", new InetSocketAddress(mock.address(), port), "better", accepted);
        onIwarp.awaitMore("traffic over iwarp continues while the mock takes new work");
        onMock.awaitMore("traffic on the mock");

        better.delete();
        onMock.assertEnded(CloseReason.Kind.PROVIDER_REPLACED);
        await("the listener moved back to iwarp",
                () -> "iwarp".equals(listener.providerName()) && listenerOpenOn(transport, "iwarp"));
        onIwarp.awaitMore("traffic over iwarp continues after the mock left");
        TrafficPair again = open("iwarp-again", iwarpAddress, "iwarp", accepted);
        again.awaitMore("a new connection over iwarp");
        onIwarp.assertSurvived();
        again.assertSurvived();
        ProviderDTO dto = iwarpDTO();
        assertTrue("the provider's statistics count its connections: " + dto.statistics,
                dto.statistics != null && !dto.statistics.isEmpty());
        listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    public void iwarpReconfiguredUnderTrafficRefusesABadValueAndReopensOnAGoodOne() throws Exception {
        int port = freeLoopbackPort();
        MockProvider mock = mockProvider("mock");
        configureIwarp(port);
        await("iwarp selected", () -> "iwarp".equals(selectedProvider(transport)));
        BlockingQueue<TrafficPair.Accepted> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = listen(port, accepted);
        await("the listener is open on iwarp",
                () -> "iwarp".equals(listener.providerName()) && listenerOpenOn(transport, "iwarp"));
        InetSocketAddress iwarpAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        TrafficPair onIwarp = open("iwarp", iwarpAddress, "iwarp", accepted);
        TrafficPair onMock = open(transport.onProvider("mock"), "mock", new InetSocketAddress(mock.address(), port),
                "mock", pinnedListener(port, "mock"));
        onIwarp.awaitMore("traffic over iwarp");
        onMock.awaitMore("traffic on mock");

        // a bad value is refused: the running provider and its connections stay
        configureIwarp(port, "maxFpduSize", 63);
        onIwarp.awaitMore("traffic over iwarp goes on after a refused configuration");
        assertTrue(onIwarp.client.isOpen());
        assertTrue(iwarpDTO().settings, iwarpDTO().settings.contains("FPDUs sized to each connection's TCP MSS"));

        // a good change replaces the provider: its connections end, the listener reopens on the new one
        configureIwarp(port, "maxFpduSize", 8192);
        onIwarp.assertEnded(CloseReason.Kind.PROVIDER_REPLACED);
        await("the new iwarp provider is in force", () -> iwarpDTO() != null
                && iwarpDTO().settings.contains("FPDUs up to 8 KiB"));
        await("the listener is on the new iwarp provider",
                () -> "iwarp".equals(listener.providerName()) && listenerOpenOn(transport, "iwarp"));
        TrafficPair again = open("iwarp-again", iwarpAddress, "iwarp", accepted);
        again.awaitMore("traffic over the reconfigured provider");
        onMock.awaitMore("traffic on mock never stopped");
        again.assertSurvived();
        onMock.assertSurvived();
        listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A second listener, pinned to {@code provider}, on the same port. */
    private BlockingQueue<TrafficPair.Accepted> pinnedListener(int port, String provider) throws Exception {
        BlockingQueue<TrafficPair.Accepted> accepted = new LinkedBlockingQueue<>();
        transport.onProvider(provider).listen(new InetSocketAddress("0.0.0.0", port), c -> {
            VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
            accepted.add(new TrafficPair.Accepted(c, r));
            return r;
        });
        return accepted;
    }
}
