package smbdirect.interop.fileserver;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.example.fileserver.FileServer;
import smbdirect.example.fileserver.FileServerSettings;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.verbs.WireRecorder;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * Inside the siw VM's guest ({@code CifsMountsFileServerOverVerbsInVmTest} starts it on siw0, then
 * on rxe0, with cifs loaded): the reference file server over the verbs provider (rdma-core) on the
 * guest's RDMA device, listening on 10.0.2.15:5445 on iWARP and :445 otherwise (the ports cifs
 * dials), and cifs in the same kernel mounting it with {@code -o rdma}: SMB 3.1.1 and 3.0.2 with the
 * account, 3.1.1 as guest. On each mount the file round trips of {@code cifs-io.sh} (dd, also
 * O_DIRECT, cat, cp, mv, rm, stat, ls, mkdir, rmdir) hash as their sources, the served files hash as
 * the guest's sources, DebugData shows the connection on SMB Direct, each mount's connections ended
 * with its unmount but for those cifs replaced after the server ended them for an empty message
 * between the fragments of one message ({@link MountConnections}), the server moved the data of
 * every READ and WRITE by RDMA Write and RDMA Read ([MS-SMB2] 3.3.5.12, 3.3.5.13) and invalidated
 * each token with a Send with Invalidate; after each unmount the server holds no connection and
 * {@code rdma resource show} is back to what it was before the mount. Then the faults of a mounted
 * share ({@link #faults}: a read killed mid-transfer and a forced unmount, the server closing a
 * connection mid-write), after which the others go on and everything of the ended connections is
 * released; after the server and the provider closed, {@code rdma resource show} is back to what it
 * was before either existed.
 */
@Tag(GuestJUnit.GUEST_TAG)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FileServerOverVerbsInGuest {

    private static final Logger LOG = LoggerFactory.getLogger(FileServerOverVerbsInGuest.class);
    private static final String SHARE = "share";
    private static final String USER = "fsuser";
    private static final String PASSWORD = "Fs-Pass-1";
    private static final String ACCOUNT = "username=" + USER + ",password=" + PASSWORD;
    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;

    /** One mount: its tag, mount options and file sizes. */
    record Mount(String tag, String options, long[] sizes) {
    }

    private static final List<Mount> MOUNTS = List.of(
            new Mount("v311", "rdma,vers=3.1.1," + ACCOUNT, new long[] {0, 4 * KIB, MIB, 8 * MIB, 64 * MIB}),
            new Mount("v302", "rdma,vers=3.0.2," + ACCOUNT, new long[] {0, 4 * KIB, MIB}),
            new Mount("vguest", "rdma,vers=3.1.1,guest", new long[] {0, 4 * KIB, MIB}));

    private ScheduledExecutorService timers;
    private RdmaProvider verbs;
    private SmbDirectEngine engine;
    private FileServer server;
    private WireRecorder wire;
    private AcceptedConnections accepted;
    private Path served;
    private String device;
    private RdmaCapabilities verbsCapabilities;
    private String verbsSettings;

    private String baselineBefore;
    private String baselineServing;
    private final List<String> out = new ArrayList<>();
    private final Map<String, Integer> connectionsAfterUmount = new LinkedHashMap<>();
    /** Per mount: its connections and why each ended. */
    private final Map<String, MountConnections> mountConnections = new LinkedHashMap<>();
    /** Per mount: its connections as the wire recorder saw them (the same connections, in the same order). */
    private final Map<String, List<WireRecorder.Connection>> mountWire = new LinkedHashMap<>();
    private final Map<String, Map<String, Map<String, Long>>> resourcesAfterUmount = new LinkedHashMap<>();
    private Map<String, Map<String, Long>> resourcesAfterClose;
    /** This JVM's own RDMA objects (user space's): while serving before the first mount, after each unmount, after closing. */
    private Map<String, Long> ownServing;
    private final Map<String, Map<String, Long>> ownAfterUmount = new LinkedHashMap<>();
    private Map<String, Long> ownAfterClose;
    private Throwable failure;

    // the faults, after the mounts: y, z and x mounted at once, each its own connection (nosharesock)
    private static final long BIG = 64 * MIB;
    private static final String BIG_SOURCE = "/tmp/fsio-src-" + BIG;
    private final List<String> faultsOut = new ArrayList<>();
    private Map<String, Map<String, Long>> resourcesYz;
    private Map<String, Map<String, Long>> resourcesXGone;
    private Map<String, Map<String, Long>> resourcesFaultsEnd;
    private Map<String, Long> ownFaultsEnd;
    private int connectionsYz = -1;
    private int connectionsXGone = -1;
    private int connectionsFaultsEnd = -1;
    /** The connection the server closed while y wrote, and whether y's dd was still writing then. */
    private ServerClose serverClose;
    private Throwable faultFailure;

    /** The connection the server closed mid-write: its id, its messages and RDMA Reads then, y's dd still running. */
    record ServerClose(long connectionId, long messagesReceived, long rdmaReads, boolean writerRunning) {
    }

    @BeforeAll
    void mountAndMove() throws Exception {
        baselineBefore = shell("rdma resource show", 30);
        timers = Executors.newSingleThreadScheduledExecutor();
        // the provider's defaults: cifs needs its token invalidated by every READ and WRITE response
        // (SMB2_CHANNEL_RDMA_V1_INVALIDATE), and siw and rxe post Send with Invalidate by themselves
        verbs = GuestVerbs.provider();
        device = System.getProperty("smbdirect.verbs.device", "?");
        verbsCapabilities = verbs.capabilities();
        verbsSettings = verbs.describeSettings();
        wire = new WireRecorder(verbs);
        engine = new SmbDirectEngine(wire, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        int port = verbs.transportType() == TransportType.IWARP ? 5445 : 445;
        served = Files.createTempDirectory("served");
        Path script = CifsIo.writeScript(Paths.get("/tmp/cifs-io.sh"));
        accepted = new AcceptedConnections(engine);
        server = FileServer.start(accepted, new FileServerSettings(SHARE, served,
                new InetSocketAddress(GuestVerbs.GUEST_ADDRESS, port), false, USER, PASSWORD, true));
        LOG.info("file server on {} over {} ({}, {}), serving {}", server.listenAddress(), device, verbs.transportType(),
                verbs.describeSettings(), served);
        GuestVerbs.awaitCmListener(port);
        baselineServing = shell("rdma resource show", 30);
        ownServing = ownResources();
        String unc = "//" + GuestVerbs.GUEST_ADDRESS + "/" + SHARE;
        try {
            for (Mount m : MOUNTS) {
                String mnt = "/mnt/" + m.tag();
                int acceptedBefore = accepted.accepted().size();
                int wireBefore = wire.connections().size();
                String lines = shell(String.join("\n",
                        CifsIo.mount(m.tag(), unc, mnt, m.options(), 120),
                        CifsIo.io(script.toString(), mnt, m.tag(), m.sizes()),
                        CifsIo.report(m.tag()),
                        CifsIo.umount(m.tag(), mnt)), 900);
                out.addAll(lines.lines().toList());
                awaitNoConnection(m.tag());
                connectionsAfterUmount.put(m.tag(), server.connections());
                List<SmbDirectConnection> mine = accepted.accepted().subList(acceptedBefore, accepted.accepted().size());
                mountConnections.put(m.tag(), new MountConnections(m.tag(), mine.stream().map(accepted::closeReason)
                        .toList()));
                List<WireRecorder.Connection> all = wire.connections();
                mountWire.put(m.tag(), all.subList(wireBefore, all.size()));
                LOG.info("{}: {} connections, ended: {}", m.tag(), mine.size(), mountConnections.get(m.tag()).reasons());
                resourcesAfterUmount.put(m.tag(), awaitResources(CifsIo.resources(baselineServing.lines().toList())));
                ownAfterUmount.put(m.tag(), ownResources());
            }
        } catch (Exception | AssertionError e) {
            failure = e;
            LOG.warn("the mounts stopped: {}", e.toString());
        }
        try {
            if (failure == null) {
                faults(unc);
            }
        } catch (Exception | AssertionError e) {
            faultFailure = e;
            LOG.warn("the faults stopped: {}", e.toString());
        } finally {
            closeAll();
        }
        resourcesAfterClose = awaitResources(afterClose(baselineBefore));
        ownAfterClose = ownResources();
    }

    /**
     * The faults of a mounted share, as over the host's iWARP provider
     * ({@code CifsMountsFileServerOverIwarpTest}): y (3.0.2, the account) and z (3.1.1, guest) stay
     * mounted; x (3.1.1, the account) gets a 64 MiB file, a direct read of it is killed with SIGKILL
     * once 4 MiB are in and x is force-unmounted ({@code umount -f}); z then does its round trips.
     * While y writes 64 MiB with O_DIRECT, the server closes y's connection from its side (as a
     * failing server would); z does its round trips, cifs reconnects y and y does its own; y and z
     * are unmounted.
     */
    private void faults(String unc) throws Exception {
        faultShell(String.join("\n",
                CifsIo.mount("y", unc, "/mnt/y", "rdma,vers=3.0.2,nosharesock," + ACCOUNT, 120),
                CifsIo.mount("z", unc, "/mnt/z", "rdma,vers=3.1.1,nosharesock,guest", 120)), 300);
        awaitConnections(2, "y and z mounted");
        connectionsYz = server.connections();
        resourcesYz = CifsIo.resources(shell("rdma resource show", 30).lines().toList());
        faultShell(String.join("\n",
                CifsIo.mount("x", unc, "/mnt/x", "rdma,vers=3.1.1,nosharesock," + ACCOUNT, 120),
                "[ -f " + BIG_SOURCE + " ] || head -c " + BIG + " /dev/urandom > " + BIG_SOURCE,
                "dd if=" + BIG_SOURCE + " of=/mnt/x/big bs=1M oflag=direct 2>/dev/null; echo \"x big rc=$?\"",
                // the guest kills a direct read mid-transfer (once 4 MiB are in), then force-unmounts
                "dd if=/mnt/x/big of=/dev/null bs=1M iflag=direct 2>/dev/null & XDD=$!",
                "i=0; until [ \"$(awk '/^rchar/ {print $2}' /proc/$XDD/io 2>/dev/null || echo 0)\" -gt 4194304 ]; do"
                        + " i=$((i+1)); [ $i -gt 1200 ] && break; kill -0 $XDD 2>/dev/null || break; sleep 0.05; done",
                "echo \"x read killed after $(awk '/^rchar/ {print $2}' /proc/$XDD/io 2>/dev/null) bytes\"; kill -9 $XDD",
                // the killed reader is gone before the forced unmount (a file still open there trips
                // Linux 6.1's "Busy inodes after unmount" in cifs_kill_sb)
                "wait $XDD; echo 'x reader gone'",
                "timeout 60 umount -f /mnt/x; echo \"umount x rc=$?\""), 600);
        awaitConnections(2, "x force-unmounted, y and z mounted");
        connectionsXGone = server.connections();
        resourcesXGone = awaitResources(resourcesYz);
        faultShell(CifsIo.io("/tmp/cifs-io.sh", "/mnt/z", "zafterx", MIB), 300);
        Process writer = new ProcessBuilder("sh", "-c", "dd if=" + BIG_SOURCE
                + " of=/mnt/y/w bs=1M oflag=direct 2>/tmp/ydd.err; echo \"y write rc=$?\"; sed 's/^/y write: /' /tmp/ydd.err")
                .redirectErrorStream(true).start();
        StringBuilder written = new StringBuilder();
        Thread reader = new Thread(() -> {
            try {
                written.append(new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                written.append("(output lost: ").append(e).append(')');
            }
        });
        reader.start();
        try {
            serverClose = closeTheWritingConnection(writer);
        } finally {
            if (!writer.waitFor(600, TimeUnit.SECONDS)) {
                writer.destroyForcibly();
            }
            reader.join(10_000);
            written.toString().strip().lines().forEach(l -> {
                LOG.info("| {}", l);
                faultsOut.add(l);
            });
        }
        faultShell(String.join("\n",
                CifsIo.io("/tmp/cifs-io.sh", "/mnt/z", "zaftery", MIB),
                CifsIo.io("/tmp/cifs-io.sh", "/mnt/y", "yafter", 4 * KIB, MIB),
                CifsIo.umount("y", "/mnt/y"),
                CifsIo.umount("z", "/mnt/z")), 600);
        awaitNoConnection("y and z");
        connectionsFaultsEnd = server.connections();
        resourcesFaultsEnd = awaitResources(CifsIo.resources(baselineServing.lines().toList()));
        ownFaultsEnd = ownResources();
    }

    /** Runs guest shell lines of the faults, keeping their output. */
    private void faultShell(String command, int seconds) throws IOException, InterruptedException {
        faultsOut.addAll(shell(command, seconds).lines().toList());
    }

    /**
     * Waits until one of the server's open connections has received at least 8 more messages since y
     * began to write (its WRITE requests arriving), then closes that connection from the server's
     * side: mid-write.
     */
    private ServerClose closeTheWritingConnection(Process writer) throws Exception {
        Map<Long, Long> before = new LinkedHashMap<>();
        for (SmbDirectConnection c : accepted.open()) {
            before.put(c.id(), c.getConnectionDTO().messagesReceived);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (System.nanoTime() - deadline < 0 && writer.isAlive()) {
            for (SmbDirectConnection c : accepted.open()) {
                smbdirect.api.dto.ConnectionDTO d = c.getConnectionDTO();
                if (d.messagesReceived >= before.getOrDefault(c.id(), 0L) + 8) {
                    boolean running = writer.isAlive();
                    LOG.info("closing connection {} from the server's side mid-write: {} messages received, {} RDMA "
                            + "Reads, y's dd {}", c.id(), d.messagesReceived, d.rdmaReads, running ? "writing" : "ended");
                    c.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
                    return new ServerClose(c.id(), d.messagesReceived, d.rdmaReads, running);
                }
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling the server's counters, not waiting for an event
        }
        throw new AssertionError("no connection received y's WRITEs while it wrote (y's dd "
                + (writer.isAlive() ? "still running" : "ended") + ")");
    }

    private void awaitConnections(int expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.connections() != expected && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(50); // polling the server's counter
        }
        LOG.info("{}: {} connections", what, server.connections());
    }

    @AfterAll
    void closeAll() throws Exception {
        if (server != null) {
            server.close();
            server = null;
        }
        if (engine != null) {
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end")).toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            engine = null;
        }
        if (verbs != null) {
            GuestVerbs.shutdown(verbs);
            verbs = null;
        }
        if (timers != null) {
            timers.shutdownNow();
            timers = null;
        }
    }

    /**
     * The served directory and the script's sources go once every check ran: the guest's files live
     * in its memory, and the next device's launch (its 64 MiB files among them) needs the room.
     */
    @AfterAll
    void removeTheFiles() throws IOException, InterruptedException {
        if (served != null) {
            shell("rm -rf '" + served + "' /tmp/fsio-src-* /tmp/ydd.err", 60);
        }
    }

    private void awaitNoConnection(String tag) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.connections() != 0 && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(50); // polling the server's counter
        }
        LOG.info("after umount {}: {} connections", tag, server.connections());
    }

    /** {@code rdma resource show}'s counts once they equal {@code expected} (at most 30 s), else as they are then. */
    private static Map<String, Map<String, Long>> awaitResources(Map<String, Map<String, Long>> expected)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String now = shell("rdma resource show", 30);
        while (!CifsIo.resources(now.lines().toList()).equals(expected) && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(200); // polling the kernel's resource table
            now = shell("rdma resource show", 30);
        }
        LOG.info("rdma resource show: {}", now);
        return CifsIo.resources(now.lines().toList());
    }

    /**
     * This JVM's RDMA objects by kind: the lines of {@code rdma resource show KIND} that a process
     * owns ({@link CifsIo#ownedByAProcess}). The pid named is that of the thread that created the
     * object, not the JVM's, so every user-space object counts: this JVM is the guest's only RDMA
     * process while it runs. So the provider's resources are told from the kernel client's.
     */
    private static Map<String, Long> ownResources() throws IOException, InterruptedException {
        Map<String, Long> out = new LinkedHashMap<>();
        StringBuilder lines = new StringBuilder();
        for (String kind : CifsIo.RDMA_OBJECT_KINDS) {
            String shown = shell("rdma resource show " + kind, 30);
            out.put(kind, shown.lines().filter(CifsIo::ownedByAProcess).count());
            shown.lines().limit(4).forEach(l -> lines.append("\n  ").append(kind).append(": ").append(l));
        }
        LOG.info("this JVM's RDMA objects: {} (first lines of each kind:{})", out, lines);
        return out;
    }

    /**
     * What {@code rdma resource show} counts once the provider closed: {@code before} plus the one
     * device context librdmacm keeps until the process exits (see
     * {@link #closingTheServerAndTheProviderReleasesEveryRdmaResourceButLibrdmacmsDeviceContext}).
     */
    private Map<String, Map<String, Long>> afterClose(String before) {
        Map<String, Map<String, Long>> expected = new LinkedHashMap<>();
        CifsIo.resources(before.lines().toList()).forEach((dev, counts) -> {
            Map<String, Long> c = new LinkedHashMap<>(counts);
            if (dev.equals(device)) {
                c.merge("ctx", 1L, Long::sum);
            }
            expected.put(dev, c);
        });
        return expected;
    }

    private static String shell(String command, int seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
        StringBuilder b = new StringBuilder();
        Thread reader = new Thread(() -> {
            try {
                b.append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                b.append("(output lost: ").append(e).append(')');
            }
        });
        reader.start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            reader.join(10_000);
            throw new AssertionError(command.lines().findFirst().orElse(command) + "...: killed after " + seconds
                    + " s; output:\n" + b);
        }
        reader.join(10_000);
        String s = b.toString().strip();
        if (!command.startsWith("rdma resource show")) {
            s.lines().forEach(l -> LOG.info("| {}", l));
        }
        return s;
    }

    private String on() {
        return " (" + device + ")";
    }

    private void ran() {
        assertEquals(null, failure, () -> "the mounts ran to their end" + on() + ": " + failure);
    }

    @Test
    void everyMountSucceedsAndEveryUnmountToo() {
        ran();
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            checks.add(() -> assertEquals(0, CifsIo.status(out, "mount", m.tag()), "mount " + m.tag() + on()));
            checks.add(() -> assertEquals(0, CifsIo.status(out, "umount", m.tag()), "umount " + m.tag() + on()));
        }
        assertAll(checks);
    }

    /** Every write and read hashes as its source ([MS-SMB2] 3.3.5.12, 3.3.5.13). */
    @Test
    void everyRoundTripReadsBackWhatWasWritten() {
        ran();
        List<CifsIo.Step> steps = CifsIo.steps(out);
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            checks.addAll(CifsIo.roundTrips(steps, m.tag(), m.sizes()));
            checks.add(() -> assertTrue(out.contains("fsio " + m.tag() + " done"), m.tag() + ": the script ended" + on()));
        }
        assertAll(checks);
    }

    /** cat (sendfile) of each file gives its bytes ({@link CifsIo#judgeCat} says when cifs 6.1 does not). */
    @Test
    void catGivesEachFilesBytes() {
        ran();
        List<CifsIo.Step> steps = CifsIo.steps(out);
        List<CifsIo.CatRead> reads = new ArrayList<>();
        for (Mount m : MOUNTS) {
            reads.addAll(CifsIo.catReads(steps, m.tag(), m.sizes()));
        }
        CifsIo.judgeCat(reads, on());
    }

    @Test
    void theServedFilesHashAsTheGuestsSources() throws Exception {
        ran();
        List<CifsIo.Step> steps = CifsIo.steps(out);
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            Map<String, String> written = CifsIo.written(steps, m.tag());
            Map<String, String> files = CifsIo.served(served.resolve(m.tag()));
            checks.add(() -> assertEquals(2 * m.sizes().length, written.size(), m.tag() + ": sources " + written));
            checks.add(() -> assertEquals(written, files, m.tag() + ": the files in the served directory" + on()));
        }
        assertAll(checks);
    }

    /** DebugData: each mount on SMB Direct 0x0100, connected, its dialect, unsigned, RDMA I/O from 4 KiB. */
    @Test
    void debugDataShowsEachMountOnSmbDirect() {
        ran();
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            checks.add(() -> {
                List<String> debug = CifsIo.section(out, "DEBUGDATA", m.tag());
                assertNotNull(debug, m.tag() + ": DebugData printed");
                List<CifsIo.SmbdConnection> c = CifsIo.smbdConnections(debug);
                assertEquals(1, c.size(), m.tag() + ": one SMB Direct connection in\n" + String.join("\n", debug));
                CifsIo.SmbdConnection d = c.get(0);
                assertAll(
                        () -> assertEquals(0x100, d.protocol()),
                        () -> assertEquals(CifsIo.SMBD_CONNECTED, d.transportStatus()),
                        () -> assertEquals(m.options().contains("3.0.2") ? 0x302 : 0x311, d.dialect()),
                        () -> assertTrue(d.rdma()),
                        () -> assertFalse(d.signed()),
                        () -> assertEquals(4 * KIB, d.rdmaReadWriteThreshold()));
                // a request in flight when the server ended a connection for cifs's interleaved empty
                // message counts as failed in Stats before cifs sends it again on its new connection
                long[] rw = CifsIo.readsAndWrites(CifsIo.section(out, "STATS", m.tag()));
                boolean reconnected = reconnectsOf(m.tag()) > 0;
                assertTrue(rw[0] > 0 && rw[2] > 0 && (reconnected || rw[1] == 0 && rw[3] == 0),
                        m.tag() + ": Stats " + Arrays.toString(rw) + (reconnected ? " (reconnected)" : ""));
            });
        }
        assertAll(checks);
    }

    /**
     * Each mount's connections ended with its unmount, but for any that cifs replaced after the server
     * ended it for an empty message between the fragments of one message ({@link MountConnections}
     * says why that one way is taken, and how often).
     */
    @Test
    void eachMountsConnectionsEndedWithItsUnmountOrForCifsInterleavingAnEmptyMessage() {
        ran();
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            checks.add(() -> {
                MountConnections c = mountConnections.get(m.tag());
                int reconnects = c.reconnects(on());
                LOG.info("{}{}: {} connections, {} replaced by cifs after an interleaved empty message: {}", m.tag(),
                        on(), c.reasons().size(), reconnects, c.reasons());
            });
        }
        assertAll(checks);
    }

    /** The mount's connections replaced by cifs ({@link MountConnections#reconnects}), 0 where that check fails. */
    private int reconnectsOf(String tag) {
        try {
            return mountConnections.get(tag).reconnects(on());
        } catch (AssertionError e) {
            return 0;
        }
    }

    /**
     * The server moved every READ's and WRITE's data of 4 KiB or more by RDMA Write and RDMA Read
     * over the verbs, summed over the mount's connections, and invalidated every token it used with a
     * Send with Invalidate (SMB2_CHANNEL_RDMA_V1_INVALIDATE) on the connection the mount ended on. A
     * connection the server ended for cifs's interleaved empty message may have used tokens whose
     * responses it never sent: cifs deregisters those itself when it reconnects; they are counted.
     */
    @Test
    void theServerMovedTheDataByRdmaAndInvalidatedEveryTokenItUsed() {
        ran();
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            List<WireRecorder.Connection> cs = mountWire.get(m.tag());
            checks.add(() -> assertEquals(mountConnections.get(m.tag()).reasons().size(), cs.size(), m.tag()
                    + ": the mount's connections as the server accepted them and as the wire recorder saw them" + on()));
            if (cs.isEmpty()) {
                continue;
            }
            long big = Arrays.stream(m.sizes()).filter(x -> x >= 4 * KIB).sum();
            long writes = cs.stream().flatMap(c -> c.rdma.stream()).filter(WireRecorder.Rdma::write)
                    .mapToLong(WireRecorder.Rdma::length).sum();
            long reads = cs.stream().flatMap(c -> c.rdma.stream()).filter(r -> !r.write())
                    .mapToLong(WireRecorder.Rdma::length).sum();
            List<Integer> notInvalidated = new ArrayList<>();
            for (WireRecorder.Connection c : cs) {
                Set<Integer> invalidated = new HashSet<>(c.invalidated);
                notInvalidated.add((int) c.rdma.stream().map(WireRecorder.Rdma::token).distinct()
                        .filter(t -> !invalidated.contains(t)).count());
            }
            LOG.info("{}{}: {} connections, RDMA Writes {} bytes, RDMA Reads {} bytes, {} Sends with Invalidate, tokens "
                    + "used and not invalidated per connection {}", m.tag(), on(), cs.size(), writes, reads,
                    cs.stream().mapToInt(c -> c.invalidated.size()).sum(), notInvalidated);
            checks.add(() -> assertTrue(writes >= 3 * big, m.tag() + ": RDMA Write bytes " + writes + " < " + 3 * big));
            checks.add(() -> assertTrue(reads >= 2 * big, m.tag() + ": RDMA Read bytes " + reads + " < " + 2 * big));
            WireRecorder.Connection last = cs.get(cs.size() - 1);
            Set<Integer> invalidated = new HashSet<>(last.invalidated);
            checks.add(() -> assertEquals(List.of(), last.rdma.stream().map(WireRecorder.Rdma::token).distinct()
                    .filter(t -> !invalidated.contains(t)).toList(), m.tag()
                    + ": tokens used and not invalidated on the connection the mount ended on"));
        }
        assertAll(checks);
    }

    /** After each unmount no connection is left and the guest's RDMA resources are as before the mount. */
    @Test
    void everyUnmountLeavesNoConnectionAndTheRdmaResourcesAsBefore() {
        ran();
        Map<String, Map<String, Long>> serving = CifsIo.resources(baselineServing.lines().toList());
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            checks.add(() -> assertEquals(0, connectionsAfterUmount.get(m.tag()), m.tag() + ": server connections"));
            checks.add(() -> assertEquals(ownServing, ownAfterUmount.get(m.tag()), m.tag()
                    + ": this JVM's (the provider's) RDMA objects as while serving before the first mount" + on()));
            checks.add(() -> assertEquals(serving, resourcesAfterUmount.get(m.tag()), m.tag() + ": rdma resource show"
                    + on() + " (this JVM's objects " + ownAfterUmount.get(m.tag()) + ", while serving " + ownServing
                    + "; the rest is the kernel's, cifs's included)"));
        }
        assertAll(checks);
    }

    /**
     * After the server and the provider closed, the guest's RDMA resources are as before either
     * existed, but for one device context: librdmacm (rdma-core 44, {@code librdmacm/cma.c}) opens a
     * device's context with the first identifier bound to it ({@code ucma_get_device}) and keeps it
     * in its device list when the last identifier is gone ({@code ucma_put_device} releases only its
     * protection domain); nothing closes it before the process exits. The provider opens no context
     * of its own that it keeps (the probe closes the one it queries). The host
     * ({@code CifsMountsFileServerOverVerbsInVmTest}) checks that the context is gone once this
     * JVM has exited.
     */
    @Test
    void closingTheServerAndTheProviderReleasesEveryRdmaResourceButLibrdmacmsDeviceContext() {
        assertTrue(ownServing.get("pd") > 0 && ownServing.get("cq") > 0 && ownServing.get("cm_id") > 0,
                "this JVM's objects while serving are counted (a listener, its protection domain and queue): "
                        + ownServing);
        Map<String, Long> onlyTheContext = new LinkedHashMap<>();
        CifsIo.RDMA_OBJECT_KINDS.forEach(k -> onlyTheContext.put(k, k.equals("ctx") ? 1L : 0L));
        assertEquals(onlyTheContext, ownAfterClose, "this JVM's RDMA objects after the provider closed" + on());
        assertEquals(afterClose(baselineBefore), resourcesAfterClose, "rdma resource show" + on()
                + " (before the provider: " + CifsIo.resources(baselineBefore.lines().toList()) + ")");
    }

    private void faultsRan() {
        ran();
        assertEquals(null, faultFailure, () -> "the faults ran to their end" + on() + ": " + faultFailure);
    }

    /**
     * The guest killed a direct read on x mid-transfer and force-unmounted x: only x's connection
     * ended, y's and z's stayed, z's round trips afterwards read back what they wrote.
     */
    @Test
    void theGuestsForcedUnmountMidReadEndsOnlyItsConnectionAndTheOthersGoOn() {
        faultsRan();
        String killed = faultsOut.stream().filter(l -> l.startsWith("x read killed after ")).findFirst().orElse(null);
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertEquals(0, CifsIo.status(faultsOut, "mount", "x"), "mount x" + on()));
        checks.add(() -> assertTrue(faultsOut.contains("x big rc=0"), "x's 64 MiB written" + on()));
        checks.add(() -> {
            assertNotNull(killed, "the read on x was killed" + on());
            long at = Long.parseLong(killed.replaceAll("\\D+", " ").trim().split(" ")[0]);
            assertTrue(at > 4 * MIB && at < BIG, "killed mid-transfer: " + killed);
        });
        checks.add(() -> assertEquals(0, CifsIo.status(faultsOut, "umount", "x"), "umount -f x" + on()));
        checks.add(() -> assertEquals(2, connectionsYz, "server connections with y and z mounted" + on()));
        checks.add(() -> assertEquals(2, connectionsXGone, "server connections after x's forced unmount" + on()));
        checks.addAll(CifsIo.roundTrips(CifsIo.steps(faultsOut), "zafterx", MIB));
        assertAll(checks);
    }

    /**
     * After x's forced unmount mid-read, {@code rdma resource show} is what it was with y and z alone:
     * cifs's and the provider's objects of x's connection are gone.
     */
    @Test
    void theForcedUnmountReleasesTheGuestsRdmaResourcesOfItsConnection() {
        faultsRan();
        assertFalse(resourcesYz.isEmpty(), "rdma resource show with y and z mounted" + on());
        assertEquals(resourcesYz, resourcesXGone, "after umount -f of x, against y and z alone" + on());
    }

    /**
     * The server closed y's connection while y's dd wrote 64 MiB with O_DIRECT: z went on, cifs
     * reconnected y and y's round trips work again; the interrupted write either failed to the
     * application or the server holds all of it, never a silently short or wrong file.
     */
    @Test
    void theServerClosingAConnectionMidWriteLeavesTheOthersWorkingAndCifsReconnects() throws Exception {
        faultsRan();
        List<CifsIo.Step> steps = CifsIo.steps(faultsOut);
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertTrue(serverClose.writerRunning(), "y's dd was writing when the server closed "
                + serverClose + on()));
        checks.addAll(CifsIo.roundTrips(steps, "zaftery", MIB));
        checks.addAll(CifsIo.roundTrips(steps, "yafter", 4 * KIB, MIB));
        String rc = faultsOut.stream().filter(l -> l.startsWith("y write rc=")).findFirst().orElse("y write rc=?");
        checks.add(() -> assertTrue(rc.matches("y write rc=\\d+"), "y's write ended: " + rc + on()));
        if (rc.equals("y write rc=0")) {
            checks.add(() -> assertEquals(CifsIo.sha256(Paths.get(BIG_SOURCE)), CifsIo.sha256(served.resolve("w")),
                    "y's 64 MiB written through the server's close and cifs's reconnect" + on()));
        } else {
            LOG.info("y's write failed to the application: {}", faultsOut.stream().filter(l -> l.startsWith("y write"))
                    .toList());
        }
        assertAll(checks);
    }

    /**
     * After the faults and the unmounts of y and z the server holds no connection, this JVM's RDMA
     * objects are those of the listener alone, and {@code rdma resource show} is as while serving
     * before the first mount.
     */
    @Test
    void afterTheFaultsTheServerAndTheGuestHoldWhatTheyHeldBeforeTheFirstMount() {
        faultsRan();
        assertAll(
                () -> assertEquals(0, CifsIo.status(faultsOut, "umount", "y"), "umount y" + on()),
                () -> assertEquals(0, CifsIo.status(faultsOut, "umount", "z"), "umount z" + on()),
                () -> assertEquals(0, connectionsFaultsEnd, "server connections" + on()),
                () -> assertEquals(ownServing, ownFaultsEnd, "this JVM's RDMA objects" + on()),
                () -> assertEquals(CifsIo.resources(baselineServing.lines().toList()), resourcesFaultsEnd,
                        "rdma resource show" + on()));
    }

    /** Posting Send with Invalidate is on by default on siw0 and rxe0 (the device's memory management extensions). */
    @Test
    void theProviderPostsSendWithInvalidateWithItsDefaults() {
        assertTrue(verbsCapabilities.sendWithInvalidate(), "Send with Invalidate" + on() + ": " + verbsSettings);
    }
}
