package smbdirect.itest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.BlockingQueue;
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
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

import smbdirect.api.AcceptHandler;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testkit.VerifiedTraffic;

/** A listener configured through factory PID smbdirect.listener, serving a whiteboard AcceptHandler. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ConfiguredListenerIT extends FelixSupport {

    private static final int PORT = 4460;

    @Inject
    SmbDirectTransport transport;

    @Inject
    ServiceComponentRuntime scr;

    @Configuration
    public Option[] config() {
        return felixOptions();
    }

    /** Copies each received message. */
    private static final class Inbox implements ConnectionHandler {
        final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer p = message.payload();
            byte[] copy = new byte[p.remaining()];
            p.duplicate().get(copy);
            messages.add(copy);
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
        }
    }

    @Test
    public void listenerWaitsForItsAcceptHandlerThenServesIt() throws Exception {
        MockProvider mock = mockProvider("mock");
        org.osgi.service.cm.Configuration config = configAdmin.getFactoryConfiguration("smbdirect.listener", "files", "?");
        config.update(dictionary("name", "files", "bindAddress", "0.0.0.0", "port", PORT,
                "acceptHandler.target", "(handler=files)"));

        ListenerDTO waiting = awaitValue("listener files in the DTO", () -> listenerDTO(transport, "files"));
        assertEquals("WAITING", waiting.state);
        assertTrue(waiting.stateDetail, waiting.stateDetail.contains("(handler=files)"));
        ComponentDescriptionDTO d = scr.getComponentDescriptionDTO(
                context.getServiceReference(SmbDirectTransport.class).getBundle(), "smbdirect.listener");
        assertEquals(1, scr.getComponentConfigurationDTOs(d).size());
        // SCR reports ACTIVE once activate() has returned; the listener shows in the DTO from inside it
        await("the listener component active", () -> {
            Collection<ComponentConfigurationDTO> instances = scr.getComponentConfigurationDTOs(d);
            return instances.size() == 1 && instances.iterator().next().state == ComponentConfigurationDTO.ACTIVE;
        });

        InetSocketAddress server = new InetSocketAddress(mock.address(), PORT);
        ExecutionException refused = expectConnectFailure(server);
        assertTrue(refused.getCause() instanceof SmbDirectException);

        Inbox inbox = new Inbox();
        BlockingQueue<SmbDirectConnection> accepted = new LinkedBlockingQueue<>();
        AcceptHandler handler = c -> {
            accepted.add(c);
            return inbox;
        };
        ServiceRegistration<AcceptHandler> reg = context.registerService(AcceptHandler.class, handler,
                dictionary("handler", "files"));
        try {
            await("listener open", () -> "OPEN".equals(listenerDTO(transport, "files").state));
            assertEquals("mock", listenerDTO(transport, "files").provider);

            SmbDirectConnection client = transport.connect(server, Duration.ofSeconds(10), new Inbox())
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertNotNull(accepted.poll(10, TimeUnit.SECONDS));
            byte[] sent = bytes(VerifiedTraffic.message(42));
            client.send(VerifiedTraffic.message(42)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertArrayEquals(sent, inbox.messages.poll(10, TimeUnit.SECONDS));
            assertEquals(1, listenerDTO(transport, "files").accepted);
            client.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            reg.unregister();
        }
        await("listener waits again", () -> "WAITING".equals(listenerDTO(transport, "files").state));
        expectConnectFailure(server);

        config.delete();
        await("listener removed", () -> listenerDTO(transport, "files") == null);
    }

    private ExecutionException expectConnectFailure(InetSocketAddress server) throws Exception {
        try {
            SmbDirectConnection c = transport.connect(server, Duration.ofSeconds(5), new Inbox()).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            c.close();
            throw new AssertionError("connected to a listener that should not be bound: " + c);
        } catch (ExecutionException expected) {
            return expected;
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
