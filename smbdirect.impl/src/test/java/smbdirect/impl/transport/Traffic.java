package smbdirect.impl.transport;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
import smbdirect.api.SmbDirectConnection;

/**
 * Continuous, verifiable traffic over one connection: a sender thread sends numbered messages of
 * varying sizes (some fragmented) whose every byte is a function of the number; the receiving
 * handler checks each message byte by byte and checks that the numbers arrive in order without a
 * gap.
 */
final class Traffic {

    private Traffic() {
    }

    static int size(long seq) {
        return 8 + (int) ((seq * 7919) % 6000);
    }

    static ByteBuffer message(long seq) {
        int n = size(seq);
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        b.putLong(seq);
        for (int i = 8; i < n; i++) {
            b.put((byte) (seq * 31 + i));
        }
        return b.flip();
    }

    /** Receives and checks; records the first problem. */
    static final class Receiver implements ConnectionHandler {
        private long next;
        final List<String> problems = new CopyOnWriteArrayList<>();
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

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

        synchronized long received() {
            return next;
        }

        /** Waits (woken by each message) until {@code count} messages arrived. */
        synchronized void awaitReceived(long count, String what) throws InterruptedException {
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

        CloseReason awaitClosed() throws Exception {
            return closed.get(10, TimeUnit.SECONDS);
        }
    }

    /** Sends until stopped or the connection fails. */
    static final class Sender implements Runnable {
        static final int WINDOW = 16;
        final SmbDirectConnection connection;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong completed = new AtomicLong();
        final AtomicLong sent = new AtomicLong();
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        final Semaphore window = new Semaphore(WINDOW);
        final List<String> problems = new CopyOnWriteArrayList<>();
        final Thread thread;

        Sender(SmbDirectConnection connection, String name) {
            this.connection = connection;
            thread = new Thread(this, name);
            thread.setDaemon(true);
        }

        Sender start() {
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
                    connection.send(message(s), (m, f) -> {
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

        /** Stops sending and waits until every send issued has completed (successfully or not). */
        void stopAndJoin() throws InterruptedException {
            stop(true);
        }

        /**
         * Stops sending; with {@code requireAllCompleted}, fails unless every send issued completed
         * (successfully or not) within 10 s.
         */
        void stop(boolean requireAllCompleted) throws InterruptedException {
            stop.set(true);
            thread.join(10_000);
            if (!window.tryAcquire(WINDOW, requireAllCompleted ? 10 : 1, TimeUnit.SECONDS) && requireAllCompleted) {
                throw new AssertionError("sends on connection " + connection.id() + " never completed");
            }
        }
    }
}
