package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.List;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.testkit.VerifiedTraffic;

/**
 * A connection a test made and the one its listener accepted for it, with verified traffic both
 * ways: what the provider swap tests watch while providers come and go.
 */
final class TrafficPair {

    /** A connection a listener accepted, with the receiver its handler is. */
    record Accepted(SmbDirectConnection connection, VerifiedTraffic.Receiver receiver) {
    }

    final SmbDirectConnection client;
    final VerifiedTraffic.Receiver clientReceiver;
    final SmbDirectConnection server;
    final VerifiedTraffic.Receiver serverReceiver;
    final VerifiedTraffic.Sender clientSender;
    final VerifiedTraffic.Sender serverSender;

    /** Starts traffic both ways (threads named {@code name-c} and {@code name-s}). */
    TrafficPair(String name, SmbDirectConnection client, VerifiedTraffic.Receiver clientReceiver, Accepted server) {
        this.client = client;
        this.clientReceiver = clientReceiver;
        this.server = server.connection();
        this.serverReceiver = server.receiver();
        clientSender = new VerifiedTraffic.Sender(client, name + "-c").start();
        serverSender = new VerifiedTraffic.Sender(this.server, name + "-s").start();
    }

    /** Waits until 50 more messages arrived at each end. */
    void awaitMore(String what) throws InterruptedException {
        clientReceiver.awaitReceived(clientReceiver.received() + 50, what);
        serverReceiver.awaitReceived(serverReceiver.received() + 50, what);
    }

    /**
     * Stops the traffic, waiting until every send issued was told its outcome exactly once, on a
     * connection closed under it as on a survivor ({@link VerifiedTraffic.Sender#stopAndJoin()}).
     */
    void stop() throws InterruptedException {
        clientSender.stopAndJoin();
        serverSender.stopAndJoin();
    }

    /** Both ends closed with {@code kind}; every send completed (those of a lost connection failed). */
    void assertEnded(CloseReason.Kind kind) throws Exception {
        assertEquals(kind, clientReceiver.awaitClosed().kind());
        assertEquals(kind, serverReceiver.awaitClosed().kind());
        assertFalse(client.isOpen());
        assertFalse(server.isOpen());
        stop();
        assertClean();
    }

    /** Stops the traffic of a survivor and checks that every completed send arrived, in order, once. */
    void assertSurvived() throws InterruptedException {
        stop();
        assertTrue(client.isOpen() && server.isOpen());
        serverReceiver.awaitReceived(clientSender.completed.get(), "every completed send arrived");
        clientReceiver.awaitReceived(serverSender.completed.get(), "every completed send arrived");
        assertEquals(clientSender.completed.get(), serverReceiver.received());
        assertEquals(serverSender.completed.get(), clientReceiver.received());
        assertFalse(clientReceiver.closed.isDone());
        assertFalse(serverReceiver.closed.isDone());
        assertClean();
    }

    /** No problem seen by either receiver or sender (gaps, reordering, corruption, failed sends). */
    void assertClean() {
        for (List<String> problems : List.of(clientReceiver.problems, serverReceiver.problems,
                clientSender.problems, serverSender.problems)) {
            assertEquals(List.of(), problems);
        }
    }
}
