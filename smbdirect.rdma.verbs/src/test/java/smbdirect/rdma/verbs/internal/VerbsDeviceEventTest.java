package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;

/**
 * The device's asynchronous events, read through rdma-core ({@code ibv_get_async_event}) on a real
 * device: the queue pair event of a refused RDMA Write at its target, and the port events of the
 * device's link going down and up. Two providers on one device ({@link DeviceTckFixture}); the link
 * test takes the device's interface down for a moment ({@code ip link}), so it runs as root on a
 * machine of its own (the siw VM). Tagged {@code rdma-device}.
 */
@Tag("rdma-device")
class VerbsDeviceEventTest {

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** The outcomes of one endpoint, as queues and futures. */
    static final class Outcomes implements RdmaEndpointHandler, RdmaListenHandler {
        final CompletableFuture<Void> established = new CompletableFuture<>();
        final BlockingQueue<CompletionStatus> completions = new LinkedBlockingQueue<>();
        final CompletableFuture<String> disconnected = new CompletableFuture<>();
        final BlockingQueue<RdmaConnectRequest> requests = new LinkedBlockingQueue<>();

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            established.complete(null);
        }

        @Override
        public void onCompletion(WorkCompletion completion) {
            completions.add(completion.status());
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            disconnected.complete(cause + ": " + detail);
        }

        @Override
        public void onConnectRequest(RdmaConnectRequest request) {
            requests.add(request);
        }

        @Override
        public void onListenerFailed(DisconnectCause cause, String detail) {
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /**
     * On siw the target of an RDMA Write to a region without REMOTE_WRITE raises
     * IBV_EVENT_QP_ACCESS_ERR on its queue pair (siw_proc_write, siw_qp_rx.c:596 in 6.1.192): the
     * target's provider reads it. rxe raises no queue pair event (its responder breaks the queue
     * pair and NAKs, rxe_resp.c do_class_ac_error): the writer's completion says it all.
     */
    @Test
    void theTargetOfARefusedRdmaWriteHearsOfItThroughItsDevice() throws Exception {
        DeviceTckFixture f = new DeviceTckFixture();
        try {
            Outcomes listen = new Outcomes();
            RdmaListener listener = f.server.listen(f.serverAddress(4460), listen);
            Outcomes client = new Outcomes();
            RdmaEndpoint active = f.client.createEndpoint(new EndpointSettings(4, 4), client);
            active.connect(f.serverAddress(4460), new ConnectParameters(ByteBuffer.allocate(0), 4, 4));
            RdmaConnectRequest request = listen.requests.poll(60, TimeUnit.SECONDS);
            assertNotNull(request, "the connection request");
            Outcomes server = new Outcomes();
            RdmaEndpoint passive = request.createEndpoint(new EndpointSettings(4, 4), server);
            MemoryRegion receive = passive.register(ByteBuffer.allocateDirect(64), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            passive.postReceive(receive, 0, 64, 1);
            passive.accept(new ConnectParameters(ByteBuffer.allocate(0), 4, 4));
            client.established.get(60, TimeUnit.SECONDS);
            server.established.get(60, TimeUnit.SECONDS);
            MemoryRegion readOnly = passive.register(ByteBuffer.allocateDirect(64), EnumSet.of(MemoryAccess.REMOTE_READ));
            MemoryRegion src = active.register(ByteBuffer.allocateDirect(8), EnumSet.noneOf(MemoryAccess.class));
            active.postRdmaWrite(src, 0, 8, readOnly.address(), readOnly.token(), 2);
            String writer = client.disconnected.get(60, TimeUnit.SECONDS);
            String target = server.disconnected.get(60, TimeUnit.SECONDS);
            boolean siw = f.server.device().vendorId() == DeviceAttributes.VENDOR_SIW;
            if (siw) {
                await("IBV_EVENT_QP_ACCESS_ERR at the target (events " + f.server.recentAsyncEvents() + ", target "
                        + target + ")", () -> f.server.recentAsyncEvents().contains("IBV_EVENT_QP_ACCESS_ERR"));
            } else {
                assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, client.completions.poll(60, TimeUnit.SECONDS), writer);
                assertFalse(f.server.recentAsyncEvents().stream().anyMatch(e -> e.startsWith("IBV_EVENT_QP")),
                        f.server.recentAsyncEvents().toString());
            }
            active.close();
            passive.close();
            listener.close();
        } finally {
            f.close();
        }
    }

    /** One connection between the two providers: both ends' outcomes, endpoints and receive regions. */
    private record Pair(Outcomes client, RdmaEndpoint active, MemoryRegion clientRegion, Outcomes server,
            RdmaEndpoint passive, MemoryRegion serverRegion) {
    }

    private static final int SLOTS = 8;
    private static final int SLOT = 64;

    /** Connects a client endpoint to the listener, both ends with {@value #SLOTS} receives posted. */
    private static Pair connect(DeviceTckFixture f, Outcomes listen, int port) throws Exception {
        Outcomes client = new Outcomes();
        RdmaEndpoint active = f.client.createEndpoint(new EndpointSettings(SLOTS, SLOTS), client);
        MemoryRegion clientRegion = active.register(ByteBuffer.allocateDirect(SLOTS * SLOT),
                EnumSet.of(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < SLOTS; i++) {
            active.postReceive(clientRegion, i * SLOT, SLOT, 100 + i);
        }
        active.connect(f.serverAddress(port), new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
        RdmaConnectRequest request = null;
        for (long end = System.nanoTime() + TIMEOUT_NANOS; request == null && System.nanoTime() - end < 0; ) {
            if (client.disconnected.isDone()) {
                active.close();
                throw new IllegalStateException("the connect ended: " + client.disconnected.getNow(""));
            }
            request = listen.requests.poll(100, TimeUnit.MILLISECONDS);
        }
        assertNotNull(request, "the connection request");
        Outcomes server = new Outcomes();
        RdmaEndpoint passive = request.createEndpoint(new EndpointSettings(SLOTS, SLOTS), server);
        MemoryRegion serverRegion = passive.register(ByteBuffer.allocateDirect(SLOTS * SLOT),
                EnumSet.of(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < SLOTS; i++) {
            passive.postReceive(serverRegion, i * SLOT, SLOT, 100 + i);
        }
        passive.accept(new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
        client.established.get(60, TimeUnit.SECONDS);
        server.established.get(60, TimeUnit.SECONDS);
        return new Pair(client, active, clientRegion, server, passive, serverRegion);
    }

    /**
     * The device's queue pairs, memory regions and CM identifiers as the kernel counts them
     * ({@code rdma resource show}: its summary line of {@code device}).
     */
    private static Map<String, Long> kernelObjects(String device) {
        try {
            Process p = new ProcessBuilder("rdma", "resource", "show").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "rdma resource show");
            String line = out.lines().filter(l -> l.contains(" " + device + ":")).findFirst().orElse("");
            Map<String, Long> counts = new java.util.TreeMap<>();
            for (String kind : List.of("qp", "mr", "cm_id")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile(" " + kind + " (\\d+)").matcher(line);
                counts.put(kind, m.find() ? Long.parseLong(m.group(1)) : -1L);
            }
            return counts;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** One message from the client to the server: the Send and the receive complete. */
    private static void message(Pair p, long wrId) throws Exception {
        p.active().postSend(p.clientRegion(), 0, 8, wrId);
        assertEquals(CompletionStatus.SUCCESS, p.client().completions.poll(60, TimeUnit.SECONDS), "the Send");
        assertEquals(CompletionStatus.SUCCESS, p.server().completions.poll(60, TimeUnit.SECONDS), "the receive");
    }

    /**
     * The device's interface goes down under traffic and comes back: the port reports
     * IBV_EVENT_PORT_ERR, then IBV_EVENT_PORT_ACTIVE (siw: siw_main.c, netdev notifier; rxe:
     * rxe_net.c, rxe_port_down / rxe_port_up), and the provider shows both to operators. Every
     * connection on the device ends on both sides as PEER_LOST with a reason naming the port event
     * ({@code endConnectionsOnPortDown}, on by default; siw's CM reports the disconnect first, and the
     * port's state names it), no CM message is sent while the port is down, every work request posted completes (none is
     * lost: SUCCESS before the end, FLUSHED after it), and once the port is up a new connection
     * carries messages. The fixture's close then finds every endpoint and registration released.
     */
    @Test
    void theLinkGoingDownUnderTrafficEndsEveryConnectionNamingThePortEventAndANewOneWorksOnceItIsUp()
            throws Exception {
        DeviceTckFixture f = new DeviceTckFixture();
        String device = System.getProperty("smbdirect.verbs.device");
        List<String> interfaces = new SysfsDevices(Path.of("/sys/class/infiniband")).netDevices(device);
        assertEquals(1, interfaces.size(), interfaces.toString());
        String netdev = interfaces.get(0);
        boolean down = false;
        Outcomes listen = new Outcomes();
        RdmaListener listener = f.server.listen(f.serverAddress(4462), listen);
        try {
            Map<String, Long> baseline = kernelObjects(device);
            Pair a = connect(f, listen, 4462);
            Pair b = connect(f, listen, 4462);
            message(a, 1);
            message(b, 1);
            // under traffic: Sends in flight on both connections when the link goes
            for (int i = 0; i < SLOTS - 1; i++) {
                a.active().postSend(a.clientRegion(), 0, 8, 10 + i);
                b.passive().postSend(b.serverRegion(), 0, 8, 10 + i);
            }
            link(netdev, "down");
            down = true;
            // every end names the port: from the port event, or from the CM's DISCONNECTED that siw sends
            // first (its connections are TCP connections over the interface), with the port's state
            String portDown = "PEER_LOST: IBV_EVENT_PORT_ERR: port 1 of the RDMA device went down";
            for (Outcomes o : List.of(a.client(), a.server(), b.client(), b.server())) {
                String end = o.disconnected.get(60, TimeUnit.SECONDS);
                assertTrue(end.startsWith(portDown), end);
            }
            await("IBV_EVENT_PORT_ERR (events " + f.client.recentAsyncEvents() + ")",
                    () -> f.client.recentAsyncEvents().contains("IBV_EVENT_PORT_ERR (port 1)"));
            assertTrue(f.client.describeSettings().contains("port 1 down (IBV_EVENT_PORT_ERR"),
                    f.client.describeSettings());
            // a connect while the port is down is refused at once, naming the port, and sends nothing: on rxe
            // a connection request sent on a down port leaves the device's CM unanswering once it is up
            RdmaEndpoint refused = f.client.createEndpoint(new EndpointSettings(1, 1), new Outcomes());
            RdmaException e = assertThrows(RdmaException.class, () -> refused.connect(f.serverAddress(4462),
                    new ConnectParameters(ByteBuffer.allocate(0), 1, 1)));
            assertTrue(e.getMessage().contains("refused: port 1 of the RDMA device is down"), e.getMessage());
            refused.close();
            // nothing lost: the sender of each connection hears of every Send it posted, its peer of every
            // receive (the ones its sends filled, the rest flushed)
            assertCompletions(SLOTS - 1, a.client(), "A's client, its Sends and receives", SLOTS);
            assertCompletions(SLOTS - 1, b.server(), "B's server, its Sends and receives", SLOTS - 1);
            link(netdev, "up");
            down = false;
            await("IBV_EVENT_PORT_ACTIVE (events " + f.client.recentAsyncEvents() + ")",
                    () -> f.client.recentAsyncEvents().contains("IBV_EVENT_PORT_ACTIVE (port 1)"));
            assertTrue(f.client.describeSettings().contains("port 1 active again (IBV_EVENT_PORT_ACTIVE"),
                    f.client.describeSettings());
            for (Pair p : List.of(a, b)) {
                p.active().close();
                p.passive().close();
            }
            Pair c = connectOnceRoutable(f, listen, 4462);
            for (int i = 0; i < 3; i++) {
                message(c, 20 + i);
            }
            c.active().disconnect();
            assertTrue(c.client().disconnected.get(60, TimeUnit.SECONDS).startsWith("LOCAL"), "C ends in order");
            assertTrue(c.server().disconnected.get(60, TimeUnit.SECONDS).startsWith("PEER"), "C's server hears it");
            c.active().close();
            c.passive().close();
            // nothing of the three connections stays in the kernel (the listener's objects are the baseline's)
            await("the device's queue pairs, regions and CM identifiers back to " + baseline + " (now "
                    + kernelObjects(device) + ")", () -> baseline.equals(kernelObjects(device)));
        } finally {
            if (down) {
                link(netdev, "up");
            }
            listener.close();
            f.close();
        }
    }

    /**
     * Sends and receives of {@code o} after its connection ended: {@code sends} Sends and
     * {@code receives} receives complete, each SUCCESS or FLUSHED.
     */
    private static void assertCompletions(int sends, Outcomes o, String what, int receives) throws InterruptedException {
        List<CompletionStatus> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (seen.size() < sends + receives && System.nanoTime() - deadline < 0) {
            CompletionStatus s = o.completions.poll(100, TimeUnit.MILLISECONDS);
            if (s != null) {
                seen.add(s);
            }
        }
        assertEquals(sends + receives, seen.size(), what + ": every work request completes once: " + seen);
        assertTrue(seen.stream().allMatch(s -> s == CompletionStatus.SUCCESS || s == CompletionStatus.FLUSHED),
                what + ": " + seen);
    }

    /**
     * A connection once the link is up again: the interface's routes come back with it, a moment
     * after the port event, so a connect that ends before the request arrives (UNREACHABLE: no route
     * yet) is tried again, for 60 s at most.
     */
    private static Pair connectOnceRoutable(DeviceTckFixture f, Outcomes listen, int port) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        for (;;) {
            try {
                return connect(f, listen, port);
            } catch (IllegalStateException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    private static void link(String netdev, String state) throws Exception {
        Process p = new ProcessBuilder("ip", "link", "set", netdev, state).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "ip link set " + netdev + " " + state);
        assertEquals(0, p.exitValue(), "ip link set " + netdev + " " + state + ": " + out);
    }
}
