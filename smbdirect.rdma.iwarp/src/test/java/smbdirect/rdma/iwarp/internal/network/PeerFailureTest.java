package smbdirect.rdma.iwarp.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.internal.IwarpDevice;
import smbdirect.rdma.iwarp.internal.conformance.Events;
import smbdirect.rdma.iwarp.internal.conformance.RawPeer;
import smbdirect.testsupport.AllocationCounter;

/**
 * The peer or the network fails under a connection of the provider that also carries a busy
 * {@link Bystander}: a peer process killed with SIGKILL while both sides stream RDMA Writes, a
 * connect refused, a reset (SO_LINGER 0) in the middle of an FPDU, and a peer that stops reading
 * while the provider has a full send queue. Each checks the disconnect cause, every posted request
 * completed exactly once, what the provider holds given back (connections, endpoints,
 * registrations, I/O threads, file descriptors), and the bystander unharmed.
 */
class PeerFailureTest {

    private static final Logger LOG = LoggerFactory.getLogger(PeerFailureTest.class);
    private static final long LIMIT_SECONDS = 60;
    /** What a loaded 2-vCPU machine may add to a timer of the provider before its thread runs it. */
    private static final Duration SCHEDULING_SLACK = Duration.ofSeconds(3);

    /**
     * A subject endpoint that keeps {@link StreamingPeer#DEPTH} RDMA Writes of 64 KiB in flight into
     * the peer's advertised registration and records every posted request and completion.
     */
    private static final class Streamer implements RdmaEndpointHandler {
        final Map<Long, CompletionStatus[]> posted = new HashMap<>();
        final Events events = new Events();
        RdmaEndpoint endpoint;
        MemoryRegion source;
        long sinkStag;
        long sinkBase;
        long sinkLength;
        private long next = 100;
        private long successes;

        /** The peer's registration, from the private data of its connection request. */
        void sink(ByteBuffer requestPrivateData) {
            sinkStag = requestPrivateData.getInt(0);
            sinkBase = requestPrivateData.getLong(4);
            sinkLength = requestPrivateData.getInt(12);
        }

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            events.onEstablished(peerPrivateData);
            for (int i = 0; i < StreamingPeer.DEPTH; i++) {
                post();
            }
        }

        private void post() {
            long wrId;
            synchronized (this) {
                wrId = next++;
                posted.put(wrId, new CompletionStatus[] {CompletionStatus.SUCCESS, CompletionStatus.FLUSHED});
            }
            long offset = ((wrId - 100) * StreamingPeer.WRITE) % (sinkLength - StreamingPeer.WRITE + 1);
            try {
                endpoint.postRdmaWrite(source, 0, StreamingPeer.WRITE, sinkBase + offset, (int) sinkStag, wrId);
            } catch (RdmaException e) {
                synchronized (this) {
                    posted.remove(wrId); // refused: the endpoint is ending
                }
            }
        }

        @Override
        public void onCompletion(WorkCompletion wc) {
            events.onCompletion(wc);
            if (wc.type() == WorkRequestType.RDMA_WRITE && wc.status() == CompletionStatus.SUCCESS) {
                synchronized (this) {
                    successes++;
                    notifyAll();
                }
                post();
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            events.onDisconnected(cause, detail, privateData);
        }

        synchronized void awaitSuccesses(long n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
            while (successes < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    fail("only " + successes + " RDMA Writes completed");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        synchronized Map<Long, CompletionStatus[]> postedSoFar() {
            return new HashMap<>(posted);
        }
    }

    @Test
    void aPeerProcessKilledMidTransferEndsOnlyItsConnectionAsPeer() throws Exception {
        try (FaultRig rig = new FaultRig("sigkill")) {
            String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
            Process peer = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", StreamingPeer.class.getName(), "127.0.0.1",
                    Integer.toString(rig.address.getPort()), Long.toString(LIMIT_SECONDS))
                    .redirectErrorStream(true).start();
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        lines.add(line);
                    }
                } catch (java.io.IOException e) {
                    lines.add("READ FAILED " + e);
                }
            }, "streaming-peer-output");
            reader.setDaemon(true);
            reader.start();
            try {
                RdmaConnectRequest request = rig.nextRequest();
                Streamer s = new Streamer();
                s.sink(request.privateData());
                s.endpoint = rig.track(request.createEndpoint(new EndpointSettings(StreamingPeer.DEPTH * 2, 4), s));
                ByteBuffer data = ByteBuffer.allocateDirect(StreamingPeer.WRITE);
                s.source = s.endpoint.register(data, EnumSet.of(MemoryAccess.LOCAL_WRITE));
                ByteBuffer sinkMemory = ByteBuffer.allocateDirect(StreamingPeer.REGION);
                MemoryRegion sink = s.endpoint.register(sinkMemory,
                        EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
                MemoryRegion receives = s.endpoint.register(ByteBuffer.allocateDirect(4 * 64),
                        EnumSet.of(MemoryAccess.LOCAL_WRITE));
                for (int i = 0; i < 4; i++) {
                    s.endpoint.postReceive(receives, i * 64, 64, i);
                }
                s.endpoint.accept(new ConnectParameters(StreamingPeer.advertise(sink), 4, 4));
                awaitLine(lines, "STREAMING");
                s.awaitSuccesses(32);
                assertEquals(1, sinkMemory.get(0), "the peer's first Write arrived (its byte 0)");
                peer.destroyForcibly(); // SIGKILL: the kernel ends the peer's socket
                assertTrue(peer.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS), "the peer process ends");
                assertEquals(137, peer.exitValue(), "killed by SIGKILL");
                DisconnectCause cause = s.events.awaitDisconnected();
                assertEquals(DisconnectCause.PEER, cause, s.events.detail());
                Map<Long, CompletionStatus[]> expected = s.postedSoFar();
                expected.putAll(FaultRig.flushedReceives(4));
                FaultRig.assertCompletedOnce(s.events, expected);
                LOG.info("SIGKILL mid-transfer: {} RDMA Writes completed before, detail: {}", s.successes,
                        s.events.detail());
                rig.assertRecovered();
            } finally {
                peer.destroyForcibly();
                peer.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void awaitLine(BlockingQueue<String> lines, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        StringBuilder seen = new StringBuilder();
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertNotNull(line, "no line '" + prefix + "' from the peer process; it wrote:\n" + seen);
            if (line.startsWith(prefix)) {
                return;
            }
            seen.append(line).append('\n');
        }
    }

    @Test
    void aRefusedConnectIsUnreachableAndFlushesItsReceivesOnce() throws Exception {
        try (FaultRig rig = new FaultRig("refused")) {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort(); // free now, closed below: nothing listens there
            }
            Events events = new Events();
            RdmaEndpoint ep = rig.track(rig.subject.createEndpoint(new EndpointSettings(4, 4), events));
            MemoryRegion receives = ep.register(ByteBuffer.allocateDirect(128), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            ep.postReceive(receives, 0, 64, 0);
            ep.postReceive(receives, 64, 64, 1);
            ep.connect(new InetSocketAddress("127.0.0.1", port), new ConnectParameters(ByteBuffer.allocate(0), 4, 4));
            assertEquals(DisconnectCause.UNREACHABLE, events.awaitDisconnected(), events.detail());
            assertTrue(events.detail().contains(Integer.toString(port)), events.detail());
            FaultRig.assertCompletedOnce(events, FaultRig.flushedReceives(2));
            assertThrows(RdmaException.class, () -> ep.postReceive(receives, 0, 64, 9), "no post after the end");
            rig.assertRecovered();
        }
    }

    @Test
    void aResetInTheMiddleOfAnFpduEndsTheConnectionAsPeerAndFlushesOnce() throws Exception {
        try (FaultRig rig = new FaultRig("reset")) {
            FaultRig.RawSession s = rig.raw(true, 4, 256);
            MemoryRegion sends = s.endpoint().register(ByteBuffer.allocateDirect(256), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            s.endpoint().postSend(sends, 0, 200, 10); // waits for the initiator's first FPDU
            byte[] fpdu = s.peer().fpdu(RawPeer.send(1, 0, true, new byte[200]));
            s.peer().send(java.util.Arrays.copyOf(fpdu, 30));
            s.peer().resetNow();
            assertEquals(DisconnectCause.PEER, s.events().awaitDisconnected(), s.events().detail());
            Map<Long, CompletionStatus[]> expected = FaultRig.flushedReceives(4);
            expected.put(10L, new CompletionStatus[] {CompletionStatus.FLUSHED});
            FaultRig.assertCompletedOnce(s.events(), expected);
            rig.assertRecovered();
        }
    }

    @Test
    void aResetWhileTheProviderTransmitsEndsTheConnectionAsPeerAndCompletesEveryWriteOnce() throws Exception {
        try (FaultRig rig = new FaultRig("reset-tx")) {
            FaultRig.RawSession s = rig.raw(false, 4, 256);
            s.peer().send(s.peer().fpdu(RawPeer.send(1, 0, true, new byte[8]))); // opens the responder's gate
            s.events().awaitCompletions(1);
            MemoryRegion source = s.endpoint().register(ByteBuffer.allocateDirect(1 << 20),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE));
            Map<Long, CompletionStatus[]> expected = new HashMap<>(FaultRig.flushedReceives(4));
            expected.put(0L, new CompletionStatus[] {CompletionStatus.SUCCESS});
            for (long i = 0; i < 16; i++) {
                s.endpoint().postRdmaWrite(source, 0, 1 << 20, 0x1000, 0x1234, 100 + i);
                expected.put(100 + i, new CompletionStatus[] {CompletionStatus.SUCCESS, CompletionStatus.FLUSHED});
            }
            s.peer().resetNow(); // unread data in the peer's socket: the close is a reset
            assertEquals(DisconnectCause.PEER, s.events().awaitDisconnected(), s.events().detail());
            FaultRig.assertCompletedOnce(s.events(), expected);
            rig.assertRecovered();
        }
    }

    @Test
    void aPeerThatStopsReadingBlocksOnlyItsOwnQueueWithBoundedMemoryAndStillClosesInBoundedTime() throws Exception {
        try (FaultRig rig = new FaultRig("stuck", IwarpSettings.builder().sendBufferSize(65536))) {
            FaultRig.RawSession s = rig.raw(false, 4, 256);
            s.peer().send(s.peer().fpdu(RawPeer.send(1, 0, true, new byte[8])));
            s.events().awaitCompletions(1);
            int size = 128 * 1024;
            MemoryRegion source = s.endpoint().register(ByteBuffer.allocateDirect(size), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            Map<Long, CompletionStatus[]> expected = new HashMap<>(FaultRig.flushedReceives(4));
            expected.put(0L, new CompletionStatus[] {CompletionStatus.SUCCESS});
            // post until the send queue (16) is full: the peer reads nothing, so TCP soon takes nothing more
            // and the queue stops draining; a post is then refused, nothing is queued beyond the queue
            RdmaException full = null;
            long posted = 0;
            while (full == null) {
                assertTrue(posted < 1000, "1000 RDMA Writes of 128 KiB went into a connection whose peer reads nothing");
                try {
                    s.endpoint().postRdmaWrite(source, 0, size, 0x1000, 0x1234, 100 + posted);
                    expected.put(100 + posted, new CompletionStatus[] {CompletionStatus.SUCCESS, CompletionStatus.FLUSHED});
                    posted++;
                } catch (RdmaException e) {
                    full = e;
                }
            }
            assertTrue(full.getMessage().contains("send queue is full"), full.getMessage());
            // while the peer reads nothing, the bystander on the same I/O thread goes on; measure what the
            // stuck connection costs: direct memory beyond the test's registrations, bytes the I/O thread allocates
            Thread io = ioThread("smbdirect-iwarp-stuck-io-0");
            AllocationCounter threads = AllocationCounter.enabled();
            long allocatedBefore = threads.bytes(io.getId());
            long directStuck = directMemoryUsed();
            long completedBefore = s.events().completions().stream().filter(c -> c.wrId() >= 100).count();
            long roundsBefore = rig.bystander.rounds();
            rig.bystander.awaitRounds(200);
            long allocated = threads.bytes(io.getId()) - allocatedBefore;
            long directGrowth = directMemoryUsed() - directStuck;
            long completed = s.events().completions().stream().filter(c -> c.wrId() >= 100).count();
            LOG.info("peer stopped reading: {} of {} RDMA Writes of 128 KiB handed to TCP, 16 queued; while {} bystander"
                    + " rounds ran, {} more completed, the I/O thread allocated {} bytes and direct memory grew by {} bytes",
                    completed, posted, rig.bystander.rounds() - roundsBefore, completed - completedBefore, allocated,
                    directGrowth);
            assertTrue(completed + 16 >= posted && completed < posted, completed + " of " + posted
                    + " Writes completed: the queue must stay blocked while the peer reads nothing");
            assertTrue(directGrowth <= 0, "direct memory grew by " + directGrowth + " bytes while blocked");
            assertTrue(allocated < 64 * 1024, "the I/O thread allocated " + allocated + " bytes while blocked");
            // closing still works, in bounded time: every request completes once, LOCAL, at once (while the
            // provider still holds the stuck TCP connection), and the socket is released at the close linger
            int before = rig.bystanderConnections();
            AtomicInteger heldWhenTold = new AtomicInteger(-1);
            s.events().atDisconnect(() -> heldWhenTold.set(rig.subject.statistics().connections()));
            long start = System.nanoTime();
            s.endpoint().disconnect();
            assertEquals(DisconnectCause.LOCAL, s.events().awaitDisconnected());
            long told = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(heldWhenTold.get() > before, "onDisconnected waited for the stuck connection to be released: "
                    + heldWhenTold.get() + " connections held then, " + before + " besides it");
            FaultRig.assertCompletedOnce(s.events(), expected);
            s.endpoint().close();
            // the peer still holds its end, unread: the release comes with the linger deadline
            Duration bound = IwarpDevice.CLOSE_LINGER.plus(SCHEDULING_SLACK);
            while (rig.subject.statistics().connections() > before) {
                assertTrue(System.nanoTime() - start < bound.toNanos(), "the connection is not released within the"
                        + " close linger " + IwarpDevice.CLOSE_LINGER + " and " + SCHEDULING_SLACK + " of slack");
                TimeUnit.MILLISECONDS.sleep(5); // polls a condition the provider's thread changes; bounded above
            }
            long released = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            LOG.info("peer stopped reading: disconnect reported after {} ms, the connection released after {} ms",
                    told, released);
            s.peer().close();
            rig.assertRecovered();
        }
    }

    private static long directMemoryUsed() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new AssertionError("no direct buffer pool");
    }

    private static Thread ioThread(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread " + name));
    }
}
