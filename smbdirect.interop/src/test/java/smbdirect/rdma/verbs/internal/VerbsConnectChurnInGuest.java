package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.verbs.internal.VerbsPeerKilledInGuest.Events;

/**
 * Guest side of {@code VerbsFaultsInVmTest}'s second fault: {@code -Dsmbdirect.verbs.connections}
 * connections made and ended one after the other between two guest JVMs, at the provider SPI, as a
 * client of a server does: each connection registers its message buffer (the same direct buffer
 * each time, as a buffer pool would hand it out), posts a receive, connects, sends 8 bytes and
 * receives the server's 8 bytes back, disconnects and closes. Role {@code server} answers each
 * connection's Send and closes its endpoint when the client has disconnected, and shuts down after
 * one connection more, the client's last, made after its last check; role {@code client}
 * checks, after each hundred, that the device's counts in {@code rdma resource show} (qp, cq, mr,
 * pd, cm_id, ctx; both JVMs are the device's only users) are those taken after the first hundred
 * (the provider's long-lived objects are made by then), and that its resident set ({@code VmRSS})
 * grew by less than {@value #RSS_GROWTH_KIB} KiB since then. The guest runtime has no {@code jcmd},
 * so native memory is judged by the resident set, which also holds the heap's pages: the bound
 * catches a leak of more than about {@value #RSS_GROWTH_KIB} KiB over the run, not a few bytes per
 * connection.
 */
@Tag("siw-vm-guest")
class VerbsConnectChurnInGuest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsConnectChurnInGuest.class);

    static final int RSS_GROWTH_KIB = 8 * 1024;
    private static final long TIMEOUT_SECONDS = 60;

    @Test
    void connectionsMadeAndEndedOneAfterAnotherLeaveTheKernelsCountsAndTheResidentSetWhereTheyWere()
            throws Exception {
        String role = System.getProperty("smbdirect.verbs.role", "");
        int connections = Integer.getInteger("smbdirect.verbs.connections", 1000);
        assertTrue(connections >= 200 && connections % 100 == 0, "connections in hundreds, at least 200: " + connections);
        if (role.equals("server")) {
            serve(connections);
        } else if (role.equals("client")) {
            connect(connections);
        } else {
            throw new IllegalArgumentException("-Dsmbdirect.verbs.role=server|client is required, got '" + role + "'");
        }
    }

    private static void serve(int connections) throws Exception {
        InetSocketAddress address = VerbsPeerKilledInGuest.server();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(address.getAddress().getHostAddress());
        record Accepted(RdmaEndpoint ep, Events events) {
        }
        BlockingQueue<Object> accepted = new LinkedBlockingQueue<>();
        RdmaListener listener = provider.listen(address, new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                try {
                    Events events = new Events();
                    accepted.add(new Accepted(request.createEndpoint(new EndpointSettings(4, 4), events), events));
                } catch (Exception e) {
                    request.reject(null);
                    accepted.add(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                accepted.add("listener failed: " + cause + " " + detail);
            }
        });
        ByteBuffer buffer = ByteBuffer.allocateDirect(8192);
        try {
            // the client's last connection only says it has made its checks: they need this JVM still running
            for (int i = 0; i < connections + 1; i++) {
                Object o = accepted.poll(i == 0 ? 180 : TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertTrue(o instanceof Accepted, "connection " + (i + 1) + " of " + (connections + 1) + ": " + o);
                Accepted a = (Accepted) o;
                MemoryRegion messages = a.ep().register(buffer, EnumSet.of(MemoryAccess.LOCAL_WRITE));
                a.ep().postReceive(messages, 0, 4096, 1);
                a.ep().accept(new ConnectParameters(null, 1, 1));
                assertEquals("established", a.events().next(), "connection " + (i + 1));
                receive(a.events(), "connection " + (i + 1));
                assertEquals(i, messages.buffer().getLong(0), "connection " + (i + 1) + "'s ping");
                messages.buffer().putLong(4096, i + 1);
                a.ep().postSend(messages, 4096, 8, 2);
                Object sent = a.events().next();
                assertTrue(sent instanceof Events.Completion c && c.type() == WorkRequestType.SEND
                        && c.status() == CompletionStatus.SUCCESS, "connection " + (i + 1) + "'s pong: " + sent);
                assertEquals(DisconnectCause.PEER, end(a.events(), "connection " + (i + 1)),
                        "connection " + (i + 1) + " ended by the client");
                a.ep().close();
            }
        } finally {
            listener.close();
            provider.shutdown();
        }
    }

    /** Waits for a successful receive of 8 bytes. */
    private static void receive(Events events, String what) throws InterruptedException {
        Object o = events.next();
        assertTrue(o instanceof Events.Completion c && c.type() == WorkRequestType.RECEIVE
                && c.status() == CompletionStatus.SUCCESS && c.byteLength() == 8, what + "'s Send: " + o);
    }

    /** The cause the connection ended with, past the flushed receives. */
    private static DisconnectCause end(Events events, String what) throws InterruptedException {
        Object o;
        do {
            o = events.next();
        } while (o instanceof Events.Completion c && c.status() == CompletionStatus.FLUSHED);
        assertTrue(o instanceof Events.Disconnected, what + " ends: " + o);
        return ((Events.Disconnected) o).cause();
    }

    /**
     * The device's counts once it holds no more queue pairs than {@code idleQueuePairs} (the kernel's own,
     * rxe's GSI queue pair), no memory region, and two readings in a row agree (at most 30 s): the
     * server closes its end after the client's disconnect.
     */
    private static Map<String, Integer> settled(String device, int idleQueuePairs) throws Exception {
        List<Map<String, Integer>> readings = new ArrayList<>(List.of(KernelRdmaResources.deviceCounts(device)));
        KernelRdmaResources.awaitState(() -> {
            readings.add(KernelRdmaResources.deviceCounts(device));
            return readings.subList(readings.size() - 2, readings.size());
        }, two -> two.get(0).equals(two.get(1)) && two.get(1).get("qp") == idleQueuePairs
                && two.get(1).get("mr") == 0, 30);
        return readings.get(readings.size() - 1);
    }

    private static void connect(int connections) throws Exception {
        String device = System.getProperty("smbdirect.verbs.device", "");
        InetSocketAddress address = VerbsPeerKilledInGuest.server();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(System.getProperty("smbdirect.verbs.bind", ""));
        ByteBuffer buffer = ByteBuffer.allocateDirect(8192);
        Map<String, Integer> baseline = null;
        long baselineRss = 0;
        List<String> hundreds = new ArrayList<>();
        Map<String, Integer> idle = KernelRdmaResources.deviceCounts(device);
        try {
            for (int i = 0; i < connections + 1; i++) {
                String what = "connection " + (i + 1) + " of " + (connections + 1);
                Events events = new Events();
                RdmaEndpoint ep = provider.createEndpoint(new EndpointSettings(4, 4), events);
                MemoryRegion messages = ep.register(buffer, EnumSet.of(MemoryAccess.LOCAL_WRITE));
                ep.postReceive(messages, 4096, 4096, 1);
                ep.connect(address, new ConnectParameters(null, 1, 1));
                assertEquals("established", events.next(), what);
                messages.buffer().putLong(0, i);
                ep.postSend(messages, 0, 8, 2);
                boolean sent = false;
                boolean received = false;
                while (!sent || !received) {
                    Object o = events.next();
                    assertTrue(o instanceof Events.Completion c && c.status() == CompletionStatus.SUCCESS,
                            what + ": " + o);
                    Events.Completion c = (Events.Completion) o;
                    if (c.type() == WorkRequestType.SEND) {
                        sent = true;
                    } else {
                        assertEquals(WorkRequestType.RECEIVE, c.type(), what);
                        assertEquals(8, c.byteLength(), what);
                        received = true;
                    }
                }
                assertEquals(i + 1L, messages.buffer().getLong(4096), what + "'s pong");
                ep.disconnect();
                assertEquals(DisconnectCause.LOCAL, end(events, what), what);
                ep.close();

                if ((i + 1) % 100 == 0 && i < connections) {
                    if (baseline == null) {
                        // the server closes its end after our disconnect: wait until the counts settle
                        Map<String, Integer> before = KernelRdmaResources.deviceCounts(device);
                        baseline = settled(device, idle.get("qp"));
                        assertEquals(idle.get("qp").intValue(), baseline.get("qp") + baseline.get("mr"), "no queue pair but the"
                                + " kernel's own (" + idle + " before the first connection) and no memory region left after"
                                + " the first hundred on " + device + " (first reading " + before + "): "
                                + KernelRdmaResources.show());
                        baselineRss = KernelRdmaResources.residentKiB();
                        hundreds.add((i + 1) + ": " + baseline + " VmRSS " + baselineRss + " KiB (baseline)");
                        LOG.info("{}", hundreds.get(hundreds.size() - 1));
                        continue;
                    }
                    Map<String, Integer> expected = baseline;
                    Map<String, Integer> now = KernelRdmaResources.awaitState(
                            () -> KernelRdmaResources.deviceCounts(device), expected::equals, 30);
                    long rss = KernelRdmaResources.residentKiB();
                    hundreds.add((i + 1) + ": " + now + " VmRSS " + rss + " KiB");
                    LOG.info("{}", hundreds.get(hundreds.size() - 1));
                    assertEquals(baseline, now, "after " + (i + 1) + " connections, " + device
                            + "'s counts are the first hundred's: " + hundreds);
                    assertTrue(rss - baselineRss < RSS_GROWTH_KIB, "after " + (i + 1) + " connections the resident set"
                            + " grew by less than " + RSS_GROWTH_KIB + " KiB: " + hundreds);
                }
            }
        } finally {
            provider.shutdown();
        }
    }
}
