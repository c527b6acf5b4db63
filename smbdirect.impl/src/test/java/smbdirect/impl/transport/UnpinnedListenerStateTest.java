package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import smbdirect.api.dto.ListenerDTO;
import smbdirect.impl.engine.TimerScheduler;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testsupport.traffic.Traffic;

/**
 * A configured listener that follows the provider selection: when the provider owning its address
 * leaves, it cannot bind on the next one and is shown FAILED with the provider and the reason (what
 * health reports as CRITICAL); when the provider returns, it opens there again.
 */
class UnpinnedListenerStateTest {

    @RegisterExtension
    final TransportOverMock rig = new TransportOverMock();
    private final MockFabric fabricA = rig.fabric("a", DeliveryMode.THREADED);
    private final MockFabric fabricB = rig.fabric("b", DeliveryMode.THREADED);
    private final TimerScheduler timer = rig.timer();
    private final MultiProviderTransport transport = rig.transport();

    @Test
    void aListenerThatCannotFollowAHotSwapIsShownFailedWithTheReasonUntilItCanBindAgain() throws Exception {
        fabricA.provider("first"); // a gets the fabric's second address, which fabric b does not have
        MockProvider a = fabricA.provider("a");
        MockProvider b = fabricB.provider("b");
        transport.addProvider(b, props("b", 1, 2));
        transport.addProvider(a, props("a", 10, 1));
        RelocatingListener files = transport.openConfigured("files", new InetSocketAddress(a.address(), 445), null,
                "no accept handler");
        files.setAcceptHandler(c -> new Traffic.Receiver(), null);
        assertEquals("OPEN", listener().state);
        assertNull(listener().stateDetail);

        transport.removeProvider(a).toCompletableFuture().get(10, TimeUnit.SECONDS);
        ListenerDTO failed = listener();
        assertEquals("FAILED", failed.state);
        assertEquals(a.address().getHostAddress() + ":445", failed.address);
        assertTrue(failed.stateDetail.startsWith("bind on RDMA provider b failed: "), failed.stateDetail);

        transport.addProvider(a, props("a", 10, 3));
        assertEquals("OPEN", listener().state, listener().stateDetail);
        assertNull(listener().stateDetail);
    }

    private ListenerDTO listener() {
        return transport.getTransportDTO().listeners[0];
    }
}
