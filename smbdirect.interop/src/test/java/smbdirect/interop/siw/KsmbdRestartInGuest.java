package smbdirect.interop.siw;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
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
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * Inside the guest ({@code VerbsKsmbdRestartInVmTest} starts it, with {@code ksmbd-up} run before):
 * ksmbd restarted in the middle of a session, the engine over the verbs provider as its client. A
 * session is logged on through the engine (port 5445 on iWARP, 445 otherwise, as ksmbd chooses);
 * then {@code ksmbd.control -s} stops ksmbd, which ends its connections and closes its listeners;
 * then {@code ksmbd-up} starts it again, and a new connection negotiates and logs on.
 */
@Tag(GuestJUnit.GUEST_TAG)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KsmbdRestartInGuest {

    private static final Logger LOG = LoggerFactory.getLogger(KsmbdRestartInGuest.class);
    private static final long WAIT = 60;

    private ScheduledExecutorService timers;
    private RdmaProvider verbs;
    private SmbDirectEngine engine;
    private int port;

    /** The session ksmbd's stop ended: why, and how long the end took to arrive. */
    private CloseReason stoppedMidSession;
    private long stoppedMidSessionMillis;
    private Throwable failure;
    /** The session opened with the restarted ksmbd. */
    private Smb2Client.Logon afterRestart;

    @BeforeAll
    void restartMidSession() throws Exception {
        timers = Executors.newSingleThreadScheduledExecutor();
        verbs = GuestVerbs.provider();
        engine = new SmbDirectEngine(verbs, TransportSettings.DEFAULTS, new ExecutorScheduler(timers));
        port = verbs.transportType() == TransportType.IWARP ? 5445 : 445;
        try {
            Smb2Client.Inbox inbox = new Smb2Client.Inbox();
            Smb2Client.Logon session = logOn(inbox);
            LOG.info("session {} logged on; ksmbd.control -s with it open: {}", Long.toHexString(session.sessionId()),
                    shell("ksmbd.control -s", 60));
            long start = System.nanoTime();
            stoppedMidSession = inbox.closed().get(WAIT, TimeUnit.SECONDS);
            stoppedMidSessionMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            LOG.info("the session's connection ended {} ms after the stop: {}", stoppedMidSessionMillis, stoppedMidSession);
            for (int i = 0; i < 150 && shell("rdma res show cm_id", 30).contains("state LISTEN"); i++) {
                Thread.sleep(200); // polling the kernel's table until ksmbd's listener is gone
            }
            // ksmbd-up adds user a again: its user database must go first
            LOG.info("ksmbd-up: {}", shell("rm -f /etc/ksmbd/ksmbdpwd.db; ksmbd-up; echo \"ksmbd-up rc=$?\"", 90));
            GuestVerbs.awaitCmListener(port);
            Smb2Client.Inbox again = new Smb2Client.Inbox();
            afterRestart = logOn(again);
        } catch (Exception | AssertionError e) {
            LOG.warn("ksmbd restarted mid-session: {}", e.toString());
            failure = e;
        }
    }

    /** A logon as a / b over a new connection, which stays open. */
    private Smb2Client.Logon logOn(Smb2Client.Inbox inbox) throws Exception {
        SmbDirectConnection c = engine.connect(new InetSocketAddress(GuestVerbs.GUEST_ADDRESS, port),
                Duration.ofSeconds(30), inbox).toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
        Smb2Client client = new Smb2Client(c, inbox, Duration.ofSeconds(WAIT));
        client.negotiate(Smb2.negotiateRequest(0));
        return client.logOn("a", "b");
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

    private static String shell(String command, int seconds) throws IOException, InterruptedException {
        return SmbOverVerbsInGuest.shell(command, seconds);
    }

    /**
     * ksmbd stopped with a session open ends the session's connection from its side, with a reason
     * (the peer's disconnect), within the wait; ksmbd started again serves a new connection through
     * the same provider and engine: negotiation and a logon.
     */
    @Test
    void ksmbdStoppedMidSessionEndsThatConnectionWithAReasonAndTheRestartedKsmbdServesANewOne() {
        assertAll(
                () -> assertNull(failure, () -> "the restart ran to its end: " + failure),
                () -> assertNotNull(stoppedMidSession, "the session's connection ended when ksmbd stopped"),
                () -> assertEquals(CloseReason.Kind.PEER_DISCONNECT, stoppedMidSession.kind(),
                        String.valueOf(stoppedMidSession)),
                () -> assertFalse(stoppedMidSession.detail().isBlank(), "a reason: " + stoppedMidSession),
                () -> assertNotNull(afterRestart, "a logon with the restarted ksmbd"),
                () -> assertEquals(List.of(Smb2.MORE_PROCESSING_REQUIRED, 0), afterRestart.statuses()),
                () -> assertNotEquals(0, afterRestart.sessionId(), "SessionId"));
    }
}
