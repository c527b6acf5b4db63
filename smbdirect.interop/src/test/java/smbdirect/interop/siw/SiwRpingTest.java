package smbdirect.interop.siw;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.interop.rping.Rping;
import smbdirect.interop.rping.RpingClient;
import smbdirect.interop.rping.RpingOptions;
import smbdirect.interop.rping.RpingReport;
import smbdirect.interop.rping.RpingServer;
import smbdirect.interop.vm.CapturedPdu;
import smbdirect.interop.vm.CaptureReader;
import smbdirect.interop.vm.SiwVm;
import smbdirect.interop.vm.SiwVmAttempts;
import smbdirect.interop.vm.SiwVmResult;
import smbdirect.interop.vm.SiwVmRun;
import smbdirect.interop.vm.SiwVmSpec;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;
import smbdirect.rdma.tck.LoopbackCapture;
import smbdirect.testsupport.Judges;

/**
 * The software iWARP provider against Linux soft-iWARP (siw, Linux 6.1 in the QEMU VM), with
 * rdma-core's {@code rping} as the other side, both ways, in one VM boot: our rping client (the
 * provider as MPA initiator) against {@code rping -s} over siw, and {@code rping -c} over siw against
 * our rping server (the provider as MPA responder). Every case runs several iterations: Sends of the
 * buffer advertisements, the server's RDMA Read of the client's source, its RDMA Write of the echo,
 * and the client's disconnect; with MPA revision 2 and CRC, without CRC, with 64 KiB buffers (every
 * message in many FPDUs) and with the peer-to-peer RTR frames siw offers. tshark captures the
 * host's loopback, where the VM's forwards meet the provider, and Wireshark decodes every frame.
 *
 * <p>Where our provider and siw play the same role in the same case, their frames are compared
 * field by field (Tagged Offsets and STags aside, which are each side's own).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class SiwRpingTest {

    private static final Logger LOG = LoggerFactory.getLogger(SiwRpingTest.class);
    private static final Duration STEP = Duration.ofSeconds(120);
    /** Linux siw 6.1 as responder: an FPDU right after its MPA Reply may stay unread (the accept race). */
    private static final int SIW_ACCEPT_RACE_MILLIS = 500;

    /** Which rping side the provider plays. */
    enum Ours {
        /** our rping client, {@code rping -s} in the guest; the provider is the MPA initiator */
        CLIENT,
        /** our rping server, {@code rping -c} in the guest; the provider is the MPA responder */
        SERVER
    }

    /** What our side does. */
    enum Play {
        /** rping's exchange ({@link RpingClient}, {@link RpingServer}) */
        RPING,
        /** breaks rping's exchange so that a Terminate must follow ({@link TerminatingPeer}) */
        TERMINATE
    }

    /**
     * One rping run.
     *
     * @param crc whether our provider asks for CRC (siw never asks, and follows when asked)
     * @param rtr the RTR frames our initiator offers (siw never offers any)
     * @param verbose whether the guest's rping prints the data (-v; not for 64 KiB buffers)
     */
    record Case(String name, Ours ours, Play play, boolean crc, RtrMode rtr, int count, int size, boolean verbose) {

        Case(String name, Ours ours, boolean crc, RtrMode rtr, int count, int size, boolean verbose) {
            this(name, ours, Play.RPING, crc, rtr, count, size, verbose);
        }

        String providerKey() {
            return (crc ? "crc" : "plain") + "-" + rtr.name().toLowerCase(java.util.Locale.ROOT);
        }

        IwarpSettings settings() {
            return IwarpSettings.builder().listenAddresses("127.0.0.1").crc(crc).peerToPeer(rtr)
                    .firstFpduDelayMillis(SIW_ACCEPT_RACE_MILLIS).build();
        }

        RpingOptions options() {
            return RpingOptions.of(count).withSize(size);
        }
    }

    static final List<Case> CASES = List.of(
            new Case("client-crc", Ours.CLIENT, true, RtrMode.NONE, 5, 64, true),
            new Case("server-crc", Ours.SERVER, true, RtrMode.NONE, 5, 64, true),
            new Case("client-plain", Ours.CLIENT, false, RtrMode.NONE, 5, 64, true),
            new Case("server-plain", Ours.SERVER, false, RtrMode.NONE, 5, 64, true),
            new Case("client-crc-64k", Ours.CLIENT, true, RtrMode.NONE, 3, Rping.MAX_SIZE, false),
            new Case("server-crc-64k", Ours.SERVER, true, RtrMode.NONE, 3, Rping.MAX_SIZE, false),
            new Case("client-rtr-write", Ours.CLIENT, true, RtrMode.WRITE, 2, 64, true),
            new Case("client-rtr-read", Ours.CLIENT, true, RtrMode.READ, 2, 64, true),
            // rping -s posts a 16-byte receive; our client Sends 64 bytes: siw must Terminate
            new Case("client-send-too-long", Ours.CLIENT, Play.TERMINATE, true, RtrMode.NONE, 1, 64, true),
            // rping -c Sends 16 bytes; our server posted 8: we must Terminate
            new Case("server-receive-too-short", Ours.SERVER, Play.TERMINATE, true, RtrMode.NONE, 1, 64, true));

    /** What our client Sends in the Terminate case, and the receive our server posts there. */
    private static final int TOO_LONG_SEND = 64;
    private static final int TOO_SHORT_RECEIVE = 8;

    /**
     * What one case did.
     *
     * @param listenPort the port of the listening side on the host's loopback (our server's, or the
     *     forward to the guest's rping server): identifies the case's TCP connection in the capture
     * @param ours our side's {@link RpingReport} or {@link TerminatingPeer.End}, or its failure (a Throwable)
     * @param guest the guest rping's output lines (without the case prefix)
     * @param guestRc the guest rping's exit status
     */
    record Outcome(Case c, int listenPort, Object ours, List<String> guest, int guestRc) {

        RpingReport report() {
            return ours instanceof RpingReport r ? r : null;
        }

        TerminatingPeer.End end() {
            return ours instanceof TerminatingPeer.End e ? e : null;
        }

        Throwable failure() {
            return ours instanceof Throwable t ? t : null;
        }
    }

    /** Everything one VM boot produced. */
    record Run(Map<String, Outcome> outcomes, SiwVmResult vm, List<CapturedPdu> pdus, List<String> tcpEnds,
            String noCapture) {

        /** The captured PDUs; without a capture, a missing judge (the checks of the rping runs stay). */
        @Override
        public List<CapturedPdu> pdus() {
            Judges.require(noCapture == null, noCapture);
            return pdus;
        }

        /** How the captured TCP connections ended; without a capture, a missing judge. */
        @Override
        public List<String> tcpEnds() {
            Judges.require(noCapture == null, noCapture);
            return tcpEnds;
        }
    }

    private Run run;

    private static int guestPort(Case c) {
        return 7100 + CASES.indexOf(c);
    }

    private static String guestScript(Map<Case, Integer> ourServerPorts) {
        StringBuilder s = new StringBuilder("rdma link show siw0/1\n");
        for (Case c : CASES) {
            String args = "-C " + c.count() + " -S " + c.size() + (c.verbose() ? " -v" : "");
            String log = "/tmp/" + c.name() + ".log";
            if (c.ours() == Ours.CLIENT) {
                int port = guestPort(c);
                s.append("timeout 60 rping -s -a 10.0.2.15 -p ").append(port).append(' ').append(args).append(" > ")
                        .append(log).append(" 2>&1 &\nP=$!\n")
                        .append("i=0; until netstat -ltn | grep -q ':").append(port)
                        .append(" '; do i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.1; done\n")
                        .append("echo 'RPING SERVER ").append(c.name()).append(" LISTENING'\n")
                        .append("wait $P; echo \"rping ").append(c.name()).append(" rc=$?\"\n");
            } else {
                s.append("timeout 60 rping -c -a 10.0.2.2 -p ").append(ourServerPorts.get(c)).append(' ').append(args)
                        .append(" -V > ").append(log).append(" 2>&1; echo \"rping ").append(c.name())
                        .append(" rc=$?\"\n");
            }
            s.append("sed 's/^/").append(c.name()).append(": /' ").append(log).append('\n');
        }
        return s.append("dmesg | grep -i 'siw' | grep -iv 'module\\|taint' | sed 's/^/dmesg: /'\n").toString();
    }

    @BeforeAll
    @Timeout(900)
    void exchange() throws Exception {
        SiwVm vm = SiwVm.require();
        run = SiwVmAttempts.run(vm, "rping between the iWARP provider and siw", this::boot);
    }

    private Run boot(SiwVmAttempts.Boots boots) throws Exception {
        Path logs = SiwVm.logs();
        Map<String, IwarpProvider> providers = new LinkedHashMap<>();
        Map<Case, AutoCloseable> servers = new LinkedHashMap<>();
        Map<Case, Integer> serverPorts = new LinkedHashMap<>();
        try {
            for (Case c : CASES) {
                providers.computeIfAbsent(c.providerKey(), k -> open("siw-" + k, c.settings()));
            }
            Function<Case, IwarpProvider> provider = c -> providers.get(c.providerKey());
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            for (Case c : CASES) {
                if (c.ours() == Ours.SERVER && c.play() == Play.RPING) {
                    RpingServer s = RpingServer.listen(provider.apply(c), any, c.options());
                    servers.put(c, s);
                    serverPorts.put(c, s.localAddress().getPort());
                } else if (c.ours() == Ours.SERVER) {
                    TerminatingPeer t = TerminatingPeer.listenWithShortReceive(provider.apply(c), any, TOO_SHORT_RECEIVE);
                    servers.put(c, t);
                    serverPorts.put(c, t.localAddress().getPort());
                }
            }
            SiwVmSpec spec = SiwVmSpec.command(guestScript(serverPorts)).timeout(Duration.ofSeconds(600)).name("rping");
            for (Case c : CASES) {
                if (c.ours() == Ours.CLIENT) {
                    spec.forward(guestPort(c));
                }
            }
            try (SiwVmRun vmRun = boots.start(spec)) {
                Map<Case, Integer> listenPorts = new LinkedHashMap<>();
                for (Case c : CASES) {
                    listenPorts.put(c, c.ours() == Ours.CLIENT ? vmRun.hostPort(guestPort(c)) : serverPorts.get(c));
                }
                Map<Case, Object> results = new LinkedHashMap<>();
                SiwVmResult result;
                LoopbackCapture.Attempt capture = LoopbackCapture.attempt(
                        CaptureReader.tcpPorts(List.copyOf(listenPorts.values())), logs.resolve("siw-rping.pcap"));
                try {
                    for (Case c : CASES) {
                        results.put(c, play(c, vmRun, provider.apply(c), listenPorts.get(c), servers.get(c)));
                    }
                    result = vmRun.awaitExit();
                } finally {
                    capture.close();
                }
                Map<String, Outcome> outcomes = new LinkedHashMap<>();
                for (Case c : CASES) {
                    Object r = results.get(c);
                    List<String> guest = result.output().stream().filter(l -> l.startsWith(c.name() + ": "))
                            .map(l -> l.substring(c.name().length() + 2)).toList();
                    String rcLine = result.output().stream().filter(l -> l.startsWith("rping " + c.name() + " rc="))
                            .findFirst().orElse("rc=-1");
                    int rc = Integer.parseInt(rcLine.substring(rcLine.indexOf("rc=") + 3).strip());
                    outcomes.put(c.name(), new Outcome(c, listenPorts.get(c), r, guest, rc));
                }
                LoopbackCapture c = capture.capture();
                if (c == null) {
                    return new Run(outcomes, result, List.of(), List.of(), capture.missing());
                }
                c.decode(); // the full decode, kept next to the capture for people
                return new Run(outcomes, result, CaptureReader.pdus(c), CaptureReader.tcpEnds(c), null);
            }
        } finally {
            for (AutoCloseable s : servers.values()) {
                s.close();
            }
            for (IwarpProvider p : providers.values()) {
                p.close();
            }
        }
    }

    private static IwarpProvider open(String name, IwarpSettings settings) {
        try {
            return IwarpProvider.open(name, settings);
        } catch (Exception e) {
            throw new IllegalStateException("opening the iWARP provider " + name + " failed: " + e, e);
        }
    }

    /** Plays our side of {@code c}; returns our report, how the Terminate case ended, or our failure. */
    private static Object play(Case c, SiwVmRun vmRun, IwarpProvider provider, int listenPort, AutoCloseable server) {
        try {
            if (c.ours() == Ours.CLIENT) {
                vmRun.awaitLine("RPING SERVER " + c.name() + " LISTENING", STEP);
                InetSocketAddress at = new InetSocketAddress("127.0.0.1", listenPort);
                if (c.play() == Play.TERMINATE) {
                    try (TerminatingPeer t = TerminatingPeer.connectAndSend(provider, at, TOO_LONG_SEND)) {
                        return t.ended().get(60, TimeUnit.SECONDS);
                    }
                }
                try (RpingClient client = RpingClient.connect(provider, at, c.options())) {
                    return client.result().get(60, TimeUnit.SECONDS);
                }
            }
            if (server instanceof TerminatingPeer t) {
                return t.ended().get(STEP.toSeconds(), TimeUnit.SECONDS);
            }
            return ((RpingServer) server).result().get(STEP.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("rping case {} failed on our side: {}", c.name(), e.toString());
            return e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
        } catch (AssertionError e) {
            return e;
        }
    }

    private Outcome outcome(String name) {
        Outcome o = run.outcomes().get(name);
        assertNotNull(o, name);
        return o;
    }

    private static List<String> pings(String prefix, int count, int size) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] d = Rping.data(i, size);
            out.add(prefix + new String(d, 0, size - 1, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    private String guestLog(Outcome o) {
        return o.c().name() + " guest output:\n  " + String.join("\n  ", o.guest()) + "\n" + run.vm().tail(0);
    }

    /**
     * Whether the guest's rping exited 0, or with rping's own teardown race: after the disconnect its
     * CM thread may still wait on the event channel that main destroys, and then exits the process
     * with -1 ({@code rdma_get_cm_event: Bad file descriptor}, rdma-core's rping.c {@code cm_thread}),
     * seen with rping -s after every iteration had completed. Never with a data mismatch.
     */
    private static boolean rpingEndedWell(Outcome o) {
        if (o.guestRc() == 0) {
            return true;
        }
        List<String> g = o.guest();
        int disconnect = g.indexOf(o.c().ours() == Ours.CLIENT ? "server DISCONNECT EVENT..." : "client DISCONNECT EVENT...");
        // rping's diagnostics go to stderr and its data lines to buffered stdout, so the two streams
        // interleave in any order: only the order within stderr (disconnect, then the CM thread's
        // error) is checked
        int cmError = g.lastIndexOf("rdma_get_cm_event: Bad file descriptor");
        if (o.guestRc() == 255 && disconnect >= 0 && cmError > disconnect && !g.contains("data mismatch!")) {
            LOG.warn("{}: rping in the guest exited 255 after the disconnect (its CM thread's teardown race)", o.c().name());
            return true;
        }
        return false;
    }

    @Test
    void theGuestKernelStayedHealthyAndTheVmEndedWell() {
        assertEquals(List.of(), run.vm().kernelFaults(), run.vm().tail(60));
        assertEquals(0, run.vm().exitCode(), run.vm().tail(60));
    }

    @Test
    void ourRpingClientCompletesEveryIterationAgainstRpingServerOverSiwByteExact() {
        List<Executable> checks = new ArrayList<>();
        for (Outcome o : run.outcomes().values()) {
            if (o.c().ours() != Ours.CLIENT || o.c().play() != Play.RPING) {
                continue;
            }
            checks.add(() -> {
                assertNull(o.failure(), () -> o.c().name() + ": " + o.failure() + "\n" + guestLog(o));
                // our client compared siw's RDMA Write of the echo with its source, byte for byte (-V)
                assertEquals(pings("ping data: ", o.c().count(), o.c().size()), o.report().lines(), o.c().name());
                assertEquals(smbdirect.api.rdma.DisconnectCause.LOCAL, o.report().cause(), o.c().name());
                assertTrue(rpingEndedWell(o), guestLog(o));
                if (o.c().verbose()) {
                    // what siw's RDMA Read took from our source buffer, as rping -s printed it
                    assertEquals(pings("server ping data: ", o.c().count(), o.c().size()),
                            o.guest().stream().filter(l -> l.startsWith("server ping data: ")).toList(), guestLog(o));
                }
            });
        }
        assertAll(checks);
    }

    @Test
    void rpingClientOverSiwCompletesEveryIterationAgainstOurServerAndValidatesTheEcho() {
        List<Executable> checks = new ArrayList<>();
        for (Outcome o : run.outcomes().values()) {
            if (o.c().ours() != Ours.SERVER || o.c().play() != Play.RPING) {
                continue;
            }
            checks.add(() -> {
                // rping -c -V exits non-zero with "data mismatch!" when our RDMA Write differs from its source
                assertTrue(rpingEndedWell(o), guestLog(o));
                assertNull(o.failure(), () -> o.c().name() + ": " + o.failure() + "\n" + guestLog(o));
                assertEquals(o.c().count(), o.report().iterations(), o.c().name());
                // what our RDMA Read took from siw's source buffer
                assertEquals(pings("server ping data: ", o.c().count(), o.c().size()), o.report().lines(),
                        o.c().name());
                assertEquals(smbdirect.api.rdma.DisconnectCause.PEER, o.report().cause(), o.c().name());
                if (o.c().verbose()) {
                    assertEquals(pings("ping data: ", o.c().count(), o.c().size()),
                            o.guest().stream().filter(l -> l.startsWith("ping data: ")).toList(), guestLog(o));
                }
            });
        }
        assertAll(checks);
    }

    /** The PDUs of one case's connection. */
    private List<CapturedPdu> pdus(Outcome o) {
        return run.pdus().stream().filter(p -> p.srcPort() == o.listenPort() || p.dstPort() == o.listenPort()).toList();
    }

    @Test
    void wiresharkDecodesEveryFrameWithoutAProblemAndEveryCrcIsGood() {
        assertTrue(run.pdus().size() > 100, "PDUs decoded: " + run.pdus().size());
        List<Executable> checks = new ArrayList<>();
        for (CapturedPdu p : run.pdus()) {
            checks.add(() -> assertEquals(List.of(), p.problems(), p.toString()));
        }
        for (Outcome o : run.outcomes().values()) {
            List<CapturedPdu> fpdus = pdus(o).stream().filter(p -> p.kind() == CapturedPdu.Kind.FPDU).toList();
            checks.add(() -> {
                assertTrue(fpdus.size() >= (o.c().play() == Play.RPING ? 7 * o.c().count() : 2),
                        o.c().name() + ": " + fpdus.size() + " FPDUs");
                String expected = o.c().crc() ? "good" : "none";
                List<String> other = fpdus.stream().filter(p -> !p.crc().equals(expected)).map(CapturedPdu::toString)
                        .toList();
                assertEquals(List.of(), other, o.c().name() + ": every FPDU's CRC is " + expected);
            });
        }
        assertAll(checks);
    }

    /**
     * One line per message (a Send, Write or Read Response in several FPDUs is one line): who sent
     * it ("c" client, "s" server), the operation and its payload bytes.
     */
    private static List<String> messages(List<CapturedPdu> pdus, int listenPort) {
        List<String> out = new ArrayList<>();
        long payload = 0;
        for (CapturedPdu p : pdus) {
            String who = p.srcPort() == listenPort ? "s" : "c";
            if (p.kind() != CapturedPdu.Kind.FPDU) {
                out.add(who + " " + p.operation());
                continue;
            }
            payload += p.number("iwarp_mpa.ulpdulength") - (p.has("iwarp_ddp.stag") ? 14 : 18);
            if (p.last()) {
                out.add(who + " " + p.operation() + " " + payload);
                payload = 0;
            }
        }
        return out;
    }

    @Test
    void eachConnectionCarriesRpingsExchangeInRpingsOrder() {
        List<Executable> checks = new ArrayList<>();
        for (Outcome o : run.outcomes().values()) {
            Case c = o.c();
            if (c.play() != Play.RPING) {
                continue;
            }
            List<String> expected = new ArrayList<>(List.of("c MPA Request", "s MPA Reply"));
            int echo = c.size(); // the server writes strlen + 1 bytes: the whole buffer for rping's data
            for (int i = 0; i < c.count(); i++) {
                expected.addAll(List.of("c Send 16", "s Read Request 28", "c Read Response " + c.size(), "s Send 16",
                        "c Send 16", "s Write " + echo, "s Send 16"));
            }
            List<String> got = new ArrayList<>(messages(pdus(o), o.listenPort()));
            String trace = c.name() + ":\n" + pdus(o).stream().map(CapturedPdu::toString)
                    .collect(Collectors.joining("\n"));
            checks.add(() -> {
                // RFC 6581 §5: the initiator's first FPDU is the RTR frame the Reply chose; a Read RTR is
                // answered by a zero-length Read Response, which may pass the initiator's next Sends
                if (c.rtr() == RtrMode.WRITE) {
                    assertEquals("c Write 0", got.remove(2), trace);
                } else if (c.rtr() == RtrMode.READ) {
                    assertEquals("c Read Request 28", got.remove(2), trace);
                    assertTrue(got.remove("s Read Response 0"), trace);
                }
                assertEquals(expected, got, trace);
            });
        }
        assertAll(checks);
    }

    /** A PDU without the values that are each side's own (STags, Tagged Offsets, rping's buffer addresses). */
    private static String shape(CapturedPdu p, int listenPort) {
        String who = p.srcPort() == listenPort ? "s" : "c";
        if (p.kind() != CapturedPdu.Kind.FPDU) {
            return who + " " + p.operation() + " flags " + p.field("iwarp_mpa.res") + " crc " + p.field("iwarp_mpa.crc_flag")
                    + " rev " + p.field("iwarp_mpa.rev") + " pd " + p.privateData();
        }
        StringBuilder b = new StringBuilder(who).append(' ').append(p.operation()).append(" ulpdu ")
                .append(p.field("iwarp_mpa.ulpdulength")).append(" ddp ").append(p.values().get("iwarp_ddp.control_field"));
        for (String f : List.of("iwarp_ddp.tagged_flag", "iwarp_ddp.last_flag", "iwarp_ddp.dv", "iwarp_rdma.version",
                "iwarp_ddp.qn", "iwarp_ddp.msn", "iwarp_ddp.mo", "iwarp_rdma.rdmardsz")) {
            if (p.has(f)) {
                b.append(' ').append(f.substring(f.indexOf('.') + 1)).append('=').append(p.field(f));
            }
        }
        return b.append(" crc ").append(p.crc()).toString();
    }

    /** The shapes of what the side {@code who} ("c" or "s") of {@code o}'s connection sent. */
    private List<String> sentBy(Outcome o, String who) {
        return pdus(o).stream().map(p -> shape(p, o.listenPort())).filter(s -> s.startsWith(who + " ")).toList();
    }

    @Test
    void asServerOurProviderSendsWhatSiwSendsAsServer() {
        // siw's server frames (client-*: rping -s over siw) against ours (server-*: our server)
        assertAll(
                () -> assertEquals(sentBy(outcome("client-crc"), "s"), sentBy(outcome("server-crc"), "s"),
                        "with CRC: siw's server frames (expected) and ours"),
                () -> assertEquals(sentBy(outcome("client-plain"), "s"), sentBy(outcome("server-plain"), "s"),
                        "without CRC: siw's server frames (expected) and ours"));
    }

    @Test
    void asClientOurProviderSendsWhatSiwSendsAsClientExceptThatItAsksForCrc() {
        List<String> siwCrc = sentBy(outcome("server-crc"), "c");
        List<String> oursCrc = sentBy(outcome("client-crc"), "c");
        assertAll(
                () -> assertEquals(sentBy(outcome("server-plain"), "c"), sentBy(outcome("client-plain"), "c"),
                        "without CRC: siw's client frames (expected) and ours, MPA Request included"),
                () -> assertEquals(siwCrc.subList(1, siwCrc.size()), oursCrc.subList(1, oursCrc.size()),
                        "with CRC: siw's client FPDUs (expected) and ours"),
                // siw asks for no CRC (mpa_crc_required is off); ours asks, as configured, and siw follows
                () -> assertEquals(siwCrc.get(0).replace("crc 0", "crc 1"), oursCrc.get(0),
                        "the MPA Requests differ only in C"));
    }

    @Test
    void theClientEndsEachRpingConnectionWithAnOrderlyCloseAndNeitherSideResets() {
        List<Executable> checks = new ArrayList<>();
        for (Outcome o : run.outcomes().values()) {
            if (o.c().play() != Play.RPING) {
                continue;
            }
            List<String> ends = run.tcpEnds().stream().map(l -> l.split(" ")).filter(
                    f -> Integer.parseInt(f[1]) == o.listenPort() || Integer.parseInt(f[2]) == o.listenPort())
                    .map(f -> (Integer.parseInt(f[1]) == o.listenPort() ? "s " : "c ") + f[3]).toList();
            checks.add(() -> assertEquals(List.of("c F", "s F"), ends, o.c().name() + ": FIN and RST segments"));
        }
        assertAll(checks);
    }

    /** The Terminate FPDUs of a case's connection. */
    private List<CapturedPdu> terminates(Outcome o) {
        return pdus(o).stream().filter(p -> p.operation().equals("Terminate")).toList();
    }

    @Test
    void siwTerminatesASendLongerThanItsReceiveAndTheProviderReadsSiwsLayout() {
        Outcome o = outcome("client-send-too-long");
        TerminatingPeer.End end = o.end();
        assertNotNull(end, () -> o.ours() + "\n" + guestLog(o));
        // siw 6.1 reports a Send longer than the posted receive as DDP / untagged / 0x02 ("no buffer",
        // siw_send_check_ntoh), where RFC 5041 §7.2 has 0x05; its control word is its x86 bit-field layout
        assertEquals(smbdirect.api.rdma.DisconnectCause.QP_ERROR, end.cause(), end.detail());
        assertTrue(end.detail().startsWith("the peer sent Terminate DDP / Untagged Buffer Error / 0x02")
                && end.detail().contains("[read in Linux siw's bit-field layout]"), end.detail());
        List<CapturedPdu> t = terminates(o);
        assertEquals(1, t.size(), () -> pdus(o).toString());
        assertEquals(o.listenPort(), t.get(0).srcPort(), "siw, the server, sent it");
        assertEquals("2", t.get(0).field("iwarp_ddp.qn"), "RFC 5040 §4.8: QN 2");
        assertEquals("1", t.get(0).field("iwarp_ddp.msn"), "the first Terminate: MSN 1");
        // rping -s saw its receive complete in error (siw flushed it); rping still exits 0 there
        assertTrue(o.guest().stream().anyMatch(l -> l.startsWith("cq completion failed status")), guestLog(o));
        assertTrue(o.guest().stream().noneMatch(l -> l.startsWith("server ping data: ")), guestLog(o));
    }

    @Test
    void theProviderTerminatesASendLongerThanTheReceiveAndSiwReadsTheRfcLayoutSwapped() {
        Outcome o = outcome("server-receive-too-short");
        TerminatingPeer.End end = o.end();
        assertNotNull(end, () -> o.ours() + "\n" + guestLog(o));
        assertEquals(smbdirect.api.rdma.DisconnectCause.QP_ERROR, end.cause(), end.detail());
        assertTrue(end.detail().startsWith("sent Terminate DDP / Untagged Buffer Error / 0x05"), end.detail());
        List<CapturedPdu> t = terminates(o);
        assertEquals(1, t.size(), () -> pdus(o).toString());
        CapturedPdu ours = t.get(0);
        assertEquals(o.listenPort(), ours.srcPort(), "we, the server, sent it");
        // Wireshark reads the RFC 5040 §4.8 layout: layer DDP (1), type untagged (2), code 0x05
        assertEquals(List.of("0x01", "0x02", "0x05"), List.of(ours.field("iwarp_rdma.term_layer"),
                ours.field("iwarp_rdma.term_etype_ddp"), ours.field("iwarp_rdma.term_errcode_ddp_untagged")),
                ours.toString() + " " + ours.fields());
        // siw on x86 reads the control word through a little-endian bit-field: layer and type swap
        List<String> siw = run.vm().output().stream().filter(l -> l.contains("siw: got TERMINATE")).toList();
        assertEquals(1, siw.size(), run.vm().tail(80));
        assertTrue(siw.get(0).endsWith("siw: got TERMINATE. layer 2, type 1, code 5"), siw.get(0));
        // rping -c never got its first go-ahead: it saw the disconnect while waiting (and exits 0 even so)
        assertTrue(o.guest().contains("client DISCONNECT EVENT..."), guestLog(o));
        assertTrue(o.guest().stream().noneMatch(l -> l.startsWith("ping data: ")), guestLog(o));
    }
}
