package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import smbdirect.api.dto.ListenerDTO;
import smbdirect.impl.engine.TimerScheduler;
import smbdirect.impl.osgi.health.TransportHealth;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testsupport.traffic.Traffic;

/**
 * A configured listener that follows the provider selection: when the provider owning its address
 * leaves, it cannot bind on the next one, and health names it (CRITICAL, FAILED, the provider and
 * the reason); when the provider returns, it opens there again and health is OK.
 */
class UnpinnedListenerHealthTest {

    @RegisterExtension
    final TransportOverMock rig = new TransportOverMock();
    private final MockFabric fabricA = rig.fabric("a", DeliveryMode.THREADED);
    private final MockFabric fabricB = rig.fabric("b", DeliveryMode.THREADED);
    private final TimerScheduler timer = rig.timer();
    private final MultiProviderTransport transport = rig.transport();

    @Test
    void aListenerThatCannotFollowAHotSwapIsNamedInHealthUntilItCanBindAgain() throws Exception {
        fabricA.provider("first"); // a gets the fabric's second address, which fabric b does not have
        MockProvider a = fabricA.provider("a");
        MockProvider b = fabricB.provider("b");
        transport.addProvider(b, props("b", 1, 2));
        transport.addProvider(a, props("a", 10, 1));
        RelocatingListener files = transport.openConfigured("files", new InetSocketAddress(a.address(), 445), null,
                "no accept handler");
        files.setAcceptHandler(c -> new Traffic.Receiver(), null);
        assertEquals("OPEN", listener().state);
        assertEquals(TransportHealth.Status.OK, health().status());

        transport.removeProvider(a).toCompletableFuture().get(10, TimeUnit.SECONDS);
        ListenerDTO failed = listener();
        assertEquals("FAILED", failed.state);
        TransportHealth.Report report = health();
        assertEquals(TransportHealth.Status.CRITICAL, report.status());
        String address = a.address().getHostAddress() + ":445";
        assertTrue(report.findings().stream().anyMatch(f -> f.startsWith("CRITICAL listener files " + address
                + " FAILED: bind on RDMA provider b failed: ")), report.findings().toString());

        transport.addProvider(a, props("a", 10, 3));
        assertEquals("OPEN", listener().state, listener().stateDetail);
        assertEquals(TransportHealth.Status.OK, health().status(), health().findings().toString());
    }

    private ListenerDTO listener() {
        return transport.getTransportDTO().listeners[0];
    }

    private TransportHealth.Report health() {
        return TransportHealth.evaluate(transport.getTransportDTO(), 0, "", c -> false, "");
    }
}
