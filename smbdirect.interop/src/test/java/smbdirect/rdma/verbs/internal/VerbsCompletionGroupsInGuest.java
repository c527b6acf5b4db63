package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

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
import smbdirect.testsupport.AllocationCounter;

/**
 * Guest side of {@code VerbsCompletionGroupsInVmTest}: {@value #CONNECTIONS} connections open at
 * once between two guest JVMs whose providers run several completion groups per device
 * ({@code -Dsmbdirect.verbs.completionGroups}, 4 unless set; read by
 * {@code VerbsHardwarePingPongTest.provider}, as the other guest tests make their provider). Role
 * {@code server} listens on {@code -Dsmbdirect.verbs.server} and accepts on the CM thread; role
 * {@code client} opens the {@value #CONNECTIONS} from several threads at once
 * ({@code -Dsmbdirect.verbs.openers}, 8 unless set). The host may set the providers'
 * {@code cqSize} ({@code -Dsmbdirect.verbs.cqSize}); the queues are {@value #DEPTH} deep. Each
 * connection registers its buffers once (a message buffer; the server a region of 2 x
 * {@value #SIZE} bytes it exposes for RDMA Write and Read, the client one it writes from and reads
 * into), exchanges a descriptor by Send, and then runs rounds driven entirely by the endpoints'
 * callbacks on the completion threads: the client RDMA-Writes {@value #SIZE} bytes of a pattern
 * (of the connection, the round and the direction) into the server's region and Sends the round
 * number; the server, on that receive, checks the written bytes byte for byte, writes its own
 * pattern into the other half of its region and Sends a reply; the client, after its Write, its
 * Send and the reply completed, RDMA-Reads that half and checks it byte for byte, then starts the
 * next round. Each receive is reposted as it is consumed.
 *
 * <p>Both sides assert, on their own provider: the {@value #CONNECTIONS} endpoints are spread
 * evenly over the groups ({@code completionGroups(deviceKey)}, {@code attachedCount()}, each
 * group's index and completion vector, each endpoint's group); every callback of an endpoint
 * (onEstablished, every completion, onDisconnected) ran on one thread, its group's
 * {@code smbdirect-verbs-cq-KEY-INDEX}, as many distinct threads as groups;
 * {@code rdma resource show cq} lists at least as many completion queues made by this JVM's
 * threads as groups while the connections are open; the completion threads allocate nothing in
 * steady state: after {@value #WARM_ROUNDS} warm-up rounds on every connection,
 * {@code ThreadMXBean.getThreadAllocatedBytes} of each completion thread over {@value #WINDOWS}
 * windows of {@value #MEASURED_ROUNDS} rounds on every connection, one of which must show 0 bytes
 * on every thread (a one-off, a late class initialisation, may fall into one window; every window
 * is printed). Every connection ends once, {@code LOCAL} on the client, {@code PEER} on the
 * server, after each posted receive completed FLUSHED. After the client closed its endpoints, its
 * groups are retired and the kernel lists no qp, cq, mr, pd or cm_id of its threads; the server,
 * after both providers shut down, finds the device's counts of qp, cq, mr, pd and cm_id in
 * {@code rdma resource show} those it took before its provider started (both JVMs are the device's
 * only users).
 *
 * <p>The two JVMs keep in step through files in {@code -Dsmbdirect.verbs.groupsDir}: the server
 * writes {@code server-N} once every connection's reply of round N - 1 completed and it read its
 * threads' counters, and the client starts the rounds after N only then; the client writes
 * {@code client-done} once its provider shut down (also when it failed: the server then stops
 * waiting), and the server keeps its listener until then.
 */
@Tag("siw-vm-guest")
class VerbsCompletionGroupsInGuest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsCompletionGroupsInGuest.class);

    static final int CONNECTIONS = 64;
    /** The completion groups per device ({@code -Dsmbdirect.verbs.completionGroups}, 4 unless set). */
    static final int GROUPS = Integer.getInteger("smbdirect.verbs.completionGroups", 4);
    /** Bytes of each RDMA Write and RDMA Read. */
    static final int SIZE = 6 * 1024;
    static final int WARM_ROUNDS = 30;
    static final int MEASURED_ROUNDS = 20;
    static final int WINDOWS = 3;
    /** The threads that open the client's connections at once ({@code -Dsmbdirect.verbs.openers}). */
    static final int OPENERS = Integer.getInteger("smbdirect.verbs.openers", 8);
    private static final long TIMEOUT_SECONDS = 240;
    private static final String THREAD_PREFIX = "smbdirect-verbs-cq-";

    /**
     * Each queue's depth: a connection has at most 2 sends and its 4 receives outstanding. Small, so
     * that 16 endpoints fit a completion queue of 256 entries (with rxe's window binds, 12 entries
     * each); {@code VerbsCompletionGroupsInVmTest} says why the completion queues are small.
     */
    static final int DEPTH = 4;
    private static final int SLOTS = 4;
    private static final int SLOT = 64;
    /** Two send areas of {@link #SLOT} bytes follow the receive slots. */
    private static final int SEND_AREA = SLOTS * SLOT;

    private static final int DESCRIPTOR = 1;
    private static final int ROUND = 2;
    private static final int REPLY = 3;
    private static final int DESCRIPTOR_LENGTH = 24;
    private static final int ROUND_LENGTH = 16;

    private static final long WR_DESCRIPTOR = 1;
    private static final long WR_ROUND = 2;
    /** And {@code WR_REPLY + 1}: the two send areas the replies alternate between. */
    private static final long WR_REPLY = 3;
    private static final long WR_WRITE = 5;
    private static final long WR_READ = 6;
    private static final long WR_RECEIVE = 100;

    private static final int WRITTEN = 1;
    private static final int SENT = 2;
    private static final int REPLIED = 4;
    private static final int READING = 8;

    /** Byte {@code i} of connection {@code conn}'s pattern of {@code round}; {@code direction} 0: to the server. */
    static byte pattern(int conn, int round, int direction, int i) {
        return (byte) (i * 7 + (i >>> 8) + round * 13 + conn * 31 + direction * 101);
    }

    static void fill(ByteBuffer b, int from, int conn, int round, int direction) {
        for (int i = 0; i < SIZE; i++) {
            b.put(from + i, pattern(conn, round, direction, i));
        }
    }

    /** The first byte of {@code b} from {@code from} on that differs from the pattern, -1 when none. */
    static int check(ByteBuffer b, int from, int conn, int round, int direction) {
        for (int i = 0; i < SIZE; i++) {
            if (b.get(from + i) != pattern(conn, round, direction, i)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * One connection: its endpoint, its registered memory and the state machine its callbacks drive.
     * Once set up, nothing here allocates but on a failure: the views of the registered bytes are
     * taken once ({@code MemoryRegion.buffer()} makes a new view each call), the rest is primitives.
     * The callbacks run on the endpoint's completion thread; the driving thread only starts the
     * client's rounds while the connection is idle and reads the volatile fields.
     */
    static final class Connection implements RdmaEndpointHandler {
        final int index;
        final boolean client;
        volatile RdmaEndpoint ep;
        volatile MemoryRegion messages;
        volatile MemoryRegion data;
        private volatile ByteBuffer msg;
        private volatile ByteBuffer bytes;

        // written on the completion thread before ready; read by the client's driving thread after it
        private long peerAddress;
        private int peerToken;
        /** The client's number (the server's patterns are the client's). */
        private int peer;
        private boolean descriptorSent;
        private boolean descriptorReceived;
        volatile boolean ready;

        /** Client: the round in flight (or next); server: the round expected next. */
        private volatile int round;
        private volatile int pending;
        /** Client: the rounds to run before it stops and waits for the driving thread. */
        volatile int target;
        /** Client: rounds whose Read was checked; server: replies whose Send completed. */
        volatile int completed;
        volatile int flushed;

        volatile Thread first;
        volatile Thread other;
        volatile long callbacks;
        volatile DisconnectCause cause;
        volatile String detail;
        volatile int disconnects;
        volatile String failure;

        Connection(int index, boolean client) {
            this.index = index;
            this.client = client;
            this.peer = index;
        }

        /** Registers the buffers once and posts the receives (setup, before connect or accept). */
        void open(RdmaEndpoint endpoint) throws RdmaException {
            ep = endpoint;
            MemoryRegion m = endpoint.register(ByteBuffer.allocateDirect(4096), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            MemoryRegion d = endpoint.register(ByteBuffer.allocateDirect(2 * SIZE), client
                    ? EnumSet.of(MemoryAccess.LOCAL_WRITE)
                    : EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE));
            messages = m;
            data = d;
            msg = m.buffer();
            bytes = d.buffer();
            for (int s = 0; s < SLOTS; s++) {
                endpoint.postReceive(m, s * SLOT, SLOT, WR_RECEIVE + s);
            }
        }

        VerbsEndpoint endpoint() {
            return (VerbsEndpoint) ep;
        }

        private void called() {
            Thread t = Thread.currentThread();
            Thread f = first;
            if (f == null) {
                first = t;
            } else if (t != f && other == null) {
                other = t;
            }
            callbacks++;
        }

        void fail(String what) {
            if (failure == null) {
                failure = "connection " + index + (client ? " (client)" : " (server, the client's " + peer + ")") + ": "
                        + what;
            }
        }

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            called();
            if (client) {
                sendDescriptor();
            }
        }

        /** The client's number, and on the server the region it exposes. */
        private void sendDescriptor() {
            ByteBuffer m = msg;
            MemoryRegion d = data;
            m.putInt(SEND_AREA, DESCRIPTOR).putInt(SEND_AREA + 4, index);
            m.putLong(SEND_AREA + 8, client ? 0 : d.address()).putInt(SEND_AREA + 16, client ? 0 : d.token())
                    .putInt(SEND_AREA + 20, client ? 0 : 2 * SIZE);
            try {
                ep.postSend(messages, SEND_AREA, DESCRIPTOR_LENGTH, WR_DESCRIPTOR);
            } catch (RdmaException e) {
                fail("the descriptor's Send was refused: " + e.getMessage());
            }
        }

        @Override
        public void onCompletion(WorkCompletion c) {
            called();
            long wrId = c.wrId();
            CompletionStatus status = c.status();
            if (status != CompletionStatus.SUCCESS) {
                if (status == CompletionStatus.FLUSHED && wrId >= WR_RECEIVE) {
                    flushed++;
                } else {
                    fail(c.type() + " (wr_id " + wrId + ") completed " + status + ", vendor error " + c.vendorError()
                            + ", round " + round);
                }
                return;
            }
            if (failure != null) {
                return;
            }
            if (wrId >= WR_RECEIVE) {
                received((int) (wrId - WR_RECEIVE), c.byteLength());
            } else if (wrId == WR_DESCRIPTOR) {
                descriptorSent = true;
                readyIfExchanged();
            } else if (wrId == WR_ROUND) {
                done(SENT);
            } else if (wrId == WR_WRITE) {
                done(WRITTEN);
            } else if (wrId == WR_READ) {
                readDone();
            } else if (wrId == WR_REPLY || wrId == WR_REPLY + 1) {
                completed = completed + 1;
            } else {
                fail("a completion of unknown wr_id " + wrId);
            }
        }

        private void readyIfExchanged() {
            if (descriptorSent && descriptorReceived) {
                ready = true;
            }
        }

        private void received(int slot, int length) {
            ByteBuffer m = msg;
            int at = slot * SLOT;
            int kind = m.getInt(at);
            if (kind == DESCRIPTOR) {
                if (length != DESCRIPTOR_LENGTH) {
                    fail("a descriptor of " + length + " bytes");
                    return;
                }
                if (client) {
                    peerAddress = m.getLong(at + 8);
                    peerToken = m.getInt(at + 16);
                    if (m.getInt(at + 20) != 2 * SIZE) {
                        fail("the server exposes " + m.getInt(at + 20) + " bytes, not " + 2 * SIZE);
                        return;
                    }
                } else {
                    peer = m.getInt(at + 4);
                }
                if (!repost(slot)) {
                    return;
                }
                descriptorReceived = true;
                if (!client) {
                    sendDescriptor();
                }
                readyIfExchanged();
            } else if (kind == ROUND && !client) {
                serve(slot, at, length);
            } else if (kind == REPLY && client) {
                int r = round;
                if (length != ROUND_LENGTH || m.getLong(at + 8) != r) {
                    fail("a reply of " + length + " bytes for round " + m.getLong(at + 8) + " in round " + r);
                    return;
                }
                if (repost(slot)) {
                    done(REPLIED);
                }
            } else {
                fail("a message of kind " + kind + " (" + length + " bytes) in round " + round);
            }
        }

        /** Server: the client's Write of the round came before its Send: check it, expose the Read's, reply. */
        private void serve(int slot, int at, int length) {
            ByteBuffer m = msg;
            int r = round;
            if (length != ROUND_LENGTH || m.getLong(at + 8) != r) {
                fail("round " + m.getLong(at + 8) + " (" + length + " bytes) arrived, round " + r + " expected");
                return;
            }
            ByteBuffer b = bytes;
            int bad = check(b, 0, peer, r, 0);
            if (bad >= 0) {
                fail("the client's RDMA Write of round " + r + " differs at byte " + bad + ": " + b.get(bad)
                        + ", expected " + pattern(peer, r, 0, bad));
                return;
            }
            fill(b, SIZE, peer, r, 1);
            if (!repost(slot)) {
                return;
            }
            int area = SEND_AREA + (r & 1) * SLOT;
            m.putInt(area, REPLY).putInt(area + 4, index).putLong(area + 8, r);
            round = r + 1;
            try {
                ep.postSend(messages, area, ROUND_LENGTH, WR_REPLY + (r & 1));
            } catch (RdmaException e) {
                fail("the reply of round " + r + " was refused: " + e.getMessage());
            }
        }

        private boolean repost(int slot) {
            try {
                ep.postReceive(messages, slot * SLOT, SLOT, WR_RECEIVE + slot);
                return true;
            } catch (RdmaException e) {
                fail("reposting receive " + slot + " was refused: " + e.getMessage());
                return false;
            }
        }

        /** Client: starts round {@link #round}: the Write of this round's pattern, then the Send saying so. */
        void startRound() {
            int r = round;
            ByteBuffer b = bytes;
            fill(b, 0, index, r, 0);
            ByteBuffer m = msg;
            m.putInt(SEND_AREA, ROUND).putInt(SEND_AREA + 4, index).putLong(SEND_AREA + 8, r);
            pending = WRITTEN | SENT | REPLIED;
            try {
                ep.postRdmaWrite(data, 0, SIZE, peerAddress, peerToken, WR_WRITE);
                ep.postSend(messages, SEND_AREA, ROUND_LENGTH, WR_ROUND);
            } catch (RdmaException e) {
                fail("a post of round " + r + " was refused: " + e.getMessage());
            }
        }

        /** Client: one of the round's Write, Send and reply is done; after all three, the Read. */
        private void done(int what) {
            int left = pending & ~what;
            pending = left;
            if (left != 0) {
                return;
            }
            pending = READING;
            try {
                ep.postRdmaRead(data, SIZE, SIZE, peerAddress + SIZE, peerToken, WR_READ);
            } catch (RdmaException e) {
                fail("the RDMA Read of round " + round + " was refused: " + e.getMessage());
            }
        }

        /** Client: the Read of the round is in; check it, then the next round unless the target is reached. */
        private void readDone() {
            int r = round;
            ByteBuffer b = bytes;
            int bad = check(b, SIZE, index, r, 1);
            if (bad >= 0) {
                fail("the RDMA Read of round " + r + " differs at byte " + bad + ": " + b.get(SIZE + bad)
                        + ", expected " + pattern(index, r, 1, bad));
                return;
            }
            pending = 0;
            int t = target; // read before the round is published: a driving thread that sees it may raise the target
            int next = r + 1;
            round = next;
            completed = next;
            if (next < t) {
                startRound();
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            called();
            this.detail = detail;
            this.cause = cause;
            disconnects++;
        }

        String state() {
            return index + ": ready " + ready + ", round " + round + ", pending " + pending + ", completed "
                    + completed + ", cause " + cause;
        }
    }

    @Test
    void sixtyFourConnectionsOverFourCompletionGroupsEachOnItsOwnThreadAllocationFree() throws Exception {
        String role = System.getProperty("smbdirect.verbs.role", "");
        assertTrue(GROUPS > 0 && CONNECTIONS % GROUPS == 0, "-Dsmbdirect.verbs.completionGroups divides "
                + CONNECTIONS + ": " + GROUPS);
        if (role.equals("server")) {
            serve();
        } else if (role.equals("client")) {
            connect();
        } else {
            throw new IllegalArgumentException("-Dsmbdirect.verbs.role=server|client is required, got '" + role + "'");
        }
    }

    static Path dir() {
        return Path.of(System.getProperty("smbdirect.verbs.groupsDir", "/tmp/groups"));
    }

    /** The boundaries between the warm-up and the measured windows, in rounds. */
    static int[] boundaries() {
        int[] b = new int[WINDOWS + 1];
        for (int i = 0; i <= WINDOWS; i++) {
            b[i] = WARM_ROUNDS + i * MEASURED_ROUNDS;
        }
        return b;
    }

    private static void serve() throws Exception {
        String device = System.getProperty("smbdirect.verbs.device", "");
        AllocationCounter counter = AllocationCounter.enabled();
        InetSocketAddress address = VerbsPeerKilledInGuest.server();
        Path clientDone = dir().resolve("client-done");
        Map<String, Integer> before = listed(KernelRdmaResources.deviceCounts(device));
        LOG.info("server: {} before the provider started: {}", device, before);
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(address.getAddress().getHostAddress());
        List<Connection> cs = new CopyOnWriteArrayList<>();
        ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
        List<String> problems = new ArrayList<>();
        RdmaListener listener = provider.listen(address, new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                Connection c = new Connection(cs.size(), false);
                try {
                    c.open(request.createEndpoint(new EndpointSettings(DEPTH, DEPTH), c));
                    c.ep.accept(new ConnectParameters(null, 4, 4));
                    cs.add(c);
                } catch (Exception e) {
                    request.reject(null);
                    refused.add("connection " + (cs.size() + 1) + " not accepted: " + e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                refused.add("listener failed: " + cause + " " + detail);
            }
        });
        long[] windows;
        List<Thread> threads;
        boolean shutDown = false;
        try {
            assertEquals(GROUPS, provider.settings().completionGroups(),
                    "-Dsmbdirect.verbs.completionGroups=" + GROUPS + " reached the provider");
            LOG.info("{}", provider.describeSettings());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (cs.size() < CONNECTIONS && refused.isEmpty() && !Files.exists(clientDone)
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(refused.isEmpty(), "every connection accepted: " + refused);
            assertEquals(CONNECTIONS, cs.size(), "connections accepted within " + TIMEOUT_SECONDS + " s"
                    + (Files.exists(clientDone) ? " (the client gave up)" : ""));
            await(cs, c -> c.ready, "every connection established and its descriptors exchanged", false, clientDone);
            int key = spread(provider, cs, problems);
            kernelQueues(problems);
            threads = completionThreads(key, problems);
            long[] ids = ids(threads);
            int[] bounds = boundaries();
            windows = new long[bounds.length * ids.length];
            for (int k = 0; k < bounds.length; k++) {
                int bound = bounds[k];
                await(cs, c -> c.completed >= bound, "every reply of round " + (bound - 1) + " sent", false,
                        clientDone);
                System.arraycopy(counter.bytes(ids), 0, windows, k * ids.length, ids.length);
                Files.writeString(dir().resolve("server-" + bound), "");
            }
            LOG.info("server: {} rounds on each of {} connections", bounds[WINDOWS], CONNECTIONS);

            await(cs, c -> c.cause != null, "every connection ended by the client", true, null);
            for (Connection c : cs) {
                if (c.cause != DisconnectCause.PEER || c.disconnects != 1) {
                    problems.add("connection " + c.index + " ended " + c.disconnects + " time(s), " + c.cause + " ("
                            + c.detail + "), not once PEER");
                }
                c.ep.close();
            }
            callbacks(key, cs, problems);
            LOG.info("server: its groups with every endpoint closed and the listener open: {}",
                    describe(provider.completionGroups(key)));
            KernelRdmaResources.awaitFile(clientDone, (int) TIMEOUT_SECONDS);
            listener.close();
            provider.shutdown();
            shutDown = true;
            Map<String, Integer> after = KernelRdmaResources.awaitState(
                    () -> listed(KernelRdmaResources.deviceCounts(device)), before::equals, 60);
            LOG.info("server: {} after both providers shut down: {}", device, after);
            if (!before.equals(after)) {
                problems.add(device + "'s counts after both providers shut down are " + after + ", not " + before
                        + " as before the server's provider started: " + KernelRdmaResources.show() + "\n"
                        + KernelRdmaResources.show("cq") + "\n" + KernelRdmaResources.show("pd"));
            }
        } finally {
            if (!shutDown) {
                listener.close();
                provider.shutdown();
            }
        }
        judge("server", threads, windows, problems);
    }

    private static void connect() throws Exception {
        InetSocketAddress address = VerbsPeerKilledInGuest.server();
        AllocationCounter counter = AllocationCounter.enabled();
        VerbsRdmaProvider provider = VerbsHardwarePingPongTest.provider(System.getProperty("smbdirect.verbs.bind", ""));
        ExecutorService openers = Executors.newFixedThreadPool(OPENERS);
        List<Connection> cs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        long[] windows;
        List<Thread> threads;
        try {
            assertEquals(GROUPS, provider.settings().completionGroups(),
                    "-Dsmbdirect.verbs.completionGroups=" + GROUPS + " reached the provider");
            LOG.info("{}", provider.describeSettings());
            for (int i = 0; i < CONNECTIONS; i++) {
                cs.add(new Connection(i, true));
            }
            List<Future<?>> opened = new ArrayList<>();
            for (Connection c : cs) {
                opened.add(openers.submit(() -> {
                    try {
                        c.open(provider.createEndpoint(new EndpointSettings(DEPTH, DEPTH), c));
                        c.ep.connect(address, new ConnectParameters(null, 4, 4));
                    } catch (RdmaException | RuntimeException e) {
                        throw new AssertionError("opening connection " + c.index + " of " + CONNECTIONS + " ("
                                + cs.stream().filter(x -> x.ep != null).count() + " endpoints made) failed: " + e, e);
                    }
                    return null;
                }));
            }
            List<String> failed = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                try {
                    opened.get(i).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    failed.add(e.getCause().getMessage());
                }
            }
            if (!failed.isEmpty()) {
                LOG.error("client: {} of {} connections not opened, the groups {}: {}", failed.size(), CONNECTIONS,
                        describe(provider.completionGroups(cs.get(0).ep == null ? 0
                                : cs.get(0).endpoint().group().device().key())), failed);
                throw new AssertionError(failed.size() + " of " + CONNECTIONS + " connections not opened: " + failed);
            }
            await(cs, c -> c.ready, "every connection established and its descriptors exchanged", false, null);
            int key = spread(provider, cs, problems);
            // while the threads that made the groups' completion queues (the openers) live: the kernel names them
            kernelQueues(problems);
            threads = completionThreads(key, problems);
            long[] ids = ids(threads);
            int[] bounds = boundaries();
            windows = new long[bounds.length * ids.length];
            int done = 0;
            for (int k = 0; k < bounds.length; k++) {
                int bound = bounds[k];
                for (Connection c : cs) {
                    c.target = bound;
                    c.startRound();
                }
                await(cs, c -> c.completed >= bound, "rounds " + done + " to " + (bound - 1) + " on every connection",
                        false, null);
                KernelRdmaResources.awaitFile(dir().resolve("server-" + bound), (int) TIMEOUT_SECONDS);
                System.arraycopy(counter.bytes(ids), 0, windows, k * ids.length, ids.length);
                done = bound;
            }
            LOG.info("client: {} rounds on each of {} connections", bounds[WINDOWS], CONNECTIONS);

            for (Connection c : cs) {
                c.ep.disconnect();
            }
            await(cs, c -> c.cause != null, "every connection ended", true, null);
            for (Connection c : cs) {
                if (c.cause != DisconnectCause.LOCAL || c.disconnects != 1) {
                    problems.add("connection " + c.index + " ended " + c.disconnects + " time(s), " + c.cause + " ("
                            + c.detail + "), not once LOCAL");
                }
                c.ep.close();
            }
            callbacks(key, cs, problems);
            List<CompletionGroup> left = KernelRdmaResources.awaitState(() -> provider.completionGroups(key),
                    List::isEmpty, 30);
            if (!left.isEmpty()) {
                problems.add("groups left after every endpoint closed: " + describe(left));
            }
            // the openers still live: every object of this JVM is listed under a thread of it
            long pid = ProcessHandle.current().pid();
            Map<String, List<String>> held = KernelRdmaResources.awaitState(
                    () -> KernelRdmaResources.ofThreads(KernelRdmaResources.threadsOf(pid)),
                    h -> KernelRdmaResources.total(h) == 0, 60);
            LOG.info("client: the kernel lists for this JVM after every connection closed: {}", counts(held));
            if (KernelRdmaResources.total(held) != 0) {
                problems.add("the kernel still lists objects of this JVM (pid " + pid + ") after every connection"
                        + " closed: " + held);
            }
        } finally {
            openers.shutdownNow();
            for (Connection c : cs) {
                if (c.ep != null) {
                    c.ep.close();
                }
            }
            provider.shutdown();
            Files.writeString(dir().resolve("client-done"), "");
        }
        judge("client", threads, windows, problems);
    }

    private static Map<String, Integer> counts(Map<String, List<String>> held) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        held.forEach((k, v) -> counts.put(k, v.size()));
        return counts;
    }

    /** The device's counts of the kinds {@code rdma resource show KIND} lists (ctx left out). */
    private static Map<String, Integer> listed(Map<String, Integer> counts) {
        Map<String, Integer> l = new LinkedHashMap<>();
        KernelRdmaResources.LISTED.forEach(k -> l.put(k, counts.get(k)));
        return l;
    }

    /**
     * Waits (at most {@value #TIMEOUT_SECONDS} s) until {@code done} holds for every connection; fails
     * at once when one failed or, unless {@code ending}, ended, or when {@code abort} (if any) exists.
     */
    private static void await(List<Connection> cs, Predicate<Connection> done, String what, boolean ending, Path abort)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (true) {
            List<String> failed = new ArrayList<>();
            for (Connection c : cs) {
                if (c.failure != null) {
                    failed.add(c.failure);
                } else if (!ending && c.cause != null) {
                    failed.add("connection " + c.index + " ended " + c.cause + ": " + c.detail);
                }
            }
            if (!failed.isEmpty()) {
                throw new AssertionError(what + ": " + failed);
            }
            if (cs.stream().allMatch(done)) {
                return;
            }
            if (System.nanoTime() - deadline > 0 || abort != null && Files.exists(abort)) {
                throw new AssertionError(what + " not " + (abort != null && Files.exists(abort) ? "before " + abort
                        + " appeared" : "within " + TIMEOUT_SECONDS + " s") + ": " + cs.stream()
                                .filter(done.negate()).map(Connection::state).collect(Collectors.joining("; ")));
            }
            Thread.sleep(20);
        }
    }

    /**
     * The endpoints are spread {@code CONNECTIONS / GROUPS} per group over {@code GROUPS} live groups
     * of their device, group {@code i} with index {@code i} on completion vector {@code i} modulo the
     * device's; returns the device key.
     */
    private static int spread(VerbsRdmaProvider provider, List<Connection> cs, List<String> problems) {
        CompletionGroup firstGroup = cs.get(0).endpoint().group();
        int key = firstGroup.device().key();
        int vectors = firstGroup.device().completionVectors();
        List<CompletionGroup> groups = provider.completionGroups(key);
        LOG.info("{} endpoints on device {} ({} completion vector(s)): {}", cs.size(), key, vectors, describe(groups));
        if (groups.size() != GROUPS) {
            problems.add(groups.size() + " completion groups, not " + GROUPS + ": " + describe(groups));
        }
        for (int i = 0; i < groups.size(); i++) {
            CompletionGroup g = groups.get(i);
            if (g.index() != i || g.vector() != i % vectors || g.attachedCount() != CONNECTIONS / GROUPS) {
                problems.add("group " + i + " is not index " + i + " on vector " + i % vectors + " with "
                        + CONNECTIONS / GROUPS + " endpoints: " + describe(groups));
            }
        }
        Map<Integer, Integer> perGroup = new TreeMap<>();
        for (Connection c : cs) {
            CompletionGroup g = c.endpoint().group();
            if (g.device().key() != key || groups.stream().noneMatch(x -> x == g)) {
                problems.add("connection " + c.index + "'s group (device " + g.device().key() + ", index " + g.index()
                        + ") is not one of the live groups of device " + key);
            }
            perGroup.merge(g.index(), 1, Integer::sum);
        }
        Map<Integer, Integer> even = new TreeMap<>();
        for (int i = 0; i < GROUPS; i++) {
            even.put(i, CONNECTIONS / GROUPS);
        }
        if (!even.equals(perGroup)) {
            problems.add("endpoints per group index " + perGroup + ", not " + even);
        }
        return key;
    }

    private static String describe(List<CompletionGroup> groups) {
        return groups.stream().map(g -> "group " + g.index() + " (vector " + g.vector() + ", " + g.attachedCount()
                + " endpoints)").collect(Collectors.joining(", ", "[", "]"));
    }

    /** The kernel's ledger: at least {@code GROUPS} completion queues made by this JVM's threads. */
    private static void kernelQueues(List<String> problems) throws Exception {
        long pid = ProcessHandle.current().pid();
        Map<String, List<String>> held = KernelRdmaResources.ofThreads(KernelRdmaResources.threadsOf(pid));
        Map<String, Integer> counts = new LinkedHashMap<>();
        held.forEach((k, v) -> counts.put(k, v.size()));
        LOG.info("the kernel lists for this JVM (pid {}) while connected: {}; its completion queues: {}", pid, counts,
                held.get("cq"));
        if (held.get("cq").size() < GROUPS) {
            problems.add("rdma resource show cq lists " + held.get("cq").size()
                    + " completion queue(s) of this JVM (pid "
                    + pid + "), fewer than " + GROUPS + ": " + KernelRdmaResources.show("cq"));
        }
    }

    /** This JVM's completion threads: {@code smbdirect-verbs-cq-KEY-0} to {@code -(GROUPS - 1)}. */
    private static List<Thread> completionThreads(int key, List<String> problems) {
        List<Thread> threads = new ArrayList<>(AllocationCounter.threadsNamed(THREAD_PREFIX));
        threads.sort((a, b) -> a.getName().compareTo(b.getName()));
        Set<String> names = threads.stream().map(Thread::getName).collect(Collectors.toCollection(TreeSet::new));
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < GROUPS; i++) {
            expected.add(THREAD_PREFIX + key + "-" + i);
        }
        if (!names.equals(expected)) {
            problems.add("completion threads " + names + ", not " + expected);
        }
        return threads;
    }

    private static long[] ids(List<Thread> threads) {
        long[] ids = new long[threads.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = threads.get(i).getId();
        }
        return ids;
    }

    /**
     * Every callback of each endpoint ran on one thread, its group's ({@code smbdirect-verbs-cq-KEY-INDEX}),
     * {@code GROUPS} threads in all, each of {@code CONNECTIONS / GROUPS} endpoints; each posted receive
     * completed FLUSHED at the end.
     */
    private static void callbacks(int key, List<Connection> cs, List<String> problems) {
        Map<Thread, Integer> perThread = new LinkedHashMap<>();
        Map<Integer, Set<Thread>> perGroup = new TreeMap<>();
        long calls = 0;
        for (Connection c : cs) {
            Thread t = c.first;
            int index = c.endpoint().group().index();
            String expected = THREAD_PREFIX + key + "-" + index;
            calls += c.callbacks;
            if (t == null) {
                problems.add("connection " + c.index + " had no callback");
                continue;
            }
            if (c.other != null) {
                problems.add("connection " + c.index + "'s callbacks ran on " + t.getName() + " and on "
                        + c.other.getName());
            }
            if (!t.getName().equals(expected)) {
                problems.add("connection " + c.index + "'s callbacks ran on " + t.getName() + ", not on its group's "
                        + expected);
            }
            perThread.merge(t, 1, Integer::sum);
            perGroup.computeIfAbsent(index, i -> new HashSet<>()).add(t);
            if (c.flushed != SLOTS) {
                problems.add("connection " + c.index + ": " + c.flushed + " receives completed FLUSHED at the end,"
                        + " not the "
                        + SLOTS + " posted");
            }
        }
        Map<String, Integer> byName = new TreeMap<>();
        perThread.forEach((t, n) -> byName.put(t.getName(), n));
        LOG.info("{} callbacks on {} thread(s), endpoints per thread: {}", calls, perThread.size(), byName);
        if (perThread.size() != GROUPS || perThread.values().stream().anyMatch(n -> n != CONNECTIONS / GROUPS)) {
            problems.add("endpoints per callback thread " + byName + ", not " + CONNECTIONS / GROUPS + " on each of "
                    + GROUPS);
        }
        perGroup.forEach((g, ts) -> {
            if (ts.size() != 1) {
                problems.add("group " + g + "'s endpoints were called on " + ts.size() + " threads");
            }
        });
    }

    /**
     * Fails with the problems found, else unless one measured window shows 0 bytes allocated on every
     * completion thread; prints every window.
     */
    private static void judge(String side, List<Thread> threads, long[] snapshots, List<String> problems) {
        int n = threads.size();
        int[] bounds = boundaries();
        List<String> report = new ArrayList<>();
        boolean clean = false;
        for (int w = 0; w < WINDOWS; w++) {
            Map<String, Long> bytes = new LinkedHashMap<>();
            long sum = 0;
            for (int t = 0; t < n; t++) {
                long b = snapshots[(w + 1) * n + t] - snapshots[w * n + t];
                bytes.put(threads.get(t).getName(), b);
                sum += b;
            }
            clean |= sum == 0;
            report.add("rounds " + bounds[w] + " to " + (bounds[w + 1] - 1) + ": " + bytes);
        }
        LOG.info("{}: bytes allocated by the completion threads, {} connections, per window: {}", side, CONNECTIONS,
                report);
        assertEquals(List.of(), problems, side);
        assertTrue(n > 0 && clean, side + ": in one of " + WINDOWS + " windows of " + MEASURED_ROUNDS
                + " rounds (after "
                + WARM_ROUNDS + " warm-up rounds) on each of " + CONNECTIONS + " connections, no completion thread"
                + " allocates: " + report);
    }
}
