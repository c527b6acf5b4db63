package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
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

    /**
     * The device's interface goes down and comes back: the port reports IBV_EVENT_PORT_ERR, then
     * IBV_EVENT_PORT_ACTIVE, and the provider shows both to operators (siw: siw_main.c, netdev
     * notifier; rxe: rxe_net.c, rxe_port_down / rxe_port_up).
     */
    @Test
    void theLinkGoingDownAndUpIsReportedAsPortEvents() throws Exception {
        DeviceTckFixture f = new DeviceTckFixture();
        String device = System.getProperty("smbdirect.verbs.device");
        List<String> interfaces = new SysfsDevices(Path.of("/sys/class/infiniband")).netDevices(device);
        assertEquals(1, interfaces.size(), interfaces.toString());
        String netdev = interfaces.get(0);
        boolean down = false;
        try {
            // an endpoint makes the provider open the device, and with it watch its events
            RdmaEndpoint ep = f.client.createEndpoint(new EndpointSettings(2, 2), new Outcomes());
            link(netdev, "down");
            down = true;
            await("IBV_EVENT_PORT_ERR (events " + f.client.recentAsyncEvents() + ")",
                    () -> f.client.recentAsyncEvents().contains("IBV_EVENT_PORT_ERR (port 1)"));
            assertTrue(f.client.describeSettings().contains("port 1 down (IBV_EVENT_PORT_ERR"),
                    f.client.describeSettings());
            link(netdev, "up");
            down = false;
            await("IBV_EVENT_PORT_ACTIVE (events " + f.client.recentAsyncEvents() + ")",
                    () -> f.client.recentAsyncEvents().contains("IBV_EVENT_PORT_ACTIVE (port 1)"));
            assertTrue(f.client.describeSettings().contains("port 1 active again (IBV_EVENT_PORT_ACTIVE"),
                    f.client.describeSettings());
            ep.close();
        } finally {
            if (down) {
                link(netdev, "up");
            }
            f.close();
        }
    }

    private static void link(String netdev, String state) throws Exception {
        Process p = new ProcessBuilder("ip", "link", "set", netdev, state).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "ip link set " + netdev + " " + state);
        assertEquals(0, p.exitValue(), "ip link set " + netdev + " " + state + ": " + out);
    }
}
