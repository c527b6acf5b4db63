package smbdirect.interop.fileserver;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.example.fileserver.FileServer;
import smbdirect.example.fileserver.FileServerSettings;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.verbs.WireRecorder;
import smbdirect.interop.vm.CaptureReader;
import smbdirect.interop.vm.CapturedPdu;
import smbdirect.interop.vm.FpduAlignedCapture;
import smbdirect.interop.vm.SiwVm;
import smbdirect.interop.vm.SiwVmAttempts;
import smbdirect.interop.vm.SiwVmResult;
import smbdirect.interop.vm.SiwVmRun;
import smbdirect.interop.vm.SiwVmSpec;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.IwarpStatistics;
import smbdirect.rdma.tck.LoopbackCapture;
import smbdirect.testsupport.Judges;

/**
 * Linux cifs in the siw VM mounts the reference file server ({@link FileServer}) over SMB Direct, in
 * one VM boot: the server runs on the host over the software iWARP provider on 127.0.0.1, and cifs
 * ({@code mount -t cifs -o rdma}) dials 10.0.2.100:5445, which the VM forwards to it. Mounts: SMB
 * 3.1.1 with the account (twice: first with small files while tshark captures the loopback, then with
 * 8 and 64 MiB files), SMB 3.0.2 with the account and SMB 3.1.1 as guest (the first mount is the
 * README's {@code mount} line as written, the server's address and the account replaced, the guest
 * mount the README's guest options: {@link ReadmeMount}); on each, files of 0 B, 4
 * KiB, 1 MiB, 8 MiB and 64 MiB are written and read back with dd (also O_DIRECT), cat, cp, mv, rm,
 * stat, ls, mkdir and rmdir ({@code cifs-io.sh}), the guest's SHA-256 of every read equal to its
 * source's, and the files the server stored hash as the guest's sources. cifs's DebugData shows each
 * connection on SMB Direct with RDMA I/O; the server's provider posted RDMA Writes for READs and RDMA
 * Reads for WRITEs ([MS-SMB2] 3.3.5.12, 3.3.5.13; [MS-SMBD] 3.1.4.3-3.1.4.4). Then faults on three
 * mounts at once: the guest kills a reader mid-transfer and force-unmounts ({@code umount -f}), and
 * the server closes another mount's connection mid-write; the third mount goes on working through
 * both, and in the end the server holds no connection, no endpoint and no registration, and the
 * guest's RDMA resources are back to where they were before the first mount.
 *
 * <p>The capture: only the first mount (SMB 3.1.1, files up to 1 MiB), so that tshark on this
 * host decodes it in bounded time; its SMB2 READs and WRITEs carry RDMA channels, the server's RDMA
 * Writes carry exactly the bytes each READ asked for to cifs's token, its RDMA Read Requests name
 * each WRITE's token, its responses invalidate cifs's tokens by Send with Invalidate, nothing is
 * malformed and every CRC is good.
 *
 * <p>The guest boots the image with Debian 12's 6.12 kernel ({@link SiwVm#KERNEL_6_12}): 6.1's cifs
 * maps its compound padding ({@code smb2_padding}, module memory) with {@code virt_to_page}, so siw
 * reads it from an unrelated address and oopses in {@code siw_tx_hdt} (at an address ending in
 * 0x5a0) whenever that address lies beyond the guest's RAM, in about half the boots, right after
 * the empty file's copy, with ksmbd as well (tools/siw-vm/PROOF.md g); 6.3 and later map it right.
 * On 6.12.117+deb12-amd64 every check passes, {@code cat} included (6.1's splice defect is gone).
 * One VM boot of a few minutes (the first run on a machine also builds the 6.12 image).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class CifsMountsFileServerOverIwarpTest {

    private static final Logger LOG = LoggerFactory.getLogger(CifsMountsFileServerOverIwarpTest.class);
    private static final Duration STEP = Duration.ofSeconds(300);
    private static final int SMBD_PORT = 5445;
    private static final int GO_X_GONE = 7001;
    private static final int GO_Y_CLOSED = 7002;
    private static final String SHARE = "share";
    private static final String USER = "fsuser";
    private static final String PASSWORD = "Fs-Pass-1";
    /** The host as the guest reaches it (the VM forwards its port 5445 to the server). */
    private static final String SERVER = "10.0.2.100";
    private static final String UNC = "//" + SERVER + "/" + SHARE;
    private static final String SCRIPT = CifsIo.GUEST_SCRIPT;
    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    private static final long[] SMALL = {0, 4 * KIB, MIB};
    private static final long[] BIG = {8 * MIB, 64 * MIB};
    private static final long[] ALL = {0, 4 * KIB, MIB, 8 * MIB, 64 * MIB};
    private static final String ACCOUNT = "username=" + USER + ",password=" + PASSWORD;

    /** The mounts that do the round trips: tag, guest command, mount point, options, sizes. */
    private record Mount(String tag, String command, String mountPoint, String options, long[] sizes) {
        Mount(String tag, String options, long[] sizes) {
            this(tag, "mount -t cifs " + UNC + " /mnt/" + tag + " -o " + options, "/mnt/" + tag, options, sizes);
        }
    }

    /**
     * The README's mount line as written, only the server's address and the account replaced by this
     * run's ({@link ReadmeMount}): the first mount runs it, so the README cannot drift from what works.
     */
    private static final ReadmeMount.Command README_MOUNT = ReadmeMount.forServer(SERVER, USER, PASSWORD);

    private static final List<Mount> MOUNTS = List.of(
            new Mount("a311", README_MOUNT.line(), README_MOUNT.mountPoint(), README_MOUNT.options(), SMALL),
            new Mount("b311", "rdma,vers=3.1.1," + ACCOUNT, BIG),
            new Mount("c302", "rdma,vers=3.0.2," + ACCOUNT, ALL),
            // the README's guest options (with guest = true on the server)
            new Mount("dguest", ReadmeMount.guestOptions(), ALL));

    /** The guest shell script of the whole run. */
    private static String guest() {
        List<String> l = new ArrayList<>();
        l.add("uname -r; cat /proc/version");
        l.add("loadmods cifs || echo 'CIFS FAILED'");
        l.add("BASE=\"$(rdma resource show)\"");
        l.add(CifsIo.rdmaResources("base"));
        for (Mount m : MOUNTS) {
            if (m.tag().equals("a311")) {
                // cifs logs each memory registration for RDMA I/O (smbd_register_mr, class LOG_RDMA_MR)
                l.add("echo 0x100 > /sys/module/cifs/parameters/smbd_logging_class");
            }
            l.add(CifsIo.mountCommand(m.tag(), m.mountPoint(), m.command(), 120));
            l.add(CifsIo.io(SCRIPT, m.mountPoint(), m.tag(), m.sizes()));
            l.add(CifsIo.report(m.tag()));
            l.add(CifsIo.umount(m.tag(), m.mountPoint()));
            if (m.tag().equals("a311")) {
                l.add("echo 0 > /sys/module/cifs/parameters/smbd_logging_class");
            }
            l.add(backToBase("after-" + m.tag()));
        }
        // faults: three mounts, each its own connection (nosharesock)
        l.add(CifsIo.mount("y", UNC, "/mnt/y", "rdma,vers=3.0.2,nosharesock," + ACCOUNT, 120));
        l.add(CifsIo.mount("z", UNC, "/mnt/z", "rdma,vers=3.1.1,nosharesock,guest", 120));
        l.add("YZ=\"$(rdma resource show)\"");
        l.add(CifsIo.rdmaResources("yz"));
        l.add(CifsIo.mount("x", UNC, "/mnt/x", "rdma,vers=3.1.1,nosharesock," + ACCOUNT, 120));
        l.add("dd if=/tmp/fsio-src-" + 64 * MIB + " of=/mnt/x/big bs=1M oflag=direct 2>/dev/null; echo \"x big rc=$?\"");
        // the guest kills a direct read mid-transfer (once 4 MiB are in), then force-unmounts
        l.add("dd if=/mnt/x/big of=/dev/null bs=1M iflag=direct 2>/dev/null & XDD=$!");
        l.add("i=0; until [ \"$(awk '/^rchar/ {print $2}' /proc/$XDD/io 2>/dev/null || echo 0)\" -gt 4194304 ]; do"
                + " i=$((i+1)); [ $i -gt 1200 ] && break; kill -0 $XDD 2>/dev/null || break; sleep 0.05; done");
        l.add("echo \"x read killed after $(awk '/^rchar/ {print $2}' /proc/$XDD/io 2>/dev/null) bytes\"; kill -9 $XDD");
        // the killed reader has to be gone first: a forced unmount while its file is still open trips
        // Linux 6.1's "Busy inodes after unmount" kernel BUG (fs/super.c:503) in cifs_kill_sb
        l.add("wait $XDD; echo \"x reader gone\"");
        l.add("timeout 60 umount -f /mnt/x; echo \"umount x rc=$?\"");
        l.add("echo 'X GONE'");
        // after x's forced unmount, what y and z hold and no more
        l.add(backTo("YZ", "x-gone"));
        l.add(CifsIo.io(SCRIPT, "/mnt/z", "zafterx", MIB));
        l.add(GuestGoLines.await(GO_X_GONE));
        // the server closes y's connection while y writes 64 MiB with O_DIRECT
        l.add("(dd if=/tmp/fsio-src-" + 64 * MIB + " of=/mnt/y/w bs=1M oflag=direct 2>/tmp/ydd.err; echo \"y write rc=$?\";"
                + " sed 's/^/y write: /' /tmp/ydd.err) & YDD=$!");
        l.add("echo 'Y WRITING'");
        l.add(GuestGoLines.await(GO_Y_CLOSED));
        l.add("wait $YDD; echo 'Y WRITE ENDED'");
        l.add(CifsIo.io(SCRIPT, "/mnt/z", "zaftery", MIB));
        l.add(CifsIo.io(SCRIPT, "/mnt/y", "yafter", 4 * KIB, MIB));
        l.add(CifsIo.report("faults"));
        l.add(CifsIo.umount("y", "/mnt/y"));
        l.add(CifsIo.umount("z", "/mnt/z"));
        l.add(backToBase("end"));
        l.add("dmesg | grep -iE 'cifs|smbd|smb_direct' | grep -v smbd_register_mr | grep -iv 'module\\|taint'"
                + " | tail -60 | sed 's/^/dmesg: /'");
        l.add("echo \"registrations logged by cifs: $(dmesg | grep -c smbd_register_mr)\"");
        return String.join("\n", l);
    }

    /** Waits (at most 30 s) until {@code rdma resource show} is what it was before the first mount, then prints it. */
    private static String backToBase(String tag) {
        return backTo("BASE", tag);
    }

    /** Waits (at most 30 s) until {@code rdma resource show} equals shell variable {@code var}, then prints it. */
    private static String backTo(String var, String tag) {
        return "i=0; until [ \"$(rdma resource show)\" = \"$" + var + "\" ]; do i=$((i+1)); [ $i -gt 150 ] && break;"
                + " sleep 0.2; done\n" + CifsIo.rdmaResources(tag);
    }

    /** The guest's "go on" points ({@code GuestGo} of the siw package, which is package-private there). */
    private static final class GuestGoLines {
        static String await(int port) {
            return String.join("\n",
                    "(echo go | timeout 900 nc -l -p " + port + " > /tmp/go-" + port + ".txt) &",
                    "GO=$!",
                    "i=0; until netstat -ltn | grep -q ':" + port + " '; do i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.1; done",
                    "echo 'GO LISTENING " + port + "'",
                    "wait $GO; echo \"go " + port + ": $(cat /tmp/go-" + port + ".txt)\"");
        }

        static void signal(int hostPort) throws Exception {
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), hostPort),
                        (int) STEP.toMillis());
                s.setSoTimeout((int) STEP.toMillis());
                byte[] go = s.getInputStream().readNBytes(3);
                assertEquals("go\n", new String(go, java.nio.charset.StandardCharsets.US_ASCII), "the guest's go line");
            }
        }
    }

    /** The server's state at one point of the run. */
    record Snapshot(String when, int connections, IwarpStatistics provider, int engineConnections) {
    }

    /** The connection the server closed mid-write, and how far y's write was. */
    record ServerClose(long connectionId, long messagesReceivedAtClose, long rdmaReadsAtClose) {
    }

    /** What the capture of the first mount shows, or why there is none. */
    record Capture(List<CaptureReader.Fpdu> fpdus, CaptureReader.CrcVerdicts crc, List<CapturedPdu> pdus,
            List<CaptureReader.Problem> problems, boolean complete, int serverPort, String missing) {
    }

    record Run(String kernel, String kernelBuild, SiwVmResult vm, Path served, Map<String, Snapshot> snapshots,
            ServerClose serverClose, List<WireRecorder.Connection> wire, Capture capture, long millis,
            Throwable stopped) {
    }

    @TempDir
    static Path temp;

    private Run run;

    @BeforeAll
    @Timeout(3600)
    void mountAndMove() throws Exception {
        SiwVm vm = SiwVm.require(SiwVm.KERNEL_6_12);
        run = SiwVmAttempts.run(vm, "cifs mounts the file server over SMB Direct (iWARP)", this::boot);
        LOG.info("guest kernel {} ({}); the VM run took {} s", run.kernel(), run.kernelBuild(), run.millis() / 1000);
    }

    @AfterAll
    void report() {
        if (run != null) {
            LOG.info("results against cifs of Linux {} ({})", run.kernel(), run.kernelBuild());
        }
    }

    private Run boot(SiwVmAttempts.Boots boots) throws Exception {
        long start = System.nanoTime();
        Path served = Files.createTempDirectory(temp, "served");
        Path script = CifsIo.writeScript(temp.resolve("cifs-io.sh"));
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fs-iwarp-timers");
            t.setDaemon(true);
            return t;
        });
        // CRC on (siw follows a C=1 Request), and the first FPDU toward siw as responder after 500 ms
        // (siw's accept race, tools/siw-vm/PROOF.md d2); cifs is the initiator here, the setting is harmless
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").crc(true)
                .firstFpduDelayMillis(500).build();
        IwarpProvider provider = IwarpProvider.open("fs-cifs", settings);
        WireRecorder wire = new WireRecorder(provider);
        SmbDirectEngine engine = new SmbDirectEngine(wire, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        AcceptedConnections transport = new AcceptedConnections(engine);
        Map<String, Snapshot> snapshots = new LinkedHashMap<>();
        try {
            FileServerSettings fs = new FileServerSettings(SHARE, served, new InetSocketAddress("127.0.0.1", 0), false,
                    USER, PASSWORD, true);
            FileServer server = FileServer.start(transport, fs);
            // every class the snapshots need is loaded now, not after minutes of VM time from a jar
            // that a concurrent build may have replaced meanwhile
            snapshots.put("start", snapshot("start", server, provider, engine));
            ServerClose serverClose = null;
            SiwVmResult result;
            LoopbackCapture.Attempt attempt = null;
            Throwable stopped = null;
            int port;
            try {
                port = server.listenAddress().getPort();
                SiwVmSpec spec = SiwVmSpec.command(guest()).guestForward(SMBD_PORT, port).forward(GO_X_GONE)
                        .forward(GO_Y_CLOSED).put(script, SCRIPT).memory(1024).timeout(Duration.ofSeconds(2400))
                        .name("fs-cifs-iwarp");
                Path pcap = SiwVm.logs().resolve("fs-cifs-iwarp.pcap");
                attempt = LoopbackCapture.attempt(CaptureReader.tcpPorts(List.of(port)), pcap);
                try (SiwVmRun vmRun = boots.start(spec)) {
                    try {
                        try {
                            vmRun.awaitLine("umount a311 rc=", STEP);
                        } finally {
                            attempt.close();
                        }
                        // the next mount may already be there: the first mount's connection ended
                        await(() -> !transport.accepted().isEmpty() && !transport.accepted().get(0).isOpen(),
                                "the first mount's connection ended after its umount", vmRun);
                        vmRun.awaitLine("X GONE", Duration.ofSeconds(1800));
                        // x was force-unmounted: y and z stay
                        await(() -> server.connections() == 2, "two connections (y, z) after x's end", vmRun);
                        snapshots.put("x-gone", snapshot("x-gone", server, provider, engine));
                        vmRun.awaitLine("GO LISTENING " + GO_X_GONE, STEP);
                        GuestGoLines.signal(vmRun.hostPort(GO_X_GONE));
                        vmRun.awaitLine("Y WRITING", STEP);
                        serverClose = closeTheWritingConnection(transport, vmRun);
                        vmRun.awaitLine("GO LISTENING " + GO_Y_CLOSED, STEP);
                        GuestGoLines.signal(vmRun.hostPort(GO_Y_CLOSED));
                    } catch (Exception | AssertionError e) {
                        // the checks that need what came after report it; the VM is not left waiting
                        LOG.warn("the run stopped early: {}", e.toString());
                        stopped = e;
                        vmRun.close();
                    }
                    result = vmRun.awaitExit();
                }
                if (stopped == null) {
                    await(() -> server.connections() == 0, "no connection after the last umount", null);
                }
                snapshots.put("end", snapshot("end", server, provider, engine));
            } finally {
                if (attempt != null) {
                    attempt.close();
                }
                server.close();
            }
            snapshots.put("closed", snapshot("closed", null, provider, engine));
            Capture capture = capture(attempt, port);
            String kernel = result.output().isEmpty() ? "?" : result.output().get(0).strip();
            String build = result.output().stream().filter(l -> l.startsWith("Linux version")).findFirst().orElse("?");
            return new Run(kernel, build, result, served, snapshots, serverClose, wire.connections(), capture,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), stopped);
        } finally {
            try {
                engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end")).toCompletableFuture()
                        .get(60, TimeUnit.SECONDS);
            } finally {
                provider.close();
                timers.shutdownNow();
            }
        }
    }

    /**
     * Waits until one of the server's open connections has received at least 8 more messages since
     * y said it writes (its WRITE requests arriving), then closes that connection from the server's
     * side: mid-write.
     */
    private static ServerClose closeTheWritingConnection(AcceptedConnections transport, SiwVmRun vmRun)
            throws Exception {
        Map<Long, Long> before = new HashMap<>();
        for (SmbDirectConnection c : transport.open()) {
            before.put(c.id(), c.getConnectionDTO().messagesReceived);
        }
        long deadline = System.nanoTime() + STEP.toNanos();
        while (System.nanoTime() < deadline && vmRun.guestExitCode() < 0) {
            for (SmbDirectConnection c : transport.open()) {
                ConnectionDTO d = c.getConnectionDTO();
                if (d.messagesReceived >= before.getOrDefault(c.id(), 0L) + 8) {
                    LOG.info("closing connection {} from the server's side mid-write: {} messages received, {} RDMA Reads",
                            c.id(), d.messagesReceived, d.rdmaReads);
                    c.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
                    return new ServerClose(c.id(), d.messagesReceived, d.rdmaReads);
                }
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling the server's counters, not waiting for an event
        }
        throw new AssertionError("no connection received y's WRITEs within " + STEP + "\n"
                + String.join("\n", vmRun.console().subList(Math.max(0, vmRun.console().size() - 40),
                        vmRun.console().size())));
    }

    private static void await(BooleanSupplier condition, String what, SiwVmRun vmRun) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": not within 60 s"
                        + (vmRun == null ? "" : "\n" + String.join("\n", vmRun.console().subList(
                                Math.max(0, vmRun.console().size() - 40), vmRun.console().size()))));
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling the server's counters
        }
    }

    private static Snapshot snapshot(String when, FileServer server, IwarpProvider provider, SmbDirectEngine engine) {
        ConnectionDTO[] open = engine.getTransportDTO().connections;
        Snapshot s = new Snapshot(when, server == null ? -1 : server.connections(), provider.statistics(),
                open == null ? 0 : open.length);
        LOG.info("server {}: {}", when, s);
        return s;
    }

    /** The first mount's capture, decoded from a copy cut along the FPDUs ({@link FpduAlignedCapture} says why). */
    private static Capture capture(LoopbackCapture.Attempt attempt, int port) throws Exception {
        LoopbackCapture c = attempt.capture();
        if (c == null) {
            return new Capture(List.of(), new CaptureReader.CrcVerdicts(0, List.of()), List.of(), List.of(), false, port,
                    attempt.missing());
        }
        Path aligned = c.file().resolveSibling("fs-cifs-iwarp.aligned.pcap");
        FpduAlignedCapture.write(c.file(), aligned);
        LoopbackCapture judged = LoopbackCapture.ofFile(aligned, c.markerPort());
        List<CaptureReader.Fpdu> fpdus = CaptureReader.fpdus(judged);
        CaptureReader.CrcVerdicts crc = CaptureReader.crcVerdicts(judged);
        // every frame but the RDMA Writes and Read Responses: MPA, Sends (SMB2 inside), Read Requests, Terminates
        List<CapturedPdu> pdus = CaptureReader.pdus(judged, "control", "iwarp_mpa.req || iwarp_mpa.rep"
                + " || iwarp_rdma.opcode in {1,3,4,5,6,7} || _ws.malformed");
        List<CaptureReader.Problem> problems = CaptureReader.problemFrames(judged);
        LOG.info("capture {}: {} FPDUs, {} control PDUs, {} frames with problems", c.file(), fpdus.size(), pdus.size(),
                problems.size());
        return new Capture(fpdus, crc, pdus, problems, c.complete(), port, null);
    }

    // ------------------------------------------------------------------ the checks

    private String on() {
        return " (Linux " + run.kernel() + ")";
    }

    private void ranToTheEnd() {
        assertEquals(null, run.stopped(), () -> "the run went to its end: " + run.stopped());
    }

    private List<String> out() {
        return run.vm().output();
    }

    @Test
    void theGuestKernelStayedHealthyAndTheVmEndedWell() {
        assertAll(
                () -> assertEquals(null, run.stopped(), () -> "the run went to its end: " + run.stopped()),
                () -> assertEquals(List.of(), run.vm().kernelFaults(), run.vm().tail(60)),
                () -> assertEquals(0, run.vm().exitCode(), run.vm().tail(60)),
                () -> assertFalse(out().contains("CIFS FAILED"), run.vm().tail(60)));
    }

    /** mount.cifs -o rdma with vers=3.1.1 and 3.0.2, the account and guest ([MS-SMB2] 3.3.5.3-3.3.5.7). */
    @Test
    void everyMountSucceedsAndEveryUnmountToo() {
        List<Executable> checks = new ArrayList<>();
        for (String tag : List.of("a311", "b311", "c302", "dguest", "x", "y", "z")) {
            checks.add(() -> assertEquals(0, CifsIo.status(out(), "mount", tag), "mount " + tag + on() + "\n"
                    + dmesg()));
            checks.add(() -> assertEquals(0, CifsIo.status(out(), "umount", tag), "umount " + tag + on()));
        }
        assertAll(checks);
    }

    /** Every write and read of every size hashes as its source in the guest ([MS-SMB2] 3.3.5.12, 3.3.5.13). */
    @Test
    void everyRoundTripReadsBackWhatWasWritten() {
        List<CifsIo.Step> steps = CifsIo.steps(out());
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            checks.addAll(CifsIo.roundTrips(steps, m.tag(), m.sizes()));
            checks.add(() -> assertTrue(out().contains("fsio " + m.tag() + " done"), m.tag() + ": the script ended" + on()));
        }
        assertAll(checks);
    }

    /** cat (sendfile) of each file gives its bytes ({@link CifsIo#judgeCat} says when cifs 6.1 does not). */
    @Test
    void catGivesEachFilesBytes() {
        List<CifsIo.Step> steps = CifsIo.steps(out());
        List<CifsIo.CatRead> reads = new ArrayList<>();
        for (Mount m : MOUNTS) {
            reads.addAll(CifsIo.catReads(steps, m.tag(), m.sizes()));
        }
        CifsIo.judgeCat(reads, on());
    }

    /** What cifs wrote is what the server stored: SHA-256 on the host equals the guest's of the source. */
    @Test
    void theServedFilesHashAsTheGuestsSources() throws Exception {
        List<CifsIo.Step> steps = CifsIo.steps(out());
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            Map<String, String> written = CifsIo.written(steps, m.tag());
            Map<String, String> served = CifsIo.served(run.served().resolve(m.tag()));
            checks.add(() -> assertEquals(2 * m.sizes().length, written.size(), m.tag() + ": sources " + written));
            checks.add(() -> assertEquals(written, served, m.tag() + ": the files in the served directory" + on()));
        }
        assertAll(checks);
    }

    /**
     * cifs's DebugData lists each mount's connection on SMB Direct ([MS-SMBD] 0x0100), connected,
     * with the dialect asked for, unsigned, RDMA I/O from 4 KiB; its Stats count READs and WRITEs, none failed.
     */
    @Test
    void debugDataShowsEachMountOnSmbDirectAndStatsCountItsReadsAndWrites() {
        List<Executable> checks = new ArrayList<>();
        for (Mount m : MOUNTS) {
            checks.add(() -> {
                List<String> debug = CifsIo.section(out(), "DEBUGDATA", m.tag());
                assertNotNull(debug, m.tag() + ": DebugData printed");
                List<CifsIo.SmbdConnection> c = CifsIo.smbdConnections(debug);
                LOG.info("{} DebugData{}: {}", m.tag(), on(), c);
                assertEquals(1, c.size(), m.tag() + ": one SMB Direct connection in\n" + String.join("\n", debug));
                CifsIo.SmbdConnection d = c.get(0);
                int dialect = m.options().contains("vers=3.0.2") ? 0x302 : 0x311;
                assertAll(
                        () -> assertEquals(0x100, d.protocol(), "SMB Direct protocol version"),
                        () -> assertEquals(CifsIo.SMBD_CONNECTED, d.transportStatus(), "transport status"),
                        () -> assertEquals(dialect, d.dialect(), "dialect"),
                        () -> assertTrue(d.rdma(), "marked RDMA"),
                        () -> assertFalse(d.signed(), "not signed: cifs offloads only unsigned I/O to RDMA"),
                        () -> assertTrue(d.maxReadWriteSize() >= MIB, "max_readwrite_size " + d.maxReadWriteSize()),
                        () -> assertEquals(4 * KIB, d.rdmaReadWriteThreshold(), "rdma_readwrite_threshold"));
                long[] rw = CifsIo.readsAndWrites(CifsIo.section(out(), "STATS", m.tag()));
                assertAll(
                        () -> assertTrue(rw[0] > 0 && rw[2] > 0, m.tag() + ": READs and WRITEs counted " + List.of(rw[0], rw[2])),
                        () -> assertEquals(0, rw[1], m.tag() + ": failed READs"),
                        () -> assertEquals(0, rw[3], m.tag() + ": failed WRITEs"));
            });
        }
        checks.add(() -> {
            String line = out().stream().filter(l -> l.startsWith("registrations logged by cifs: ")).findFirst()
                    .orElse("registrations logged by cifs: -1");
            assertTrue(Long.parseLong(line.substring(line.indexOf(": ") + 2).strip()) > 0,
                    "cifs registered memory for RDMA I/O (smbd_register_mr)" + on());
        });
        assertAll(checks);
    }

    /**
     * The server moved the data of every READ and WRITE of 4 KiB or more by RDMA ([MS-SMB2] 3.3.5.12:
     * RDMA Write into the client's buffer; 3.3.5.13: RDMA Read from it): on the connections of the
     * round-trip mounts, the RDMA bytes are at least the direct and synced I/O the script did, and
     * every token the server moved data with was invalidated by a Send with Invalidate
     * (SMB2_CHANNEL_RDMA_V1_INVALIDATE, which cifs asks for from 3.0.2 on).
     */
    @Test
    void theServerMovedTheDataByRdmaAndInvalidatedEveryTokenItUsed() {
        List<WireRecorder.Connection> first = run.wire().subList(0, Math.min(MOUNTS.size(), run.wire().size()));
        assertEquals(MOUNTS.size(), first.size(), "connections of the round-trip mounts");
        List<Executable> checks = new ArrayList<>();
        for (int i = 0; i < MOUNTS.size(); i++) {
            Mount m = MOUNTS.get(i);
            WireRecorder.Connection c = first.get(i);
            long writes = c.rdma.stream().filter(WireRecorder.Rdma::write).mapToLong(WireRecorder.Rdma::length).sum();
            long reads = c.rdma.stream().filter(r -> !r.write()).mapToLong(WireRecorder.Rdma::length).sum();
            long big = java.util.Arrays.stream(m.sizes()).filter(x -> x >= 4 * KIB).sum();
            LOG.info("{}: RDMA Writes {} bytes, RDMA Reads {} bytes, {} tokens invalidated{}", m.tag(), writes, reads,
                    c.invalidated.size(), on());
            // dd iflag=direct of f, g and the moved copy: 3 reads; dd conv=fsync and oflag=direct: 2 writes
            checks.add(() -> assertTrue(writes >= 3 * big, m.tag() + ": RDMA Write bytes " + writes + " < " + 3 * big));
            checks.add(() -> assertTrue(reads >= 2 * big, m.tag() + ": RDMA Read bytes " + reads + " < " + 2 * big));
            java.util.Set<Integer> invalidated = new java.util.HashSet<>(c.invalidated);
            List<Integer> notInvalidated = c.rdma.stream().map(WireRecorder.Rdma::token).distinct()
                    .filter(t -> !invalidated.contains(t)).toList();
            checks.add(() -> assertEquals(List.of(), notInvalidated, m.tag() + ": tokens used and not invalidated"));
        }
        assertAll(checks);
    }

    /** The guest killed a direct read mid-transfer and force-unmounted: only x's connection ended, z went on. */
    @Test
    void theGuestsForcedUnmountMidReadEndsOnlyItsConnectionAndTheOthersGoOn() {
        ranToTheEnd();
        String killed = out().stream().filter(l -> l.startsWith("x read killed after ")).findFirst().orElse(null);
        List<CifsIo.Step> steps = CifsIo.steps(out());
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> {
            assertNotNull(killed, "the read on x was killed" + on());
            long at = Long.parseLong(killed.replaceAll("\\D+", " ").trim().split(" ")[0]);
            assertTrue(at > 4 * MIB && at < 64 * MIB, "killed mid-transfer: " + killed);
        });
        checks.add(() -> assertEquals(2, run.snapshots().get("x-gone").connections(), "server connections after x"
                + run.snapshots().get("x-gone")));
        checks.addAll(CifsIo.roundTrips(steps, "zafterx", MIB));
        assertAll(checks);
    }

    /** The server closed y's connection mid-write: z went on; cifs reconnected y and y works again. */
    @Test
    void theServerClosingAConnectionMidWriteLeavesTheOthersWorkingAndCifsReconnects() {
        ranToTheEnd();
        List<CifsIo.Step> steps = CifsIo.steps(out());
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertNotNull(run.serverClose(), "the server closed y's connection"));
        checks.add(() -> assertTrue(out().contains("Y WRITE ENDED"), "y's write ended" + on()));
        checks.addAll(CifsIo.roundTrips(steps, "zaftery", MIB));
        checks.addAll(CifsIo.roundTrips(steps, "yafter", 4 * KIB, MIB));
        // the interrupted write either failed to the application or the server holds all of it: never a
        // silently short or wrong file
        checks.add(() -> {
            String rc = out().stream().filter(l -> l.startsWith("y write rc=")).findFirst().orElse("y write rc=?");
            if (rc.equals("y write rc=0")) {
                String source = CifsIo.written(steps, "c302").get("f-" + 64 * MIB);
                assertEquals(source, CifsIo.sha256(run.served().resolve("w")),
                        "y's 64 MiB written through the server's close and cifs's reconnect" + on());
            } else {
                LOG.info("y's write failed to the application: {}", rc);
            }
        });
        LOG.info("y's write after the server closed its connection: {}",
                out().stream().filter(l -> l.startsWith("y write")).toList());
        assertAll(checks);
    }

    /** After the last unmount the server holds no connection, endpoint, TCP connection or registration. */
    @Test
    void theServerHoldsNothingAfterTheLastUnmountAndNoListenerAfterClose() {
        ranToTheEnd();
        Snapshot end = run.snapshots().get("end");
        Snapshot closed = run.snapshots().get("closed");
        assertAll(
                () -> assertEquals(0, end.connections(), end.toString()),
                () -> assertEquals(0, end.engineConnections(), end.toString()),
                () -> assertEquals(0, end.provider().endpoints(), end.toString()),
                () -> assertEquals(0, end.provider().connections(), end.toString()),
                () -> assertEquals(0, end.provider().registrations(), end.toString()),
                () -> assertEquals(0, end.provider().pendingRequests(), end.toString()),
                () -> assertEquals(0, end.provider().internalErrors(), end.toString()),
                () -> assertEquals(0, closed.provider().listeners(), closed.toString()),
                () -> assertEquals(0, closed.provider().endpoints(), closed.toString()));
    }

    /** The guest's RDMA resources (rdma resource show) are back to their baseline after every unmount. */
    @Test
    void theGuestsRdmaResourcesAreBackToTheirBaselineAfterEachUnmount() {
        Map<String, Map<String, Long>> base = CifsIo.resources(CifsIo.section(out(), "RDMA RES", "base"));
        assertFalse(base.isEmpty(), "rdma resource show at the start" + on());
        List<Executable> checks = new ArrayList<>();
        List<String> tags = new ArrayList<>(MOUNTS.stream().map(m -> "after-" + m.tag()).toList());
        tags.add("end");
        for (String tag : tags) {
            checks.add(() -> {
                List<String> section = CifsIo.section(out(), "RDMA RES", tag);
                assertNotNull(section, tag);
                assertEquals(base, CifsIo.resources(section), tag + on());
            });
        }
        assertAll(checks);
    }

    /**
     * After x's forced unmount mid-read, the guest's RDMA resources are what y and z held before x was
     * mounted: cifs released x's connection (queue pair, completion queues, memory registrations).
     */
    @Test
    void theForcedUnmountReleasesTheGuestsRdmaResourcesOfItsConnection() {
        ranToTheEnd();
        Map<String, Map<String, Long>> yz = CifsIo.resources(CifsIo.section(out(), "RDMA RES", "yz"));
        assertFalse(yz.isEmpty(), "rdma resource show with y and z mounted" + on());
        assertEquals(yz, CifsIo.resources(CifsIo.section(out(), "RDMA RES", "x-gone")),
                "after umount -f of x, against y and z alone" + on());
    }

    // ------------------------------------------------------------------ the capture of the first mount

    private Capture captured() {
        Judges.require(run.capture().missing() == null, run.capture().missing());
        return run.capture();
    }

    /** The SMB2 READ and WRITE requests (cmd 8, 9) cifs sent, from the control PDUs. */
    private List<CapturedPdu> requests(int command) {
        Capture c = captured();
        return c.pdus().stream().filter(p -> p.dstPort() == c.serverPort() && p.has("smb2.cmd")
                && p.number("smb2.cmd") == command && p.has("smb2.channel")).toList();
    }

    private static final int READ = 8;
    private static final int WRITE = 9;
    private static final int CHANNEL_RDMA_V1_INVALIDATE = 2;

    /**
     * [MS-SMB2] 2.2.19, 2.2.21: cifs's READs and WRITEs of 4 KiB and more name an RDMA channel and
     * one buffer descriptor ([MS-SMBD] 2.2.3.1).
     */
    @Test
    void theCaptureShowsSmb2ReadsAndWritesWithRdmaChannels() {
        List<CapturedPdu> reads = requests(READ);
        List<CapturedPdu> writes = requests(WRITE);
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertTrue(reads.stream().anyMatch(p -> p.number("smb2.channel") != 0),
                "READs with an RDMA channel: " + reads));
        checks.add(() -> assertTrue(writes.stream().anyMatch(p -> p.number("smb2.channel") != 0),
                "WRITEs with an RDMA channel: " + writes));
        for (CapturedPdu p : reads) {
            if (p.number("smb2.read_length") >= 4 * KIB) {
                checks.add(() -> assertEquals(CHANNEL_RDMA_V1_INVALIDATE, p.number("smb2.channel"), p + " " + p.fields()));
                checks.add(() -> assertEquals(p.number("smb2.read_length"), p.number("smb2.buffer_descriptor.length"),
                        p + " " + p.fields()));
            }
        }
        assertAll(checks);
    }

    /**
     * The tagged bytes of the server's FPDUs of {@code opcode} on {@code stream} between frames
     * {@code after} and {@code before} whose STag ({@code stag} of a Write, data source of a Read
     * Request) is {@code token}: the transfers of one request. cifs registers its buffers afresh for
     * each I/O and may take a token again once the server invalidated it, so transfers are counted
     * between the request and its response, when the token was the request's alone.
     */
    private static long between(Capture c, int opcode, int stream, int after, int before, int token) {
        return c.fpdus().stream().filter(f -> f.opcode() == opcode && f.srcPort() == c.serverPort()
                && f.stream() == stream && f.frame() > after && f.frame() < before)
                .filter(f -> (opcode == 0 ? f.stag() : f.readSourceStag()) == token)
                .mapToLong(f -> opcode == 0 ? f.taggedPayload() : f.readSize()).sum();
    }

    /**
     * [MS-SMB2] 3.3.5.12: for every READ by RDMA that succeeds, the server RDMA-Writes exactly the
     * bytes read to cifs's token before its response, which answers DataRemaining that many and no
     * data inline; a READ that fails (STATUS_END_OF_FILE at the end of a file) moves no byte. Either
     * response invalidates the token by Send with Invalidate ([MS-SMBD] 3.1.4.2), as
     * SMB2_CHANNEL_RDMA_V1_INVALIDATE asks (2.2.19).
     */
    @Test
    void ourRdmaWritesCarryExactlyEachReadsBytesToCifssToken() {
        Capture c = captured();
        List<CapturedPdu> reads = requests(READ).stream().filter(p -> p.number("smb2.channel") != 0).toList();
        assertFalse(reads.isEmpty(), "READs by RDMA in the capture");
        List<Executable> checks = new ArrayList<>();
        for (CapturedPdu r : reads) {
            int token = (int) r.number("smb2.buffer_descriptor.token");
            CapturedPdu response = response(r);
            checks.add(() -> {
                assertNotNull(response, "the response to " + r);
                long written = between(c, 0, r.stream(), r.frame(), response.frame(), token);
                if (response.number("smb2.nt_status") == 0) {
                    long remaining = response.number("smb2.read_remaining");
                    assertEquals(remaining, written, "bytes RDMA-Written to token 0x" + Integer.toHexString(token)
                            + " for " + r + " before " + response);
                    assertTrue(remaining > 0 && remaining <= r.number("smb2.read_length"), "DataRemaining " + remaining);
                    // Wireshark 4.0 shows a READ response's data as smb2.read.blob (DataLength has no field)
                    assertEquals("", response.field("smb2.read.blob"), "no data inline: " + response);
                } else {
                    assertEquals(0, written, "a failed READ moves no byte: " + response.fields().get("smb2.nt_status"));
                }
                assertTrue(response.operation().contains("Invalidate"), "sent with invalidate: " + response);
                assertEquals(Integer.toUnsignedLong(token), response.number("iwarp_rdma.inval_stag"),
                        "the token invalidated");
            });
        }
        LOG.info("capture: {} READs by RDMA, {} of them successful", reads.size(),
                reads.stream().map(this::response).filter(x -> x != null && x.number("smb2.nt_status") == 0).count());
        assertAll(checks);
    }

    /**
     * [MS-SMB2] 3.3.5.13: for every WRITE by RDMA the server's RDMA Read Requests, between the
     * request and its response, name cifs's token as the data source and ask for exactly the
     * WRITE's bytes; the response counts them and invalidates the token.
     */
    @Test
    void ourRdmaReadRequestsNameEachWritesTokenAndAskForItsBytes() {
        Capture c = captured();
        List<CapturedPdu> writes = requests(WRITE).stream().filter(p -> p.number("smb2.channel") != 0).toList();
        assertFalse(writes.isEmpty(), "WRITEs by RDMA in the capture");
        List<Executable> checks = new ArrayList<>();
        for (CapturedPdu w : writes) {
            int token = (int) w.number("smb2.buffer_descriptor.token");
            long length = w.number("smb2.remaining_bytes");
            CapturedPdu response = response(w);
            checks.add(() -> {
                assertNotNull(response, "the response to " + w);
                assertEquals(0, response.number("smb2.nt_status"), "WRITE status " + response);
                assertEquals(length, between(c, 1, w.stream(), w.frame(), response.frame(), token),
                        "bytes of Read Requests from token 0x" + Integer.toHexString(token) + " for " + w);
                assertEquals(length, response.number("smb2.write.count"), "WRITE Count");
                if (w.number("smb2.channel") == CHANNEL_RDMA_V1_INVALIDATE) {
                    assertTrue(response.operation().contains("Invalidate"), "sent with invalidate: " + response);
                    assertEquals(Integer.toUnsignedLong(token), response.number("iwarp_rdma.inval_stag"));
                }
            });
        }
        LOG.info("capture: {} WRITEs by RDMA", writes.size());
        assertAll(checks);
    }

    /** Wireshark finds nothing malformed and every FPDU's CRC good (RFC 5044 §6). */
    @Test
    void wiresharkDecodesEveryFrameWithoutAProblemAndEveryCrcIsGood() {
        Capture c = captured();
        assertAll(
                () -> assertTrue(c.complete(), "the capture holds every packet"),
                () -> assertTrue(c.fpdus().size() > 100, "FPDUs decoded: " + c.fpdus().size()),
                () -> assertEquals(c.fpdus().size(), c.crc().good(), "FPDUs with a good CRC"),
                () -> assertEquals(List.of(), c.crc().others().stream().limit(10).toList(),
                        c.crc().others().size() + " FPDUs without a good CRC"),
                () -> assertEquals(List.of(), c.problems(), "frames with problems"),
                () -> assertEquals(List.of(), c.pdus().stream().filter(p -> !p.problems().isEmpty()).toList(),
                        "PDUs with problems"));
    }

    /** [MS-ERREF] STATUS_PENDING: an interim response ([MS-SMB2] 3.3.4.2). */
    private static final long STATUS_PENDING = 0x103;

    /** The server's final response with the request's MessageId on the same TCP stream. */
    private CapturedPdu response(CapturedPdu request) {
        Capture c = captured();
        String id = request.field("smb2.msg_id");
        long cmd = request.number("smb2.cmd");
        return c.pdus().stream().filter(p -> p.srcPort() == c.serverPort() && p.stream() == request.stream()
                && id.equals(p.field("smb2.msg_id")) && p.has("smb2.cmd") && p.number("smb2.cmd") == cmd
                && p.has("smb2.nt_status") && p.number("smb2.nt_status") != STATUS_PENDING).findFirst().orElse(null);
    }

    private String dmesg() {
        return String.join("\n", out().stream().filter(l -> l.startsWith("dmesg: ")).toList());
    }
}
