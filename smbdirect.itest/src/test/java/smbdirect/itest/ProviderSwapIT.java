package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
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
import org.ops4j.pax.exam.spi.reactors.PerClass;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testkit.VerifiedTraffic;

/**
 * Provider hot-swap in Felix under continuous traffic: two mock providers from the mock's factory
 * configuration (each its own fabric), a listener opened through the API, connections both ways.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ProviderSwapIT extends FelixSupport {

    private static final int PORT = 4450;

    @Inject
    SmbDirectTransport transport;

    @Configuration
    public Option[] config() {
        return felixOptions();
    }

    private TrafficPair open(String name, MockProvider via, BlockingQueue<TrafficPair.Accepted> accepted)
            throws Exception {
        return open(name, via, PORT, accepted);
    }

    private TrafficPair open(String name, MockProvider via, int port, BlockingQueue<TrafficPair.Accepted> accepted)
            throws Exception {
        VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
        SmbDirectConnection c = transport.connect(new InetSocketAddress(via.address(), port), Duration.ofSeconds(10), r)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(via.name(), c.providerName());
        TrafficPair.Accepted s = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull("the listener accepted the connection", s);
        assertEquals(via.name(), s.connection().providerName());
        return new TrafficPair(name, c, r, s);
    }

    @Test
    public void betterProviderTakesNewWorkAndALeavingProviderTakesOnlyItsConnections() throws Exception {
        org.osgi.service.cm.Configuration configA = addMockProvider("a", 10);
        MockProvider a = mockProvider("a");
        await("a selected", () -> "a".equals(selectedProvider(transport)));
        BlockingQueue<TrafficPair.Accepted> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", PORT), c -> {
            VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
            accepted.add(new TrafficPair.Accepted(c, r));
            return r;
        });
        assertEquals("a", listener.providerName());
        TrafficPair onA = open("a", a, accepted);
        onA.awaitMore("traffic on a");

        org.osgi.service.cm.Configuration configB = addMockProvider("b", 20);
        MockProvider b = mockProvider("b");
        await("b selected", () -> "b".equals(selectedProvider(transport)));
        await("the listener moved to b", () -> "b".equals(listener.providerName()));
        TrafficPair onB = open("b", b, accepted);
        onA.awaitMore("traffic on a continues while b takes new work");
        onB.awaitMore("traffic on b");

        configA.delete();
        // both ends of this connection are ours, on a: each is reported PROVIDER_REPLACED
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, onA.clientReceiver.awaitClosed().kind());
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, onA.serverReceiver.awaitClosed().kind());
        assertFalse(onA.client.isOpen());
        assertFalse(onA.server.isOpen());
        assertTrue(onA.clientSender.failure.get(10, TimeUnit.SECONDS) instanceof SmbDirectException);
        onB.awaitMore("traffic on b continues after a left");
        assertEquals("b", listener.providerName());
        await("a is gone from the DTO", () -> transport.getTransportDTO().providers.length == 2);

        onA.stop();
        onB.stop();
        assertTrue(onB.client.isOpen() && onB.server.isOpen());
        onB.serverReceiver.awaitReceived(onB.clientSender.completed.get(), "every completed send arrived");
        onB.clientReceiver.awaitReceived(onB.serverSender.completed.get(), "every completed send arrived");
        assertEquals(onB.clientSender.completed.get(), onB.serverReceiver.received());
        assertEquals(onB.serverSender.completed.get(), onB.clientReceiver.received());
        assertFalse(onB.clientReceiver.closed.isDone());
        onA.assertClean();
        onB.assertClean();

        listener.close();
        configB.delete();
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, onB.clientReceiver.awaitClosed().kind());
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, onB.serverReceiver.awaitClosed().kind());
    }

    @Test
    public void changingTheProviderFilterMovesNewWorkWhileConnectionsStay() throws Exception {
        int port = PORT + 1;
        org.osgi.service.cm.Configuration configC = addMockProvider("c", 50);
        MockProvider c = mockProvider("c");
        MockProvider mock = mockProvider("mock");
        await("c selected", () -> "c".equals(selectedProvider(transport)));
        BlockingQueue<TrafficPair.Accepted> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", port), conn -> {
            VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
            accepted.add(new TrafficPair.Accepted(conn, r));
            return r;
        });
        TrafficPair onC = open("c", c, port, accepted);
        onC.awaitMore("traffic on c");

        configure("smbdirect.transport", "provider.target", "(smbdirect.provider=mock)");
        await("mock selected by the filter", () -> "mock".equals(selectedProvider(transport)));
        await("the listener moved to mock", () -> "mock".equals(listener.providerName()));
        TrafficPair onMock = open("mock", mock, port, accepted);
        onC.awaitMore("traffic on the deselected provider continues");
        onMock.awaitMore("traffic on mock");

        configAdmin.getConfiguration("smbdirect.transport", "?").delete();
        await("c selected again", () -> "c".equals(selectedProvider(transport)));
        await("the listener moved back to c", () -> "c".equals(listener.providerName()));
        onC.awaitMore("traffic on c continues");
        onMock.awaitMore("traffic on mock continues");

        configC.delete();
        assertEquals(CloseReason.Kind.PROVIDER_REPLACED, onC.clientReceiver.awaitClosed().kind());
        onMock.awaitMore("traffic on mock continues after c left");
        onC.stop();
        onMock.stop();
        onMock.serverReceiver.awaitReceived(onMock.clientSender.completed.get(), "every completed send arrived");
        onMock.clientReceiver.awaitReceived(onMock.serverSender.completed.get(), "every completed send arrived");
        assertEquals(onMock.clientSender.completed.get(), onMock.serverReceiver.received());
        assertEquals(onMock.serverSender.completed.get(), onMock.clientReceiver.received());
        onC.assertClean();
        onMock.assertClean();
        onMock.client.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
