package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testkit.VerifiedTraffic;

/**
 * The transport's MBeans in the platform MBean server of a Felix framework: a connection's MBean
 * appears when it is established, its counters follow the traffic, its close operation closes it,
 * and it is gone when the connection is; a listener's MBean comes and goes with the listener.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class JmxMBeansIT extends FelixSupport {

    private static final int PORT = 4480;

    @Inject
    SmbDirectTransport transport;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Configuration
    public Option[] config() {
        return felixOptions();
    }

    private ObjectName connectionName(SmbDirectConnection c) throws Exception {
        return new ObjectName("smbdirect:type=Connection,provider=" + c.providerName() + ",id=" + c.id());
    }

    @Test
    public void mbeansComeAndGoWithListenersAndConnectionsAndFollowTheTraffic() throws Exception {
        MockProvider mock = mockProvider("mock");
        BlockingQueue<SmbDirectConnection> accepted = new LinkedBlockingQueue<>();
        VerifiedTraffic.Receiver serverSide = new VerifiedTraffic.Receiver();
        SmbDirectListener listener = transport.listen(new InetSocketAddress(mock.address(), PORT), c -> {
            accepted.add(c);
            return serverSide;
        });
        ObjectName listenerName = new ObjectName("smbdirect:type=Listener,name="
                + ObjectName.quote(mock.address().getHostAddress() + ":" + PORT));
        await("listener MBean " + listenerName, () -> server.isRegistered(listenerName));

        VerifiedTraffic.Receiver clientSide = new VerifiedTraffic.Receiver();
        SmbDirectConnection client = transport.connect(new InetSocketAddress(mock.address(), PORT),
                Duration.ofSeconds(10), clientSide).toCompletableFuture().get(10, TimeUnit.SECONDS);
        SmbDirectConnection peer = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull(peer);
        ObjectName clientName = connectionName(client);
        ObjectName peerName = connectionName(peer);
        await("connection MBeans", () -> server.isRegistered(clientName) && server.isRegistered(peerName));
        assertEquals("ACTIVE", server.getAttribute(clientName, "role"));
        assertEquals("PASSIVE", server.getAttribute(peerName, "role"));

        VerifiedTraffic.Sender sender = new VerifiedTraffic.Sender(client, "jmx-traffic").start();
        try {
            serverSide.awaitReceived(500, "traffic");
            await("messagesSent in JMX follows the traffic", () -> {
                try {
                    return (Long) server.getAttribute(clientName, "messagesSent") >= 500
                            && (Long) server.getAttribute(peerName, "messagesReceived") >= 500
                            && (Long) server.getAttribute(new ObjectName("smbdirect:type=Provider,name=mock"),
                                    "bytesSent") > 0;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        } finally {
            sender.stopAndJoin();
        }
        assertTrue((Integer) server.getAttribute(new ObjectName("smbdirect:type=Transport"), "connections") >= 2);

        // the operation an operator calls from jconsole
        assertEquals("connection " + peer.id() + " closed", server.invoke(peerName, "close", new Object[0], new String[0]));
        CloseReason reason = serverSide.awaitClosed();
        assertEquals(CloseReason.Kind.LOCAL_CLOSE, reason.kind());
        // the peer's traffic runs on: a message it had partly sent when the close came is named after the
        // reason (3.1.7.1, nothing lost silently)
        assertTrue(reason.detail(), reason.detail().equals("closed by operator (JMX)")
                || reason.detail().startsWith("closed by operator (JMX); a message the peer had partly sent was dropped: "));
        await("connection MBeans gone", () -> !server.isRegistered(clientName) && !server.isRegistered(peerName));

        listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        await("listener MBean gone", () -> !server.isRegistered(listenerName));
    }
}
