package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
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
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.standalone.StandaloneTransport;

/**
 * Replacing an RDMA provider after a configuration change drains its connections, in Felix: the
 * software iWARP provider serves a listener of the transport; a peer outside the runtime (its own
 * iWARP provider and a plain-Java transport, over loopback TCP) sends a request that the server is
 * still handling (its {@code onMessage} runs) when the provider's configuration changes. The
 * replacement waits: the connection stays open and new connections are refused while the server
 * finishes; the peer gets the reply, then the connection ends, on the server's side with
 * PROVIDER_REPLACED; the listener then reopens on the new provider.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ProviderReplacementDrainIT extends FelixSupport {

    @Inject
    SmbDirectTransport transport;

    @Configuration
    public Option[] config() {
        return felixOptions(reactorBundle("smbdirect.rdma.iwarp"));
    }

    /** The server's side: answers each request from inside onMessage, once the test lets it. */
    private static final class Server implements ConnectionHandler {
        final CountDownLatch handling = new CountDownLatch(1);
        final CountDownLatch finish = new CountDownLatch(1);
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
        final CompletableFuture<Throwable> replied = new CompletableFuture<>();
        volatile SmbDirectConnection connection;

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
            handling.countDown();
            try {
                if (!finish.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never let the request finish");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            c.send(ByteBuffer.wrap("reply".getBytes(StandardCharsets.UTF_8)), (m, x) -> replied.complete(x));
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
            closed.complete(reason);
        }
    }

    /** The peer's side: what arrived, in order. */
    private static final class Peer implements ConnectionHandler {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
            byte[] b = new byte[message.length()];
            message.payload().duplicate().get(b);
            events.add(new String(b, StandardCharsets.UTF_8));
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
            events.add("closed " + reason.kind());
        }
    }

    @Test
    public void aProviderReplacedAfterAConfigurationChangeLetsTheRequestInFlightFinish() throws Exception {
        int port = freeLoopbackPort();
        configureIwarp(port);
        await("iwarp selected", () -> "iwarp".equals(selectedProvider(transport)));
        BlockingQueue<Server> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", port), c -> {
            Server s = new Server();
            s.connection = c;
            accepted.add(s);
            return s;
        });
        await("the listener is open on iwarp", () -> listenerOpenOn(transport, "iwarp"));
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);

        try (IwarpProvider peerProvider = IwarpProvider.open("drain-peer", IwarpSettings.defaults());
                StandaloneTransport peer = StandaloneTransport.builder(peerProvider).build()) {
            Peer far = new Peer();
            SmbDirectConnection client = peer.connect(server, Duration.ofSeconds(10), far).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            Server near = accepted.poll(10, TimeUnit.SECONDS);
            assertNotNull("accepted", near);
            client.send(ByteBuffer.wrap("request".getBytes(StandardCharsets.UTF_8)), (m, x) -> { });
            assertTrue("the server is handling the request", near.handling.await(10, TimeUnit.SECONDS));

            // a good change replaces the provider; its connection is drained, not dropped
            configureIwarp(port, "maxFpduSize", 8192);
            await("the old provider left the selection", () -> providerDTO(transport, "iwarp") == null);
            assertTrue("the connection with a request in flight stays open", near.connection.isOpen());
            assertTrue(client.isOpen());
            ExecutionException refused = null;
            try {
                peer.connect(server, Duration.ofSeconds(5), new Peer()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                refused = e;
            }
            assertNotNull("no new connection is accepted during the drain", refused);
            assertFalse(near.closed.isDone());

            near.finish.countDown(); // the server finishes its reply
            assertEquals(null, near.replied.get(10, TimeUnit.SECONDS));
            CloseReason reason = near.closed.get(10, TimeUnit.SECONDS);
            assertEquals(CloseReason.Kind.PROVIDER_REPLACED, reason.kind());
            assertTrue(reason.detail(), reason.detail().contains("RDMA provider 'iwarp' withdrawn"));
            assertEquals("reply", far.events.poll(10, TimeUnit.SECONDS));
            assertEquals("closed PEER_DISCONNECT", far.events.poll(10, TimeUnit.SECONDS));
            assertEquals(List.of(), List.copyOf(far.events));

            // the listener reopens on the new provider
            await("the new iwarp provider serves the listener", () -> listenerOpenOn(transport, "iwarp"));
            SmbDirectConnection again = peer.connect(server, Duration.ofSeconds(10), new Peer()).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            assertTrue(again.isOpen());
            near = accepted.poll(10, TimeUnit.SECONDS);
            assertNotNull("accepted by the new provider", near);
            near.finish.countDown();
        } finally {
            listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
            configAdmin.getConfiguration(IWARP_PID, "?").delete();
        }
    }
}
