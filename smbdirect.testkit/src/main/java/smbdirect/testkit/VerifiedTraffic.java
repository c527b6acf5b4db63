package smbdirect.testkit;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;
import smbdirect.testsupport.traffic.Traffic;

/**
 * For tests in wall-clock time (threaded fabrics, hardware, OSGi containers).
 * Continuous, verifiable traffic over one connection: a sender thread sends numbered messages of
 * varying sizes (some fragmented) whose every byte is a function of the number; the receiving
 * handler checks each message byte by byte and checks that the numbers arrive in order without a
 * gap.
 */
public final class VerifiedTraffic {

    // The traffic itself is the one of the project's own tests (smbdirect.testsupport.traffic, carried
    // privately by this bundle); this class is its published face.

    private VerifiedTraffic() {
    }

    /** The length of message {@code seq}: 8 to 6007 bytes, so some are fragmented. */
    public static int size(long seq) {
        return Traffic.size(seq);
    }

    /** Message {@code seq}: its number, then bytes that are a function of the number and the position. */
    public static ByteBuffer message(long seq) {
        return Traffic.message(seq);
    }

    /** Receives and checks; records the first problem. */
    public static final class Receiver implements ConnectionHandler {
        private final Traffic.Receiver checks = new Traffic.Receiver();
        public final List<String> problems = checks.problems;
        public final CompletableFuture<CloseReason> closed = checks.closed;

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            checks.onMessage(connection, message);
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            checks.onDisconnected(connection, reason);
        }

        /** Messages received in order so far. */
        public long received() {
            return checks.received();
        }

        /** Waits (woken by each message) until {@code count} messages arrived. */
        public void awaitReceived(long count, String what) throws InterruptedException {
            checks.awaitReceived(count, what);
        }

        /** Waits up to 10 s for the disconnect notification. */
        public CloseReason awaitClosed() throws Exception {
            return checks.awaitClosed();
        }
    }

    /**
     * Sends numbered messages on a thread of its own, at most {@link #WINDOW} outstanding, until
     * stopped or a send fails. Every send must be told its outcome exactly once ({@link SendCompletion}):
     * a second completion is a problem, and {@link #stopAndJoin()} fails unless every send issued has
     * completed, successfully or not, within {@link #COMPLETION_BOUND}, on a connection closed under
     * it as on a live one.
     */
    public static final class Sender implements Runnable {
        /** Sends outstanding at most. */
        public static final int WINDOW = Traffic.Sender.WINDOW;
        /**
         * How long the sends still outstanding when the sender stops may take to complete: the time a
         * busy 2-vCPU machine may take to deliver 16 queued messages of up to 6 KiB, or to flush them
         * when the connection closes; no timer of the transport is involved.
         */
        public static final Duration COMPLETION_BOUND = Traffic.Sender.COMPLETION_BOUND;
        private final Traffic.Sender sending;
        public final SmbDirectConnection connection;
        public final AtomicBoolean stop;
        public final AtomicLong completed;
        public final AtomicLong sent;
        public final CompletableFuture<Throwable> failure;
        public final Semaphore window;
        public final List<String> problems;

        /** A sender on {@code connection} whose thread is named {@code name}; not started. */
        public Sender(SmbDirectConnection connection, String name) {
            sending = new Traffic.Sender(connection, name);
            this.connection = sending.connection;
            stop = sending.stop;
            completed = sending.completed;
            sent = sending.sent;
            failure = sending.failure;
            window = sending.window;
            problems = sending.problems;
        }

        /** Starts the sending thread. */
        public Sender start() {
            sending.start();
            return this;
        }

        @Override
        public void run() {
            sending.run();
        }

        /**
         * Stops sending and waits until every send issued has completed, successfully or not; fails
         * naming the connection and the sends still outstanding unless they all did within
         * {@link #COMPLETION_BOUND}.
         */
        public void stopAndJoin() throws InterruptedException {
            sending.stopAndJoin();
        }
    }
}
