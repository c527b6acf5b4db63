package smbdirect.interop.siw;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.verbs.WireRecorder;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * Inside the guest ({@code VerbsSmbInVmTest} starts it, with {@code ksmbd-up} run before): the SMB
 * Direct engine over the verbs provider on the guest's real RDMA device against Linux's SMB Direct
 * in the same kernel. First the engine as client of ksmbd (port 5445 on iWARP, 445 otherwise, as
 * ksmbd's {@code transport_rdma.c} chooses): [MS-SMBD] negotiation, an SMB2 NEGOTIATE and a logon as
 * a / b through the engine; then ksmbd is stopped and {@code mount -t cifs -o rdma} runs against the
 * engine listening on 5445, the port cifs dials first: cifs's Negotiate Request and its first SMB2
 * message arrive byte-exact and our Negotiate Response is accepted (cifs sends that message only
 * after checking it). Bytes are recorded at the provider SPI ({@link WireRecorder}): both peers use
 * the one device, so there is no wire to capture.
 */
@Tag(GuestJUnit.GUEST_TAG)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SmbOverVerbsInGuest {

    private static final Logger LOG = LoggerFactory.getLogger(SmbOverVerbsInGuest.class);
    private static final HexFormat HEX = HexFormat.of();
    private static final long WAIT = 60;
    private static final int CIFS_PORT = 5445;
    /** The engine's default Negotiate Request (interop README): 0x0100, 255 credits, 1364, 8192, 1 MiB. */
    static final String ENGINE_NEGOTIATE_REQUEST = "000100010000ff00540500000020000000001000";
    /** ksmbd 6.1's Negotiate Response to it (interop README, PROOF d1). */
    static final String KSMBD_NEGOTIATE_RESPONSE = "0001000100010000ff00fe0000000000000080005405000054050000"
            + "56a70200";

    private ScheduledExecutorService timers;
    private RdmaProvider verbs;
    private WireRecorder wire;
    private SmbDirectEngine engine;

    private int ksmbdPort;
    private byte[] smb2Response;
    private ConnectionDTO ksmbdNegotiated;
    private Smb2Client.Logon logon;
    private Throwable logonFailure;
    private CloseReason ksmbdClosed;
    private WireRecorder.Connection toKsmbd;

    private byte[] cifsFirst;
    private ConnectionDTO cifsNegotiated;
    private int cifsConnections;
    private WireRecorder.Connection fromCifs;
    private String mount;

    @BeforeAll
    void exchange() throws Exception {
        timers = Executors.newSingleThreadScheduledExecutor();
        verbs = GuestVerbs.provider();
        wire = new WireRecorder(verbs);
        engine = new SmbDirectEngine(wire, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        LOG.info("verbs provider: {} {}", verbs.transportType(), verbs.describeSettings());
        ksmbdPort = verbs.transportType() == TransportType.IWARP ? 5445 : 445;
        againstKsmbd();
        stopKsmbd();
        fromCifs();
    }

    @AfterAll
    void shutdown() throws Exception {
        if (engine != null) {
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end")).toCompletableFuture()
                    .get(WAIT, TimeUnit.SECONDS);
        }
        if (verbs != null) {
            GuestVerbs.shutdown(verbs);
        }
        if (timers != null) {
            timers.shutdownNow();
        }
    }

    private void againstKsmbd() throws Exception {
        Smb2Client.Inbox inbox = new Smb2Client.Inbox();
        SmbDirectConnection c = engine.connect(new InetSocketAddress(GuestVerbs.GUEST_ADDRESS, ksmbdPort),
                Duration.ofSeconds(30), inbox).toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
        toKsmbd = wire.connections().get(wire.connections().size() - 1);
        ksmbdNegotiated = c.getConnectionDTO();
        Smb2Client client = new Smb2Client(c, inbox, Duration.ofSeconds(WAIT));
        smb2Response = client.negotiate(Smb2.negotiateRequest(0)).response().bytes();
        try {
            logon = client.logOn("a", "b");
        } catch (Exception | AssertionError e) {
            LOG.warn("the SMB2 logon through the engine failed: {}", e.toString());
            logonFailure = e;
        }
        c.close().toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
        ksmbdClosed = inbox.closed().get(WAIT, TimeUnit.SECONDS);
    }

    /** Stops ksmbd and waits until its RDMA CM listener is gone. */
    private void stopKsmbd() throws Exception {
        LOG.info("ksmbd.control -s: {}", shell("ksmbd.control -s", 60));
        for (int i = 0; i < 150 && shell("rdma res show cm_id", 30).contains("state LISTEN"); i++) {
            Thread.sleep(200);
        }
    }

    private void fromCifs() throws Exception {
        List<SmbDirectConnection> accepted = new CopyOnWriteArrayList<>();
        SiwSmbDirectTest.Messages h = new SiwSmbDirectTest.Messages();
        SmbDirectListener listener = engine.listen(new InetSocketAddress(GuestVerbs.GUEST_ADDRESS, CIFS_PORT), c -> {
            accepted.add(c);
            return h;
        });
        GuestVerbs.awaitCmListener(CIFS_PORT);
        Process mountCifs = new ProcessBuilder("sh", "-c", "mkdir -p /mnt && timeout 90 mount.cifs //"
                + GuestVerbs.GUEST_ADDRESS + "/x /mnt -o rdma,username=a,password=b,vers=3.0; echo \"mount rc=$?\"")
                .redirectErrorStream(true).start();
        try {
            cifsFirst = h.received.poll(120, TimeUnit.SECONDS);
            SmbDirectConnection c = accepted.isEmpty() ? null : accepted.get(0);
            cifsNegotiated = c == null ? null : c.getConnectionDTO();
            cifsConnections = accepted.size();
            // no SMB2 server above the engine: stop listening, then end the connection and with it the mount
            listener.close().toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
            if (c != null) {
                c.close().toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
            }
            if (!mountCifs.waitFor(120, TimeUnit.SECONDS)) {
                mountCifs.destroyForcibly();
            }
            mount = new String(mountCifs.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            LOG.info("mount.cifs: {}", mount);
        } finally {
            mountCifs.destroyForcibly();
        }
        fromCifs = wire.connections().stream().filter(x -> x.requestPrivateData != null).findFirst().orElse(null);
    }

    /** Runs {@code command} in the guest's shell (at most {@code seconds}); its output, or why it was killed. */
    static String shell(String command, int seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return command + ": killed after " + seconds + " s";
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }

    @Test
    void theEnginesNegotiateRequestAndKsmbdsResponseCrossTheVerbsByteExact() {
        assertAll(
                () -> assertEquals(ENGINE_NEGOTIATE_REQUEST, HEX.formatHex(toKsmbd.sent.get(0)), "what we posted"),
                () -> assertEquals(KSMBD_NEGOTIATE_RESPONSE, HEX.formatHex(toKsmbd.received.get(0)),
                        "what ksmbd answered, as our receive completed with it"));
    }

    @Test
    void theEngineTookKsmbdsNegotiatedValues() {
        ConnectionDTO d = ksmbdNegotiated;
        assertAll(
                () -> assertEquals(0x0100, d.protocol),
                () -> assertEquals(1364, d.maxSendSize, "min(our PreferredSendSize, ksmbd's MaxReceiveSize 1364)"),
                () -> assertEquals(1364, d.maxReceiveSize, "ksmbd's PreferredSendSize"),
                () -> assertEquals(173910, d.maxFragmentedSendSize, "ksmbd's MaxFragmentedSize"),
                () -> assertTrue(d.sendCredits > 0 && d.sendCredits <= 254, "credits from ksmbd's grant " + d.sendCredits));
    }

    @Test
    void ksmbdAnswersTheEnginesSmb2NegotiateThroughTheVerbsProvider() {
        Smb2.Header h = Smb2.Header.of(smb2Response);
        assertAll(
                () -> assertEquals(Smb2.PROTOCOL_ID, h.protocolId()),
                () -> assertEquals(Smb2.NEGOTIATE, h.command()),
                () -> assertEquals(Smb2.SERVER_TO_REDIR, h.flags() & Smb2.SERVER_TO_REDIR, "a response"),
                () -> assertEquals(0, h.status(), "STATUS_SUCCESS"),
                () -> assertEquals(65, h.bodyStructureSize()),
                () -> assertEquals(0x0302, Smb2.dialectRevision(smb2Response), "ksmbd 6.1's highest of ours"),
                () -> assertArrayEquals(smb2Response, Arrays.copyOfRange(toKsmbd.received.get(1), 24,
                        toKsmbd.received.get(1).length), "delivered as received, after the 24-byte data header"),
                () -> assertEquals(CloseReason.Kind.LOCAL_CLOSE, ksmbdClosed.kind(), ksmbdClosed.toString()));
    }

    @Test
    void ksmbdLogsUserAOnThroughTheEngineWithNtlmv2() {
        assertNotNull(logon, () -> "the logon did not complete: " + logonFailure);
        assertAll(
                () -> assertEquals(List.of(Smb2.MORE_PROCESSING_REQUIRED, 0), logon.statuses()),
                () -> assertNotEquals(0, logon.sessionId(), "SessionId"),
                () -> assertEquals(0, logon.sessionFlags() & 0x1, "not a guest session"));
    }

    @Test
    void cifsNegotiateRequestArrivesByteExact() {
        assertNotNull(fromCifs, "a connection from cifs: " + mount);
        assertAll(
                () -> assertEquals(SiwSmbDirectTest.CIFS_NEGOTIATE_REQUEST, HEX.formatHex(fromCifs.received.get(0))),
                () -> assertEquals(1, cifsConnections, "one connection from cifs"));
    }

    @Test
    void cifsPrivateDataAsTheDeviceDeliversIt() {
        assertNotNull(fromCifs, "a connection from cifs: " + mount);
        String pd = HEX.formatHex(fromCifs.requestPrivateData);
        if (verbs.transportType() == TransportType.IWARP) {
            // cifs's u32 ird_ord_hdr[2] = {responder_resources 32, 1}, host order (PROOF d3); the MPA
            // RFC 6581 word before it is the device's, not delivered
            assertEquals("2000000001000000", pd, "cifs's [MS-SMBD] 6.1 header on iWARP");
        } else {
            // cifs sends no private data on RoCE: the IB CM's REQ carries zeros after the RDMA CM header
            assertEquals("0".repeat(pd.length()), pd, "no private data from cifs on " + verbs.transportType());
        }
        LOG.info("cifs's connect: private data {} ({} bytes), IRD {} ORD {}", pd, fromCifs.requestPrivateData.length,
                fromCifs.peerInboundReadDepth, fromCifs.peerOutboundReadDepth);
    }

    @Test
    void cifsAcceptsOurNegotiateResponseAndSendsItsSmb2NegotiateByteExact() {
        assertNotNull(cifsFirst, () -> "no first message from cifs (" + mount + ")");
        Smb2.Header h = Smb2.Header.of(cifsFirst);
        byte[] carried = fromCifs.received.stream().filter(m -> m.length > 24 && dataLength(m) > 0).findFirst()
                .orElseThrow();
        assertAll(
                () -> assertEquals(Smb2.PROTOCOL_ID, h.protocolId()),
                () -> assertEquals(Smb2.NEGOTIATE, h.command()),
                () -> assertEquals(0, h.flags() & Smb2.SERVER_TO_REDIR, "a request"),
                () -> assertEquals(36, h.bodyStructureSize()),
                () -> assertTrue(Smb2.dialectCount(cifsFirst) > 0),
                () -> assertEquals(cifsFirst.length, dataLength(carried), "DataLength"),
                () -> assertEquals(24, header(carried).getInt(12), "DataOffset"),
                () -> assertArrayEquals(cifsFirst, Arrays.copyOfRange(carried, 24, carried.length),
                        "the engine delivered what cifs's Send carried"),
                // the data transfer messages after the Negotiate Request: an empty one grants credits
                () -> assertTrue(fromCifs.received.subList(1, fromCifs.received.size()).stream()
                        .anyMatch(m -> m.length >= 20 && dataLength(m) == 0 && header(m).getShort(2) > 0),
                        () -> "cifs grants us credits in an empty data message: " + fromCifs.received.stream()
                                .map(HEX::formatHex).toList()));
    }

    @Test
    void ourNegotiateResponseToCifsPassesEveryCheckOfCifs() {
        assertNotNull(cifsNegotiated, "the engine accepted cifs's connection (" + mount + ")");
        ByteBuffer r = header(fromCifs.sent.get(0));
        assertAll(
                () -> assertEquals(32, fromCifs.sent.get(0).length, "Negotiate Response size"),
                () -> assertEquals(0x0100, r.getShort(4) & 0xFFFF, "NegotiatedVersion"),
                () -> assertNotEquals(0, r.getShort(8), "CreditsRequested"),
                () -> assertNotEquals(0, r.getShort(10), "CreditsGranted"),
                () -> assertEquals(0, r.getInt(12), "Status"),
                () -> assertTrue(r.getInt(20) <= 1364, "PreferredSendSize within cifs's MaxReceiveSize"),
                () -> assertTrue(r.getInt(24) >= 128, "MaxReceiveSize"),
                () -> assertTrue(r.getInt(28) >= 131072, "MaxFragmentedSize"),
                () -> assertEquals(1364, cifsNegotiated.maxSendSize),
                () -> assertEquals(173910, cifsNegotiated.maxFragmentedSendSize, "cifs's MaxFragmentedSize"),
                () -> assertTrue(mount.contains("mount rc=") && !mount.contains("mount rc=0"),
                        "the mount fails for lack of an SMB2 server above the engine: " + mount));
    }

    private static ByteBuffer header(byte[] m) {
        return ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** DataLength of an [MS-SMBD] 2.2.3 data transfer message. */
    private static int dataLength(byte[] m) {
        return header(m).getInt(16);
    }
}
