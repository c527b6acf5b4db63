package smbdirect.rdma.iwarp.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.IwarpStatistics;
import smbdirect.rdma.iwarp.internal.conformance.Events;
import smbdirect.rdma.iwarp.internal.conformance.RawPeer;

/**
 * The provider under test ("subject", one I/O thread, so that every connection shares it), a
 * listener on a free loopback port, and a {@link Bystander} connection from a second provider that
 * stays busy through the fault a test inflicts. It accounts for what the subject holds before the
 * fault (connections, endpoints, pending requests, registrations, listeners, the process's file
 * descriptors, and each I/O thread by identity) and checks that all of it comes back once the faulty connection is
 * gone, that no failure took the provider's internal-error path, and that the bystander kept
 * exchanging checked bytes.
 */
final class FaultRig implements AutoCloseable {

    static final int MPA_REQUEST_TIMEOUT_MILLIS = 400;
    private static final long SETTLE_SECONDS = 10;

    final IwarpProvider subject;
    final IwarpProvider helper;
    final InetSocketAddress address;
    final BlockingQueue<RdmaConnectRequest> requests = new LinkedBlockingQueue<>();
    final Bystander bystander = new Bystander();
    private final RdmaListener listener;
    private final List<RdmaEndpoint> endpoints = new ArrayList<>();
    private final RdmaEndpoint far;
    private Resources baseline;

    FaultRig(String name, IwarpSettings.Builder settings) throws Exception {
        this(name, settings, MPA_REQUEST_TIMEOUT_MILLIS);
    }

    /** A rig whose subject waits {@code mpaRequestTimeoutMillis} for an accepted connection's MPA Request. */
    FaultRig(String name, IwarpSettings.Builder settings, int mpaRequestTimeoutMillis) throws Exception {
        subject = IwarpProvider.open(name, settings.listenAddresses("127.0.0.1").ioThreads(1)
                .mpaRequestTimeoutMillis(mpaRequestTimeoutMillis).build());
        helper = IwarpProvider.open(name + "-helper", IwarpSettings.builder().listenAddresses("127.0.0.1").build());
        listener = subject.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                requests.add(request);
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                requests.add(new Failed(cause + " " + detail));
            }
        });
        address = listener.localAddress();
        far = helper.createEndpoint(Bystander.config(), bystander.farHandler());
        bystander.prepareFar(far);
        far.connect(address, Bystander.parameters());
        RdmaConnectRequest request = nextRequest();
        RdmaEndpoint near = track(request.createEndpoint(Bystander.config(), bystander.subjectHandler()));
        bystander.prepareSubject(near);
        near.accept(Bystander.parameters());
        bystander.awaitEstablished();
        bystander.awaitRounds(8);
        baseline = Resources.now(subject);
    }

    /** The connections the subject held before the fault (the bystander's). */
    int bystanderConnections() {
        return baseline.stats().connections();
    }

    FaultRig(String name) throws Exception {
        this(name, IwarpSettings.builder());
    }

    /** The listener failed (recorded as a request so that a test waiting for one sees it). */
    private record Failed(String why) implements RdmaConnectRequest {
        @Override
        public InetSocketAddress peerAddress() {
            throw new AssertionError("the listener failed: " + why);
        }

        @Override
        public InetSocketAddress localAddress() {
            throw new AssertionError("the listener failed: " + why);
        }

        @Override
        public ByteBuffer privateData() {
            throw new AssertionError("the listener failed: " + why);
        }

        @Override
        public int peerInboundReadDepth() {
            return 0;
        }

        @Override
        public int peerOutboundReadDepth() {
            return 0;
        }

        @Override
        public RdmaEndpoint createEndpoint(EndpointSettings config, smbdirect.api.rdma.RdmaEndpointHandler handler) {
            throw new AssertionError("the listener failed: " + why);
        }

        @Override
        public void reject(ByteBuffer privateData) {
        }
    }

    RdmaConnectRequest nextRequest() throws InterruptedException {
        RdmaConnectRequest r = requests.poll(RawPeer.TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        if (r == null) {
            fail("no connection request within " + RawPeer.TIMEOUT_MILLIS + " ms");
        }
        if (r instanceof Failed f) {
            fail("the listener failed: " + f.why);
        }
        return r;
    }

    /** No connection request reaches the listener's handler within {@code millis}. */
    void assertNoRequest(long millis) throws InterruptedException {
        RdmaConnectRequest r = requests.poll(millis, TimeUnit.MILLISECONDS);
        if (r != null) {
            fail("unexpected connection request " + r);
        }
    }

    synchronized RdmaEndpoint track(RdmaEndpoint ep) {
        endpoints.add(ep);
        return ep;
    }

    /** A subject endpoint accepted from the next request, with {@code receives} receives of {@code size} posted (wrIds 0..). */
    Accepted accept(int receives, int size, int ird, int ord) throws Exception {
        RdmaConnectRequest request = nextRequest();
        Events events = new Events();
        RdmaEndpoint ep = track(request.createEndpoint(new EndpointSettings(16, 16), events));
        MemoryRegion region = ep.register(ByteBuffer.allocateDirect(Math.max(1, receives * size)),
                EnumSet.of(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < receives; i++) {
            ep.postReceive(region, i * size, size, i);
        }
        ep.accept(new ConnectParameters(ByteBuffer.allocate(0), ird, ord));
        return new Accepted(ep, events, region);
    }

    /** A subject endpoint and what it reported. */
    record Accepted(RdmaEndpoint endpoint, Events events, MemoryRegion receives) {
    }

    /**
     * A raw initiator that completed the MPA handshake with the subject (revision 2, CRC as asked,
     * IRD/ORD 4) and the subject's endpoint, with {@code receives} receives of {@code size} bytes.
     */
    RawSession raw(boolean crc, int receives, int size) throws Exception {
        RawPeer peer = RawPeer.connect(address);
        peer.send(RawPeer.frame(RawPeer.KEY_REQ, (crc ? 0x40 : 0) | 0x10, 2, RawPeer.word(4, 4)));
        Accepted accepted = accept(receives, size, 4, 4);
        RawPeer.Frame reply = peer.readFrame();
        assertEquals(RawPeer.KEY_REP, reply.key());
        peer.crc = (reply.flags() & 0x40) != 0;
        accepted.events().awaitEstablished();
        return new RawSession(peer, accepted);
    }

    /** A raw peer in RDMA mode with the subject endpoint it talks to. */
    record RawSession(RawPeer peer, Accepted side) {
        RdmaEndpoint endpoint() {
            return side.endpoint();
        }

        Events events() {
            return side.events();
        }
    }

    /**
     * Every work request in {@code posted} (wrId, type) completed exactly once, with a status in
     * {@code allowed}; and the disconnect was the last callback, reported once.
     */
    static void assertCompletedOnce(Events events, Map<Long, CompletionStatus[]> posted) {
        Map<Long, Integer> seen = new HashMap<>();
        for (Events.Completion c : events.completions()) {
            seen.merge(c.wrId(), 1, Integer::sum);
            CompletionStatus[] allowed = posted.get(c.wrId());
            if (allowed == null) {
                fail("a completion for wrId " + c.wrId() + " that was never posted: " + c);
            }
            assertTrue(List.of(allowed).contains(c.status()), "wrId " + c.wrId() + " completed " + c.status()
                    + ", expected one of " + List.of(allowed));
        }
        for (Long wrId : posted.keySet()) {
            assertEquals(1, seen.getOrDefault(wrId, 0), "completions of wrId " + wrId + ": " + events.completions());
        }
        assertEquals(0, events.callbacksAfterDisconnect(), "callbacks after onDisconnected");
    }

    /** Receives 0..n-1 were flushed exactly once. */
    static Map<Long, CompletionStatus[]> flushedReceives(int n) {
        Map<Long, CompletionStatus[]> m = new HashMap<>();
        for (long i = 0; i < n; i++) {
            m.put(i, new CompletionStatus[] {CompletionStatus.FLUSHED});
        }
        return m;
    }

    /**
     * Closes the subject endpoints a test used and waits (bounded) until the subject holds what it
     * held before the fault, the process no more descriptors or provider threads, and checks the
     * bystander is still exchanging checked bytes.
     */
    void assertRecovered() throws Exception {
        synchronized (this) {
            for (RdmaEndpoint ep : endpoints.subList(1, endpoints.size())) {
                ep.close();
            }
            endpoints.subList(1, endpoints.size()).clear();
        }
        Resources.awaitBack(subject, baseline);
        bystander.awaitRounds(4);
        bystander.assertHealthy();
    }

    @Override
    public void close() throws Exception {
        try {
            bystander.stop();
            assertEquals(0, subject.statistics().internalErrors(), "internal errors: " + subject.statistics());
            assertEquals(0, helper.statistics().internalErrors(), "helper internal errors: " + helper.statistics());
        } finally {
            synchronized (this) {
                for (RdmaEndpoint ep : endpoints) {
                    ep.close();
                }
            }
            far.close();
            listener.close();
            subject.close();
            helper.close();
        }
        assertEquals(0, subject.statistics().connections(), "connections left: " + subject.statistics());
        assertEquals(0, helper.statistics().connections(), "helper connections left: " + helper.statistics());
    }

    /**
     * What the subject and the process hold at one moment: the subject's counters, the process's
     * file descriptors, and every I/O thread of any iWARP provider in the JVM, by identity.
     */
    record Resources(IwarpStatistics stats, long fileDescriptors, Set<Thread> ioThreads, String subjectThreads) {

        static Resources now(IwarpProvider p) throws IOException {
            return new Resources(p.statistics(), countDescriptors(), providerThreads(),
                    "smbdirect-iwarp-" + p.instanceName() + "-io-");
        }

        private static long countDescriptors() throws IOException {
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                return fds.count();
            }
        }

        /** The live I/O threads of every iWARP provider of the JVM (Thread has identity equality). */
        private static Set<Thread> providerThreads() {
            Set<Thread> out = new HashSet<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("smbdirect-iwarp-") && t.isAlive()) {
                    out.add(t);
                }
            }
            return out;
        }

        /**
         * Everything the faulty connection took is back: equal counts, no more descriptors, and each
         * I/O thread accounted for by identity: every thread alive now was alive at the baseline (an
         * I/O thread of a provider closed just before the baseline may have ended since, but no new
         * one took its place unseen), and each of the subject's own I/O threads is the very thread it
         * was.
         */
        boolean isBackTo(Resources b) {
            IwarpStatistics s = stats;
            IwarpStatistics t = b.stats;
            return s.connections() == t.connections() && s.endpoints() == t.endpoints()
                    && s.pendingRequests() == t.pendingRequests() && s.registrations() == t.registrations()
                    && s.listeners() == t.listeners() && s.internalErrors() == 0
                    && fileDescriptors <= b.fileDescriptors && b.ioThreads.containsAll(ioThreads)
                    && ioThreads.containsAll(b.subjectThreadsOf());
        }

        /** The subject's I/O threads among {@link #ioThreads}. */
        Set<Thread> subjectThreadsOf() {
            Set<Thread> out = new HashSet<>();
            for (Thread t : ioThreads) {
                if (t.getName().startsWith(subjectThreads)) {
                    out.add(t);
                }
            }
            return out;
        }

        /** The threads that are new since {@code b}, and the subject's threads of {@code b} that are gone. */
        String threadChanges(Resources b) {
            Set<String> added = new TreeSet<>();
            for (Thread t : ioThreads) {
                if (!b.ioThreads.contains(t)) {
                    added.add(t.getName() + "#" + t.getId());
                }
            }
            Set<String> lost = new TreeSet<>();
            for (Thread t : b.subjectThreadsOf()) {
                if (!ioThreads.contains(t)) {
                    lost.add(t.getName() + "#" + t.getId());
                }
            }
            return "I/O threads new since the baseline " + added + ", the subject's lost " + lost;
        }

        @Override
        public String toString() {
            return "Resources[" + stats + ", fileDescriptors=" + fileDescriptors + ", I/O threads=" + ioThreads.size()
                    + "]";
        }

        static void awaitBack(IwarpProvider p, Resources baseline) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
            Resources now = now(p);
            while (!now.isBackTo(baseline)) {
                if (System.nanoTime() - deadline > 0) {
                    fail("the subject did not give back what the fault took within " + SETTLE_SECONDS + " s: before "
                            + baseline + ", now " + now + "; " + now.threadChanges(baseline));
                }
                TimeUnit.MILLISECONDS.sleep(10); // polls a condition the provider's threads change; bounded above
                now = now(p);
            }
        }
    }
}
