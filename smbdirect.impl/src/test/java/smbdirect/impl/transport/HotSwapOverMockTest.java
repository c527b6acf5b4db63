package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TimerScheduler;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testsupport.traffic.Traffic;

/**
 * Provider hot-swap with the real engine over two mock fabrics (one per provider, as the mock's
 * OSGi providers are): traffic keeps flowing on the surviving provider, the leaving provider's
 * connections keep their traffic for the drain time and end with PROVIDER_REPLACED, no message is lost
 * or reordered.
 */
class HotSwapOverMockTest {

    private static final int PORT = 445;

    @RegisterExtension
    final TransportOverMock rig = new TransportOverMock(
            TransportSettings.builder().drainTimeout(Duration.ofSeconds(1)).build());
    private final MockFabric fabricA = rig.fabric("a", DeliveryMode.THREADED);
    private final MockFabric fabricB = rig.fabric("b", DeliveryMode.THREADED);
    private final TimerScheduler timer = rig.timer();
    private final MultiProviderTransport transport = rig.transport();

    private static SmbDirectConnection connect(SmbDirectTransport from, InetAddress to, Traffic.Receiver handler)
            throws Exception {
        return from.connect(new InetSocketAddress(to, PORT), Duration.ofSeconds(10), handler)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Listens on {@code on}; each accepted connection gets a receiver, queued for the test. */
    private static SmbDirectListener listen(SmbDirectTransport on, BlockingQueue<Accepted> into) throws Exception {
        return on.listen(new InetSocketAddress("0.0.0.0", PORT), c -> {
            Traffic.Receiver r = new Traffic.Receiver();
            into.add(new Accepted(c, r));
            return r;
        });
    }

    private record Accepted(SmbDirectConnection connection, Traffic.Receiver receiver) {
    }

    /** One connection of the transport under test with traffic both ways to a peer engine. */
    private static final class Pair {
        final SmbDirectConnection local;
        final Traffic.Receiver localReceiver;
        final Traffic.Sender localSender;
        final SmbDirectConnection remote;
        final Traffic.Receiver remoteReceiver;
        final Traffic.Sender remoteSender;

        Pair(String name, SmbDirectConnection local, Traffic.Receiver localReceiver, SmbDirectConnection remote,
                Traffic.Receiver remoteReceiver) {
            this.local = local;
            this.localReceiver = localReceiver;
            this.remote = remote;
            this.remoteReceiver = remoteReceiver;
            localSender = new Traffic.Sender(local, name + "-out").start();
            remoteSender = new Traffic.Sender(remote, name + "-in").start();
        }

        /** Waits until 50 more messages arrived in each direction. */
        void awaitMore(String what) throws InterruptedException {
            localReceiver.awaitReceived(localReceiver.received() + 50, what + " (in)");
            remoteReceiver.awaitReceived(remoteReceiver.received() + 50, what + " (out)");
        }

        /** Stops the traffic; every send issued must be told its outcome, closed connection or not. */
        void stop() throws InterruptedException {
            localSender.stopAndJoin();
            remoteSender.stopAndJoin();
        }

        void assertClean() {
            for (List<String> problems : List.of(localReceiver.problems, remoteReceiver.problems,
                    localSender.problems, remoteSender.problems)) {
                assertEquals(List.of(), problems);
            }
        }
    }

    @Test
    void trafficSurvivesProviderSwapAndOnlyTheLeavingProvidersConnectionsClose() throws Exception {
        MockProvider a = fabricA.provider("a");
        MockProvider peerOfA = fabricA.provider("peer-a");
        MockProvider b = fabricB.provider("b");
        MockProvider peerOfB = fabricB.provider("peer-b");
        SmbDirectEngine remoteA = new SmbDirectEngine(peerOfA, TransportSettings.DEFAULTS, timer);
        SmbDirectEngine remoteB = new SmbDirectEngine(peerOfB, TransportSettings.DEFAULTS, timer);
        BlockingQueue<Accepted> acceptedLocally = new LinkedBlockingQueue<>();
        BlockingQueue<Accepted> acceptedRemotely = new LinkedBlockingQueue<>();
        listen(remoteA, acceptedRemotely);
        listen(remoteB, acceptedRemotely);

        transport.addProvider(a, props("a", 10, 1));
        SmbDirectListener listener = listen(transport, acceptedLocally);
        assertEquals("a", listener.providerName());

        // on a: one connection we made, one we accepted, traffic both ways on each
        Traffic.Receiver r1 = new Traffic.Receiver();
        SmbDirectConnection out1 = connect(transport, peerOfA.address(), r1);
        Accepted far1 = acceptedRemotely.poll(10, TimeUnit.SECONDS);
        Pair activeOnA = new Pair("active-a", out1, r1, far1.connection(), far1.receiver());
        Traffic.Receiver r2 = new Traffic.Receiver();
        SmbDirectConnection in2 = connect(remoteA, a.address(), r2);
        Accepted near2 = acceptedLocally.poll(10, TimeUnit.SECONDS);
        Pair passiveOnA = new Pair("passive-a", near2.connection(), near2.receiver(), in2, r2);
        activeOnA.awaitMore("traffic on a");
        passiveOnA.awaitMore("traffic on a");

        // b arrives, better ranked: new connections and the listener go to b; a's connections keep running
        transport.addProvider(b, props("b", 20, 2));
        assertEquals("b", listener.providerName());
        Traffic.Receiver r3 = new Traffic.Receiver();
        SmbDirectConnection out3 = connect(transport, peerOfB.address(), r3);
        assertEquals("b", out3.providerName());
        Accepted far3 = acceptedRemotely.poll(10, TimeUnit.SECONDS);
        Pair activeOnB = new Pair("active-b", out3, r3, far3.connection(), far3.receiver());
        Traffic.Receiver r4 = new Traffic.Receiver();
        SmbDirectConnection in4 = connect(remoteB, b.address(), r4);
        Accepted near4 = acceptedLocally.poll(10, TimeUnit.SECONDS);
        assertEquals("b", near4.connection().providerName());
        Pair passiveOnB = new Pair("passive-b", near4.connection(), near4.receiver(), in4, r4);
        activeOnA.awaitMore("traffic on a continues");
        passiveOnA.awaitMore("traffic on a continues");
        activeOnB.awaitMore("traffic on b");
        passiveOnB.awaitMore("traffic on b");

        // a leaves: exactly a's connections close, each with PROVIDER_REPLACED reported to our upper layer, after a
        // drain: at the first moment nothing is in flight between two messages, or when the drain time runs out
        // as in OSGi: the service goes away (the component's unbind waits for the engine), then the provider
        // stops (its fabric closes)
        transport.removeProvider(a).toCompletableFuture().get(10, TimeUnit.SECONDS);
        fabricA.close();
        for (Pair gone : List.of(activeOnA, passiveOnA)) {
            assertEquals(CloseReason.Kind.PROVIDER_REPLACED, gone.localReceiver.awaitClosed().kind());
            assertFalse(gone.local.isOpen());
            SmbDirectException f = assertInstanceOf(SmbDirectException.class,
                    gone.localSender.failure.get(10, TimeUnit.SECONDS));
            assertEquals(CloseReason.Kind.PROVIDER_REPLACED, f.closeReason().kind());
            assertNotNull(gone.remoteReceiver.awaitClosed(), "the peer sees the disconnect");
        }
        activeOnB.awaitMore("traffic on b continues");
        passiveOnB.awaitMore("traffic on b continues");
        assertEquals("b", listener.providerName(), "the listener stays on b");

        activeOnA.stop();
        passiveOnA.stop();
        activeOnB.stop();
        passiveOnB.stop();
        for (Pair p : List.of(activeOnB, passiveOnB)) {
            assertTrue(p.local.isOpen() && p.remote.isOpen());
            assertFalse(p.localReceiver.closed.isDone());
            p.remoteReceiver.awaitReceived(p.localSender.completed.get(), "every completed send arrived");
            p.localReceiver.awaitReceived(p.remoteSender.completed.get(), "every completed send arrived");
            assertEquals(p.localSender.completed.get(), p.remoteReceiver.received(), "nothing beyond what was sent");
            assertEquals(p.remoteSender.completed.get(), p.localReceiver.received(), "nothing beyond what was sent");
        }
        // on the closed connections what arrived is an in-order, intact prefix (checked by assertClean);
        // a message the provider completed just before it left may not have reached the peer's upper layer
        for (Pair p : List.of(activeOnA, passiveOnA, activeOnB, passiveOnB)) {
            p.assertClean();
        }

        // new connections reach the listener on b
        SmbDirectConnection late = connect(remoteB, b.address(), new Traffic.Receiver());
        assertNotNull(acceptedLocally.poll(10, TimeUnit.SECONDS));
        late.close();
        remoteA.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test over"));
        remoteB.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test over"));
    }
}
