package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * Guest side of {@code VerbsFaultsInVmTest}'s first fault: a peer JVM killed with {@code SIGKILL}
 * in the middle of RDMA Writes, RDMA Reads and Sends. Two guest JVMs run this class, in the role
 * {@code -Dsmbdirect.verbs.role}:
 *
 * <ul>
 * <li>{@code survivor} listens on {@code -Dsmbdirect.verbs.server}, takes the device's counts in
 * {@code rdma resource show} (only it is running), writes {@code ready} into
 * {@code -Dsmbdirect.verbs.faultDir} and accepts {@value #CONNECTIONS} connections; on each, both
 * sides run rounds of a 64 KiB RDMA Write and a 64 KiB RDMA Read into the other's exposed region and a
 * Send each way, without end. When the peer's pid appears in {@code victim.pid}, the survivor
 * records what the kernel holds for that process (it must hold its queue pairs) and writes
 * {@code kill}; the guest shell then kills the peer with {@code kill -9} and writes {@code gone} once
 * it has exited. The survivor requires every connection to end with a cause that puts the end on the
 * peer ({@link #PEER_GONE}) and a reason; after closing those endpoints, no object of the killed
 * process left in {@code rdma resource show qp|cq|mr|pd|cm_id}, the device's counts back to the
 * baseline, and a new connection to the same listener (from a second provider in this JVM) that
 * carries a Send each way.</li>
 * <li>{@code victim} connects {@value #CONNECTIONS} times, runs the same rounds, writes its pid into
 * {@code victim.pid} after {@value #ROUNDS_BEFORE_KILL} rounds on each connection and goes on until
 * it is killed (it fails if it is not within 4 minutes; its report is never read).</li>
 * </ul>
 */
@Tag("siw-vm-guest")
class VerbsPeerKilledInGuest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsPeerKilledInGuest.class);

    static final int CONNECTIONS = 2;
    static final int ROUNDS_BEFORE_KILL = 20;
    /** The causes a connection may end with when its peer's process is gone. */
    static final Set<DisconnectCause> PEER_GONE = EnumSet.of(DisconnectCause.PEER, DisconnectCause.PEER_LOST,
            DisconnectCause.QP_ERROR);
    private static final int SIZE = 64 * 1024;
    private static final int SLOTS = 8;
    private static final int SLOT = 4096;
    private static final long TIMEOUT_SECONDS = 60;

    /** Every callback of one endpoint, in order, for the thread that drives it. */
    static final class Events implements RdmaEndpointHandler {
        record Completion(long wrId, WorkRequestType type, CompletionStatus status, int byteLength) {
        }

        record Disconnected(DisconnectCause cause, String detail) {
        }

        final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            queue.add("established");
        }

        @Override
        public void onCompletion(WorkCompletion c) {
            queue.add(new Completion(c.wrId(), c.type(), c.status(), c.byteLength()));
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            queue.add(new Disconnected(cause, detail));
        }

        Object next() throws InterruptedException {
            Object o = queue.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (o == null) {
                throw new AssertionError("no RDMA event within " + TIMEOUT_SECONDS + " s");
            }
            return o;
        }
    }

    /** A connection's endpoint, its callbacks and its memory: receive slots, the send area, the regions. */
    static final class Link {
        final RdmaEndpoint ep;
        final Events events;
        final MemoryRegion messages;
        final MemoryRegion exposed;
        final MemoryRegion local;
        long peerAddress;
        int peerToken;
        int rounds;

        Link(RdmaEndpoint ep, Events events) throws RdmaException {
            this.ep = ep;
            this.events = events;
            messages = ep.register(ByteBuffer.allocateDirect((SLOTS + 1) * SLOT), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            exposed = ep.register(ByteBuffer.allocateDirect(SIZE),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE));
            local = ep.register(ByteBuffer.allocateDirect(2 * SIZE), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            for (int s = 0; s < SLOTS; s++) {
                ep.postReceive(messages, s * SLOT, SLOT, 100 + s);
            }
        }

        Object established() throws InterruptedException {
            return events.next();
        }

        /** Sends this side's exposed region and takes the peer's. */
        void exchangeDescriptors() throws Exception {
            ByteBuffer out = messages.buffer();
            int send = SLOTS * SLOT;
            out.putLong(send, exposed.address()).putInt(send + 8, exposed.token()).putInt(send + 12, SIZE);
            ep.postSend(messages, send, 16, 1);
            boolean sent = false;
            boolean received = false;
            while (!sent || !received) {
                Events.Completion c = success(events.next());
                if (c.type() == WorkRequestType.SEND) {
                    sent = true;
                } else if (c.type() == WorkRequestType.RECEIVE) {
                    int slot = (int) (c.wrId() - 100) * SLOT;
                    assertEquals(16, c.byteLength(), "the peer's region descriptor");
                    peerAddress = messages.buffer().getLong(slot);
                    peerToken = messages.buffer().getInt(slot + 8);
                    assertEquals(SIZE, messages.buffer().getInt(slot + 12));
                    ep.postReceive(messages, slot, SLOT, c.wrId());
                    received = true;
                }
            }
        }

        /** One round: an RDMA Write and an RDMA Read of 64 KiB, a Send each way; all must succeed. */
        void round() throws Exception {
            ByteBuffer l = local.buffer();
            for (int i = 0; i < SIZE; i += 4096) {
                l.putInt(i, rounds);
            }
            ep.postRdmaWrite(local, 0, SIZE, peerAddress, peerToken, 10);
            ep.postRdmaRead(local, SIZE, SIZE, peerAddress, peerToken, 11);
            int send = SLOTS * SLOT;
            messages.buffer().putLong(send, rounds);
            ep.postSend(messages, send, 8, 12);
            int done = 0;
            boolean received = false;
            while (done < 3 || !received) {
                Events.Completion c = success(events.next());
                if (c.type() == WorkRequestType.RECEIVE) {
                    assertEquals(8, c.byteLength());
                    ep.postReceive(messages, (int) (c.wrId() - 100) * SLOT, SLOT, c.wrId());
                    received = true;
                } else {
                    done++;
                }
            }
            rounds++;
        }

        static Events.Completion success(Object o) {
            if (o instanceof Events.Completion c && c.status() == CompletionStatus.SUCCESS) {
                return c;
            }
            throw new Ended(o);
        }
    }

    /** The event that broke a round: an unsuccessful completion or the end of the connection. */
    static final class Ended extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Object event;

        Ended(Object event) {
            super("the round ended with " + event);
            this.event = event;
        }
    }

    /** How a survivor's connection ended: the first failed completion (or refused post) and the cause. */
    record Outcome(int rounds, String firstFailure, Events.Disconnected end) {
    }

    static InetSocketAddress server() throws Exception {
        String value = System.getProperty("smbdirect.verbs.server", "");
        int colon = value.lastIndexOf(':');
        return new InetSocketAddress(InetAddress.getByName(value.substring(0, colon)),
                Integer.parseInt(value.substring(colon + 1)));
    }

    static Path dir() {
        return Path.of(System.getProperty("smbdirect.verbs.faultDir", "/tmp/faults"));
    }

    @Test
    void aPeerKilledInTheMiddleOfRdmaReadsWritesAndSendsEndsItsConnectionsWithAReasonAndLeavesNothingInTheKernel()
            throws Exception {
        String role = System.getProperty("smbdirect.verbs.role", "");
        if (role.equals("survivor")) {
            survive();
        } else if (role.equals("victim")) {
            beKilled();
        } else {
            throw new IllegalArgumentException("-Dsmbdirect.verbs.role=survivor|victim is required, got '" + role + "'");
        }
    }

    private static void survive() throws Exception {
        String device = System.getProperty("smbdirect.verbs.device", "");
        InetSocketAddress address = server();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(address.getAddress().getHostAddress());
        BlockingQueue<Link> accepted = new LinkedBlockingQueue<>();
        BlockingQueue<Object> failures = new LinkedBlockingQueue<>();
        RdmaListener listener = provider.listen(address, new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                try {
                    Events events = new Events();
                    accepted.add(new Link(request.createEndpoint(new EndpointSettings(16, 16), events), events));
                } catch (Exception e) {
                    request.reject(null);
                    failures.add(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                failures.add("listener failed: " + cause + " " + detail);
            }
        });
        ExecutorService drivers = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            Map<String, Integer> baseline = KernelRdmaResources.deviceCounts(device);
            LOG.info("baseline (the survivor alone) on {}: {}", device, baseline);
            Files.createDirectories(dir());
            Files.writeString(dir().resolve("ready"), "ready\n");

            List<Link> links = new ArrayList<>();
            List<Future<Outcome>> outcomes = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                Link link = accepted.poll(3, TimeUnit.MINUTES);
                assertTrue(link != null, "connection " + (i + 1) + " of the peer within 3 min; " + failures);
                link.ep.accept(new ConnectParameters(null, 16, 16));
                assertEquals("established", link.established());
                links.add(link);
                outcomes.add(drivers.submit(() -> untilTheEnd(link)));
            }

            Path pidFile = dir().resolve("victim.pid");
            KernelRdmaResources.awaitFile(pidFile, 180);
            long victim = Long.parseLong(Files.readString(pidFile, StandardCharsets.US_ASCII).strip());
            Set<Long> threads = KernelRdmaResources.threadsOf(victim);
            Map<String, List<String>> held = KernelRdmaResources.ofThreads(threads);
            LOG.info("the peer (pid {}, {} threads) holds before the kill: {}", victim, threads.size(), counts(held));
            assertTrue(held.get("qp").size() >= CONNECTIONS, "the kernel lists the peer's queue pairs while its"
                    + " traffic runs: " + held + "; " + KernelRdmaResources.show("qp"));
            Files.writeString(dir().resolve("kill"), "kill\n");

            for (int i = 0; i < CONNECTIONS; i++) {
                Outcome o = outcomes.get(i).get(3, TimeUnit.MINUTES);
                LOG.info("connection {} on {}: {} rounds, then {}, ended {}: {}", i + 1, device, o.rounds(),
                        o.firstFailure(), o.end().cause(), o.end().detail());
                assertTrue(o.rounds() >= ROUNDS_BEFORE_KILL, "traffic ran before the kill: " + o);
                assertTrue(PEER_GONE.contains(o.end().cause()),
                        "connection " + (i + 1) + " ends with a cause that puts the end on the peer " + PEER_GONE
                                + ": " + o);
                assertFalse(o.end().detail() == null || o.end().detail().isBlank(),
                        "connection " + (i + 1) + " ends with a reason: " + o);
            }
            for (Link link : links) {
                link.ep.close();
            }

            KernelRdmaResources.awaitFile(dir().resolve("gone"), 120);
            Map<String, List<String>> left = KernelRdmaResources.awaitState(() -> KernelRdmaResources.ofThreads(threads),
                    h -> KernelRdmaResources.total(h) == 0, 30);
            assertEquals(0, KernelRdmaResources.total(left),
                    "the kernel holds nothing of the killed process (pid " + victim + "): " + left);
            Map<String, Integer> after = KernelRdmaResources.awaitState(() -> KernelRdmaResources.deviceCounts(device),
                    baseline::equals, 30);
            assertEquals(baseline, after, device + "'s counts are back to the survivor's alone: "
                    + KernelRdmaResources.show());
            assertTrue(failures.isEmpty(), "no listener failure: " + failures);

            aNewConnectionWorks(address, accepted);
        } finally {
            drivers.shutdownNow();
            listener.close();
            provider.shutdown();
        }
    }

    private static Map<String, Integer> counts(Map<String, List<String>> held) {
        Map<String, Integer> counts = new java.util.LinkedHashMap<>();
        held.forEach((k, v) -> counts.put(k, v.size()));
        return counts;
    }

    /** Rounds until one fails, then every event until the connection's end. */
    private static Outcome untilTheEnd(Link link) throws Exception {
        String first;
        Object event;
        try {
            link.exchangeDescriptors();
            while (true) {
                link.round();
            }
        } catch (Ended e) {
            event = e.event;
            first = String.valueOf(e.event);
        } catch (RdmaException e) {
            event = null;
            first = "a post refused: " + e.getMessage();
        }
        while (!(event instanceof Events.Disconnected)) {
            event = link.events.next();
        }
        return new Outcome(link.rounds, first, (Events.Disconnected) event);
    }

    /** A second provider connects to the listener; a Send each way; both ends close in order. */
    private static void aNewConnectionWorks(InetSocketAddress address, BlockingQueue<Link> accepted) throws Exception {
        VerbsRdmaProvider client = VerbsHardwarePingPongTest.provider(address.getAddress().getHostAddress());
        try {
            Events events = new Events();
            Link out = new Link(client.createEndpoint(new EndpointSettings(16, 16), events), events);
            out.ep.connect(address, new ConnectParameters(null, 16, 16));
            Link in = accepted.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertTrue(in != null, "the listener takes a new connection after the peer's death");
            in.ep.accept(new ConnectParameters(null, 16, 16));
            assertEquals("established", in.established());
            assertEquals("established", out.established());
            ExecutorService pair = Executors.newSingleThreadExecutor();
            try {
                Future<?> server = pair.submit(() -> {
                    in.exchangeDescriptors();
                    in.round();
                    return null;
                });
                out.exchangeDescriptors();
                out.round();
                server.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } finally {
                pair.shutdownNow();
            }
            out.ep.disconnect();
            assertEquals(DisconnectCause.LOCAL, endOf(out).cause());
            assertEquals(DisconnectCause.PEER, endOf(in).cause());
            out.ep.close();
            in.ep.close();
        } finally {
            client.shutdown();
        }
    }

    private static Events.Disconnected endOf(Link link) throws InterruptedException {
        Object o;
        do {
            o = link.events.next();
        } while (o instanceof Events.Completion c && c.status() == CompletionStatus.FLUSHED);
        assertTrue(o instanceof Events.Disconnected, "the end of the connection, got " + o);
        return (Events.Disconnected) o;
    }

    private static void beKilled() throws Exception {
        InetSocketAddress address = server();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(System.getProperty("smbdirect.verbs.bind", ""));
        ExecutorService drivers = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            CountDownLatch running = new CountDownLatch(CONNECTIONS);
            List<Future<?>> loops = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                Events events = new Events();
                Link link = new Link(provider.createEndpoint(new EndpointSettings(16, 16), events), events);
                link.ep.connect(address, new ConnectParameters(null, 16, 16));
                assertEquals("established", link.established(), "connection " + (i + 1) + " to " + address);
                loops.add(drivers.submit(() -> {
                    link.exchangeDescriptors();
                    while (true) {
                        link.round();
                        if (link.rounds == ROUNDS_BEFORE_KILL) {
                            running.countDown();
                        }
                    }
                }));
            }
            assertTrue(running.await(3, TimeUnit.MINUTES), "every connection ran " + ROUNDS_BEFORE_KILL + " rounds");
            Files.writeString(dir().resolve("victim.pid.tmp"), ProcessHandle.current().pid() + "\n");
            Files.move(dir().resolve("victim.pid.tmp"), dir().resolve("victim.pid"));
            for (Future<?> loop : loops) {
                loop.get(4, TimeUnit.MINUTES);
            }
            throw new AssertionError("this process was to be killed in the middle of its traffic");
        } finally {
            drivers.shutdownNow();
            provider.shutdown();
        }
    }
}
