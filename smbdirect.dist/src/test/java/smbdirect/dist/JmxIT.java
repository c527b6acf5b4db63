package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.tools.attach.VirtualMachine;

/**
 * The runtime's MBeans as jconsole and VisualVM see them: attach to the running process (the JDK
 * attach API, as they do), start its local management agent, and read the transport, provider,
 * listener and connection MBeans while the perf workload runs.
 */
class JmxIT {

    @TempDir
    Path home;

    @Test
    void mbeansOfTheTransportProviderListenersAndConnectionsMoveWithTheTraffic() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(home, "perf", "--duration", "25s", "--direction", "send")) {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(runtime.pid()));
            String address;
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
            try (JMXConnector jmx = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
                MBeanServerConnection server = jmx.getMBeanServerConnection();
                ObjectName connections = new ObjectName("smbdirect:type=Connection,*");
                ObjectName active = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (active == null) {
                    for (ObjectName n : server.queryNames(connections, null)) {
                        if ("ACTIVE".equals(server.getAttribute(n, "role"))
                                && (Long) server.getAttribute(n, "messagesSent") > 0) {
                            active = n;
                        }
                    }
                    if (System.nanoTime() > deadline || !runtime.process.isAlive()) {
                        throw new AssertionError("no connection MBean with traffic:\n" + runtime.output());
                    }
                    TimeUnit.MILLISECONDS.sleep(200);
                }
                Set<String> names = new TreeSet<>();
                server.queryNames(new ObjectName("smbdirect:*"), null).forEach(n -> names.add(n.toString()));
                assertTrue(names.containsAll(Set.of("smbdirect:type=Transport", "smbdirect:type=Provider,name=mock",
                        "smbdirect:type=Listener,name=default")), names.toString());
                assertEquals(2, server.queryNames(connections, null).size(), names.toString());
                assertEquals("mock", active.getKeyProperty("provider"));

                long first = (Long) server.getAttribute(active, "messagesSent");
                long deadline2 = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                long later = first;
                while (later <= first && System.nanoTime() < deadline2) {
                    TimeUnit.MILLISECONDS.sleep(200);
                    later = (Long) server.getAttribute(active, "messagesSent");
                }
                assertTrue(later > first, "messagesSent moves with the traffic: " + first + " then " + later);
                assertEquals("ESTABLISHED", server.getAttribute(active, "state"));
                assertEquals(255, server.getAttribute(active, "receiveCreditMax"));
                ObjectName transport = new ObjectName("smbdirect:type=Transport");
                assertEquals(2, server.getAttribute(transport, "connections"));
                assertEquals("mock", server.getAttribute(transport, "selectedProvider"));
                assertEquals(8192, server.getAttribute(transport, "maxReceiveSize"));
                assertTrue((Long) server.getAttribute(new ObjectName("smbdirect:type=Provider,name=mock"), "bytesSent") > 0);
                assertEquals("OPEN", server.getAttribute(new ObjectName("smbdirect:type=Listener,name=default"), "state"));
                // health and the counters that only go up, as attributes of the process's platform MBean server
                assertEquals("OK", server.getAttribute(transport, "health"), (String) server.getAttribute(transport, "healthFindings"));
                ObjectName mock = new ObjectName("smbdirect:type=Provider,name=mock");
                assertEquals(2L, server.getAttribute(mock, "connectionsOpened"));
                assertEquals(0L, server.getAttribute(mock, "connectionsClosed.PROTOCOL_VIOLATION"));
                long sent = (Long) server.getAttribute(mock, "messagesSent");
                assertTrue(sent >= first, "the provider's messagesSent counts at least the connection's: " + sent);
            }
            assertTrue(runtime.process.waitFor(120, TimeUnit.SECONDS), "perf did not finish:\n" + runtime.output());
            assertEquals(0, runtime.process.exitValue(), runtime.output());
        }
    }
}
