package smbdirect.testsupport.traffic;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;

/**
 * Continuous, verifiable traffic over one connection, for tests in wall-clock time (threaded
 * fabrics, hardware, OSGi containers): a sender thread sends numbered messages of varying sizes
 * (some fragmented) whose every byte is a function of the number; the receiving handler checks each
 * message byte by byte and checks that the numbers arrive in order without a gap.
 *
 * <p>The one implementation: the engine's tests use it directly, the test kit's public
 * {@code VerifiedTraffic} hands every call to it.
 */
public final class Traffic {

    private Traffic() {
    }

    /** The length of message {@code seq}: 8 to 6007 bytes, so some are fragmented. */
    public static int size(long seq) {
        return 8 + (int) ((seq * 7919) % 6000);
    }

    /** Message {@code seq}: its number, then bytes that are a function of the number and the position. */
    public static ByteBuffer message(long seq) {
        int n = size(seq);
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        b.putLong(seq);
        for (int i = 8; i < n; i++) {
            b.put((byte) (seq * 31 + i));
        }
        return b.flip();
    }

    /** Receives and checks; records the first problem. */
    public static final class Receiver implements ConnectionHandler {
        private long next;
        public final List<String> problems = new CopyOnWriteArrayList<>();
        public final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer p = message.payload();
            int start = p.position();
            long seq = p.duplicate().order(ByteOrder.BIG_ENDIAN).getLong(start);
            long expected = received();
            if (seq != expected) {
                problems.add("connection " + connection.id() + ": message " + seq + " arrived, expected " + expected);
            }
            int n = p.remaining();
            if (n != size(seq)) {
                problems.add("message " + seq + " has " + n + " bytes, expected " + size(seq));
            } else {
                for (int i = 8; i < n; i++) {
                    if (p.get(start + i) != (byte) (seq * 31 + i)) {
                        problems.add("message " + seq + " byte " + i + " differs");
                        break;
                    }
                }
            }
            synchronized (this) {
                next = seq + 1;
                notifyAll();
            }
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            if (!closed.complete(reason)) {
                problems.add("second disconnect notification: " + reason);
            }
        }

        /** Messages received in order so far. */
        public synchronized long received() {
            return next;
        }

        /** Waits (woken by each message) until {@code count} messages arrived. */
        public synchronized void awaitReceived(long count, String what) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (next < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("timed out waiting for " + what + ": " + next + " of " + count
                            + " messages; problems " + problems);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        /** Waits up to 10 s for the disconnect notification. */
        public CloseReason awaitClosed() throws Exception {
            return closed.get(10, TimeUnit.SECONDS);
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
        public static final int WINDOW = 16;
        /**
         * How long the sends still outstanding when the sender stops may take to complete: the time a
         * busy 2-vCPU machine may take to deliver 16 queued messages of up to 6 KiB, or to flush them
         * when the connection closes; no timer of the transport is involved.
         */
        public static final Duration COMPLETION_BOUND = Duration.ofSeconds(10);
        public final SmbDirectConnection connection;
        public final AtomicBoolean stop = new AtomicBoolean();
        public final AtomicLong completed = new AtomicLong();
        public final AtomicLong sent = new AtomicLong();
        public final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        public final Semaphore window = new Semaphore(WINDOW);
        public final List<String> problems = new CopyOnWriteArrayList<>();
        private final Thread thread;

        /** A sender on {@code connection} whose thread is named {@code name}; not started. */
        public Sender(SmbDirectConnection connection, String name) {
            this.connection = connection;
            thread = new Thread(this, name);
            thread.setDaemon(true);
        }

        /** Starts the sending thread. */
        public Sender start() {
            thread.start();
            return this;
        }

        @Override
        public void run() {
            long seq = 0;
            try {
                while (!stop.get() && !failure.isDone()) {
                    if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                    long s = seq++;
                    sent.set(seq);
                    AtomicBoolean told = new AtomicBoolean();
                    connection.send(message(s), (m, f) -> {
                        if (!told.compareAndSet(false, true)) {
                            problems.add("send " + s + " was told its outcome twice (now " + f + ")");
                            return;
                        }
                        if (f == null) {
                            if (completed.getAndIncrement() != s && !failure.isDone()) {
                                problems.add("send " + s + " completed out of order");
                            }
                        } else {
                            failure.complete(f);
                        }
                        window.release();
                    });
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /**
         * Stops sending and waits until every send issued has completed, successfully or not; fails
         * naming the connection and the sends still outstanding unless they all did within
         * {@link #COMPLETION_BOUND}.
         */
        public void stopAndJoin() throws InterruptedException {
            stop.set(true);
            thread.join(COMPLETION_BOUND.toMillis());
            if (thread.isAlive()) {
                throw new AssertionError("the sender of connection " + connection.id() + " did not stop within "
                        + COMPLETION_BOUND);
            }
            if (!window.tryAcquire(WINDOW, COMPLETION_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError((WINDOW - window.availablePermits()) + " of the " + sent.get()
                        + " sends on connection " + connection.id() + " (open: " + connection.isOpen()
                        + ") were never told their outcome within " + COMPLETION_BOUND);
            }
            window.release(WINDOW);
        }
    }
}
