package smbdirect.interop.siw;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import smbdirect.api.ConnectionParameters;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * Inside the guest ({@code VerbsSmbIoInVmTest} starts it, after {@code ksmbd-up}): the peer moves the
 * data over the verbs provider's rdma-core backend on the guest's real RDMA device. The engine, as
 * an SMB2 client of ksmbd in the same kernel ({@link Smb2Client}: logon, tree connect, CREATE), has
 * ksmbd RDMA-Read files of 4 KiB, 1 MiB and the negotiated MaxReadWriteSize (8 MiB) from our
 * registered buffers (SMB2 WRITE, SMB2_CHANNEL_RDMA_V1) and RDMA-Write them back into ours (SMB2
 * READ): with SMB2_CHANNEL_RDMA_V1_INVALIDATE where the provider reports Send with Invalidate (rxe:
 * memory windows), so ksmbd's Send with Invalidate really invalidates our registration, else with
 * SMB2_CHANNEL_RDMA_V1 (siw), as an SMB client must. Byte-exact, and each file hashed here, in the
 * guest, with sha256sum.
 */
@Tag(GuestJUnit.GUEST_TAG)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SmbIoOverVerbsInGuest {

    private static final Logger LOG = LoggerFactory.getLogger(SmbIoOverVerbsInGuest.class);
    private static final Duration STEP = Duration.ofSeconds(120);
    private static final String SHARE = "\\\\" + GuestVerbs.GUEST_ADDRESS + "\\x";
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;

    private ScheduledExecutorService timers;
    private RdmaProvider verbs;
    private SmbDirectEngine engine;
    private SmbDirectConnection connection;
    private ConnectionParameters parameters;
    private int readChannel;
    private boolean remoteInvalidation;
    private final List<SiwSmbIoTest.Io> ios = new ArrayList<>();
    private final List<String> guestHashes = new ArrayList<>();

    @BeforeAll
    void moveTheData() throws Exception {
        timers = Executors.newSingleThreadScheduledExecutor();
        verbs = GuestVerbs.provider();
        engine = new SmbDirectEngine(verbs, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        LOG.info("verbs provider: {} {}", verbs.transportType(), verbs.describeSettings());
        int port = verbs.transportType() == TransportType.IWARP ? 5445 : 445;
        Smb2Client.Inbox inbox = new Smb2Client.Inbox();
        connection = engine.connect(new InetSocketAddress(GuestVerbs.GUEST_ADDRESS, port), Duration.ofSeconds(30), inbox)
                .toCompletableFuture().get(STEP.toSeconds(), TimeUnit.SECONDS);
        parameters = connection.parameters();
        Smb2Client client = new Smb2Client(connection, inbox, STEP);
        assertEquals(0x0302, Smb2.dialectRevision(client.negotiate().response().bytes()),
                "dialect 3.0.2: ksmbd takes SMB2_CHANNEL_RDMA_V1_INVALIDATE from 3.0.2 on");
        assertEquals(List.of(Smb2.MORE_PROCESSING_REQUIRED, 0), client.logOn("a", "b").statuses(), "logon as a / b");
        client.treeConnect(SHARE);
        // an SMB client offers its tokens for remote invalidation only where the connection says a
        // peer's Send with Invalidate invalidates them and is reported (the receiving direction;
        // sendWithInvalidate is the posting one)
        remoteInvalidation = parameters.remoteInvalidation();
        readChannel = remoteInvalidation ? Smb2.CHANNEL_RDMA_V1_INVALIDATE : Smb2.CHANNEL_RDMA_V1;
        LOG.info("READ channel {} (a peer's Send with Invalidate of our memory {}; posting it {})", readChannel,
                remoteInvalidation, parameters.sendWithInvalidate());
        for (int size : new int[] {4 * KIB, MIB, parameters.maxReadWriteSize()}) {
            String file = "verbs-" + size + ".bin";
            ios.add(SiwSmbIoTest.io(client, file, size, 1, readChannel));
            guestHashes.add(sha256sum("/tmp/x/" + file));
        }
        connection.close().toCompletableFuture().get(STEP.toSeconds(), TimeUnit.SECONDS);
    }

    @AfterAll
    void shutdown() throws Exception {
        if (engine != null) {
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test end")).toCompletableFuture()
                    .get(STEP.toSeconds(), TimeUnit.SECONDS);
        }
        if (verbs != null) {
            GuestVerbs.shutdown(verbs);
        }
        if (timers != null) {
            timers.shutdownNow();
        }
    }

    /** sha256sum of {@code path} in the guest, printed on the console; the hash. */
    private static String sha256sum(String path) throws Exception {
        Process p = new ProcessBuilder("sha256sum", path).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "sha256sum " + path);
        System.out.println("hash: " + out);
        return out.split("\\s+")[0];
    }

    @Test
    void theNegotiatedMaxReadWriteSizeIsKsmbdsEightMegabytes() {
        assertEquals(8 * MIB, parameters.maxReadWriteSize());
        assertEquals(List.of(4 * KIB, MIB, 8 * MIB), ios.stream().map(SiwSmbIoTest.Io::size).toList());
    }

    @Test
    void ksmbdRdmaReadsEachWriteFromOurBufferIntoTheFileByteExact() {
        assertAll(ios.stream().map(io -> (Executable) () -> assertAll(io.file(),
                () -> assertEquals(0, io.writeStatus(), "WRITE status"),
                () -> assertEquals(io.size(), io.writeCount(), "WRITE Count"),
                () -> assertEquals(io.sha256(), guestHashes.get(ios.indexOf(io)),
                        "the file in the guest is what we wrote"))));
    }

    @Test
    void ksmbdRdmaWritesEachReadIntoOurBufferByteExact() {
        assertAll(ios.stream().map(io -> (Executable) () -> assertAll(io.file(),
                () -> assertEquals(0, io.readStatus(), "READ status"),
                // ksmbd answers an RDMA READ with DataLength 0 and the bytes it RDMA-Wrote as DataRemaining
                () -> assertEquals(0, io.readDataLength(), "READ DataLength"),
                () -> assertEquals(io.size(), io.readRemaining(), "READ DataRemaining"),
                () -> assertTrue(io.sameBytes(), "the bytes read back are the file's"))));
    }

    /**
     * Where a peer's Send with Invalidate invalidates our memory and is reported (rxe's memory
     * windows) ksmbd's response to each READ invalidates our registration and the engine reports the
     * token; where not (siw) the READ asks for no remote invalidation and our registration stays
     * valid until we deregister it. Posting Send with Invalidate is on for both (the engine's
     * capability, for tokens a peer hands out).
     */
    @Test
    void theReadChannelFollowsWhatTheProviderSaysOfRemoteInvalidation() {
        assertEquals(verbs.capabilities().sendWithInvalidate(), parameters.sendWithInvalidate());
        assertEquals(GuestVerbs.remoteInvalidation(verbs), parameters.remoteInvalidation(),
                "the connection's word is the provider's: " + verbs.describeSettings());
        assertTrue(parameters.sendWithInvalidate(), "siw and rxe post Send with Invalidate: " + verbs.describeSettings());
        for (SiwSmbIoTest.Io io : ios) {
            if (remoteInvalidation) {
                assertAll(io.file() + " (SMB2_CHANNEL_RDMA_V1_INVALIDATE)",
                        () -> assertTrue(io.invalidated(), "ksmbd's response came as a Send with Invalidate"),
                        () -> assertEquals(io.read().get(0).token(), io.invalidatedToken(), "of our first token"),
                        () -> assertFalse(io.readRegistrationValid(), "and invalidated our registration"));
            } else {
                assertAll(io.file() + " (SMB2_CHANNEL_RDMA_V1: " + verbs.describeSettings() + ")",
                        () -> assertEquals(Smb2.CHANNEL_RDMA_V1, readChannel),
                        () -> assertFalse(io.invalidated(), "no Send with Invalidate"),
                        () -> assertTrue(io.readRegistrationValid(), "our registration stays ours to release"));
            }
        }
    }
}
