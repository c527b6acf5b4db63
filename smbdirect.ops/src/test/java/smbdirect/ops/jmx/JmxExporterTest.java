package smbdirect.ops.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.engine.Counters;
import smbdirect.ops.monitor.TransportMonitorAccess;

class JmxExporterTest {

    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private TransportDTO current = transport();
    private final TransportMonitorAccess monitor = new TransportMonitorAccess(() -> current);
    private long now = 1_000;

    private static TransportDTO transport(ConnectionDTO... connections) {
        TransportDTO t = new TransportDTO();
        ProviderDTO p = new ProviderDTO();
        p.name = "mock";
        p.selected = true;
        p.transportType = "INFINIBAND";
        p.capabilities = "send queue 4096 work requests";
        // the provider's counters: 100 messages of connections that closed, and those of the live ones
        p.counters = Counters.zero();
        p.counters.messagesSent = 100;
        for (ConnectionDTO c : connections) {
            p.counters.messagesSent += c.messagesSent;
        }
        Counters.addClose(p.counters, CloseReason.of(CloseReason.Kind.PEER_DISCONNECT, "gone"));
        Counters.addClose(p.counters, CloseReason.violation("R-3.1.5.8-03", "DataOffset=20"));
        t.providers = new ProviderDTO[] { p };
        ListenerDTO named = new ListenerDTO();
        named.name = "default";
        named.address = "10.0.0.1:445";
        named.state = "OPEN";
        named.accepted = 3;
        named.declined = 1;
        ListenerEventDTO declined = new ListenerEventDTO();
        declined.kind = "DECLINED";
        declined.provider = "mock";
        declined.peerAddress = "10.0.0.2:50000";
        declined.connectionId = 9;
        declined.reasonKind = "HANDLER_FAILED";
        declined.detail = "AcceptHandler.accepted threw java.lang.IllegalStateException: no share";
        ListenerEventDTO accepted = new ListenerEventDTO();
        accepted.kind = "ACCEPTED";
        accepted.provider = "mock";
        named.events = new ListenerEventDTO[] { accepted, declined };
        named.counters = Counters.zero();
        named.counters.connectionsOpened = 3;
        named.counters.bytesReceived = 4096;
        ListenerDTO api = new ListenerDTO();
        api.address = "10.0.0.1:49152";
        api.state = "OPEN";
        t.listeners = new ListenerDTO[] { named, api };
        t.connections = connections;
        t.settings = new SettingsDTO();
        t.settings.receiveCreditMax = 255;
        t.settings.drainTimeoutSeconds = 10;
        t.negotiationFailures = 2;
        return t;
    }

    private static ConnectionDTO connection(long id, long messagesSent) {
        ConnectionDTO c = new ConnectionDTO();
        c.id = id;
        c.provider = "mock";
        c.state = "ESTABLISHED";
        c.role = "ACTIVE";
        c.messagesSent = messagesSent;
        c.creditStalls = 4;
        return c;
    }

    private void sample() {
        monitor.sample(now += 1000);
    }

    private Set<String> names() throws Exception {
        Set<String> s = new TreeSet<>();
        for (ObjectName n : server.queryNames(new ObjectName("smbdirect:*"), null)) {
            s.add(n.toString());
        }
        return s;
    }

    @Test
    void mbeansComeAndGoWithConnectionsAndReadTheNewestSnapshot() throws Exception {
        current = transport(connection(1, 10));
        sample();
        JmxExporter exporter = new JmxExporter(monitor.monitor(), server, true);
        assertEquals(new TreeSet<>(List.of("smbdirect:type=Transport", "smbdirect:type=Provider,name=mock",
                "smbdirect:type=Listener,name=default", "smbdirect:type=Listener,name=\"10.0.0.1:49152\"",
                "smbdirect:type=Connection,provider=mock,id=1")), names());

        ObjectName one = new ObjectName("smbdirect:type=Connection,provider=mock,id=1");
        assertEquals(10L, server.getAttribute(one, "messagesSent"));
        assertEquals("ESTABLISHED", server.getAttribute(one, "state"));
        current = transport(connection(1, 25), connection(2, 0));
        sample();
        assertEquals(25L, server.getAttribute(one, "messagesSent"), "the newest snapshot");
        assertTrue(names().contains("smbdirect:type=Connection,provider=mock,id=2"));

        ObjectName transport = new ObjectName("smbdirect:type=Transport");
        assertEquals(2, server.getAttribute(transport, "connections"));
        assertEquals(255, server.getAttribute(transport, "receiveCreditMax"));
        assertEquals(10L, server.getAttribute(transport, "drainTimeoutSeconds"));
        assertEquals(2L, server.getAttribute(transport, "negotiationFailures"));
        assertEquals("mock", server.getAttribute(transport, "selectedProvider"));
        assertEquals(8L, server.getAttribute(transport, "creditStalls"));
        assertEquals(125L, server.getAttribute(new ObjectName("smbdirect:type=Provider,name=mock"), "messagesSent"),
                "the provider's counter, closed connections included");
        ObjectName listener = new ObjectName("smbdirect:type=Listener,name=default");
        assertEquals(3L, server.getAttribute(listener, "accepted"));
        assertEquals(1L, server.getAttribute(listener, "declined"));
        assertTrue(((String) server.getAttribute(listener, "lastEvent")).contains(" ACCEPTED "));
        assertTrue(((String) server.getAttribute(listener, "lastDeclined")).endsWith(" DECLINED            peer "
                + "10.0.0.2:50000 on mock connection 9: HANDLER_FAILED: AcceptHandler.accepted threw "
                + "java.lang.IllegalStateException: no share"), (String) server.getAttribute(listener, "lastDeclined"));
        assertNull(server.getAttribute(new ObjectName("smbdirect:type=Listener,name=\"10.0.0.1:49152\""),
                "lastDeclined"), "no event, no line");

        current = transport(connection(2, 5));
        sample();
        assertFalse(names().contains(one.toString()), "a closed connection's MBean is unregistered");

        exporter.deactivate();
        assertEquals(Set.of(), names());
    }

    @Test
    void countersThatOnlyGoUpAndHealthAreAttributes() throws Exception {
        current = transport(connection(1, 10));
        sample();
        JmxExporter exporter = new JmxExporter(monitor.monitor(), server, true);
        ObjectName provider = new ObjectName("smbdirect:type=Provider,name=mock");
        assertEquals(110L, server.getAttribute(provider, "messagesSent"));
        assertEquals(2L, server.getAttribute(provider, "connectionsClosed"));
        assertEquals(1L, server.getAttribute(provider, "connectionsClosed.PEER_DISCONNECT"));
        assertEquals(1L, server.getAttribute(provider, "connectionsClosed.PROTOCOL_VIOLATION"));
        assertEquals(0L, server.getAttribute(provider, "connectionsClosed.KEEPALIVE_TIMEOUT"));
        assertEquals(1L, server.getAttribute(provider, "protocolViolations"));
        assertEquals("R-3.1.5.8-03=1", server.getAttribute(provider, "violationsByRule"));
        ObjectName listener = new ObjectName("smbdirect:type=Listener,name=default");
        assertEquals(3L, server.getAttribute(listener, "connectionsOpened"));
        assertEquals(4096L, server.getAttribute(listener, "bytesReceived"));
        ObjectName transport = new ObjectName("smbdirect:type=Transport");
        assertEquals("OK", server.getAttribute(transport, "health"));

        current = transport(connection(1, 10));
        current.listeners[1].state = "FAILED";
        current.listeners[1].stateDetail = "cannot listen on 10.0.0.1:49152";
        sample();
        assertEquals("CRITICAL", server.getAttribute(transport, "health"));
        assertTrue(((String) server.getAttribute(transport, "healthFindings"))
                .contains("CRITICAL listener 10.0.0.1:49152 FAILED: cannot listen on 10.0.0.1:49152"),
                (String) server.getAttribute(transport, "healthFindings"));
        exporter.deactivate();
    }

    @Test
    void attributesAreTheDtoFieldsInOpenTypesAndCloseIsAnOperation() throws Exception {
        current = transport(connection(7, 1));
        sample();
        JmxExporter exporter = new JmxExporter(monitor.monitor(), server, true);
        List<CloseReason> closed = new ArrayList<>();
        exporter.bindConnectionControl((id, provider, reason) -> {
            closed.add(reason);
            return id == 7 && "mock".equals(provider) ? CompletableFuture.completedFuture(null) : null;
        });
        ObjectName seven = new ObjectName("smbdirect:type=Connection,provider=mock,id=7");
        Set<String> attributes = new TreeSet<>();
        for (MBeanAttributeInfo a : server.getMBeanInfo(seven).getAttributes()) {
            attributes.add(a.getName());
            assertTrue(Set.of("long", "int", "double", "boolean", "java.lang.String").contains(a.getType()), a.getType());
        }
        assertTrue(attributes.containsAll(List.of("id", "role", "state", "sendCredits", "peerCredits", "receiveCreditMax",
                "messagesSent", "bytesReceived", "creditStalls", "keepalivesSent", "rdmaBytes")), attributes.toString());
        assertEquals("connection 7 closed", server.invoke(seven, "close", new Object[0], new String[0]));
        assertEquals(List.of(JmxExporter.OPERATOR_CLOSE), closed);
        exporter.deactivate();
    }
}
