package smbdirect.perf;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;

/**
 * The client end of perf: drives one connection with the workload of its {@link PerfOptions} and
 * completes {@link #result()} when the server confirmed the run.
 *
 * <p>Thread-safe: state is guarded by this object's monitor (callbacks run on the connection's
 * serial context, {@link #start} and {@link #stopStream} on the caller's thread). Message
 * buffers are preallocated; each is owned by the transport from {@code send} to its completion.
 */
final class PerfClient implements ConnectionHandler {

    private final PerfOptions options;
    private final LatencyHistogram latency = new LatencyHistogram();
    private final CompletableFuture<Counts> result = new CompletableFuture<>();
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private final SendCompletion dataSent = this::dataSent;
    private final SendCompletion controlSent = this::controlSent;

    private SmbDirectConnection connection;
    private long deadline = Long.MAX_VALUE;
    private long issued;
    private long received;
    private long receivedBytes;
    private int inFlight;
    private int echoOutstanding;
    private boolean finishing;
    private boolean stopSent;
    private long startNanos;

    /** What the run measured, before it is turned into a {@link PerfResult}. */
    record Counts(long messages, long bytes, long elapsedNanos, long p50, long p99, String confirmation) {
    }

    PerfClient(PerfOptions options) {
        this.options = options;
        int buffers = options.direction() == PerfDirection.PINGPONG ? 2 * options.depth() : options.depth();
        if (options.direction() != PerfDirection.RECEIVE) {
            for (int i = 0; i < buffers; i++) {
                free.push(ByteBuffer.allocateDirect(options.size()));
            }
        }
    }

    CompletableFuture<Counts> result() {
        return result;
    }

    /** Starts the workload on an established connection. */
    synchronized void start(SmbDirectConnection c) {
        connection = c;
        startNanos = System.nanoTime();
        if (options.duration() != null) {
            deadline = startNanos + options.duration().toNanos();
        }
        control(PerfHeader.START, 0, 0, 0);
        if (options.direction() == PerfDirection.RECEIVE) {
            long count = options.duration() != null ? -1 : options.count();
            control(PerfHeader.PULL, count, options.size(), options.depth());
        } else {
            pump();
        }
    }

    /** Ends a RECEIVE stream that runs for a duration. */
    synchronized void stopStream() {
        if (connection != null && !result.isDone() && !stopSent) {
            stopSent = true;
            control(PerfHeader.STOP, 0, 0, 0);
        }
    }

    /**
     * Ends the run early, as the end of a duration would: nothing more is issued, what is in flight
     * completes, and the server confirms what it received. Any thread, after {@link #start}.
     */
    synchronized void finishNow() {
        if (result.isDone()) {
            return;
        }
        if (options.direction() == PerfDirection.RECEIVE) {
            stopStream();
        } else {
            deadline = Math.min(deadline, System.nanoTime());
            pump();
        }
    }

    private boolean canIssue() {
        return issued < options.count() && (deadline == Long.MAX_VALUE || System.nanoTime() < deadline);
    }

    private int window() {
        return options.direction() == PerfDirection.PINGPONG ? echoOutstanding : inFlight;
    }

    private void pump() {
        while (!result.isDone() && canIssue() && window() < options.depth() && !free.isEmpty()) {
            ByteBuffer b = free.pop();
            b.clear();
            int op = options.direction() == PerfDirection.PINGPONG ? PerfHeader.ECHO : PerfHeader.DATA;
            PerfHeader.put(b, op, issued, System.nanoTime(), 0);
            issued++;
            inFlight++;
            if (op == PerfHeader.ECHO) {
                echoOutstanding++;
            }
            connection.send(b, dataSent);
        }
        if (!finishing && !result.isDone() && !canIssue() && inFlight == 0 && echoOutstanding == 0) {
            finishing = true;
            if (options.direction() == PerfDirection.PINGPONG) {
                complete(issued, issued * (long) options.size(),
                        "server echoed " + received + " of " + issued + " messages", received == issued);
            } else {
                control(PerfHeader.FIN, 0, 0, 0);
            }
        }
    }

    private synchronized void dataSent(ByteBuffer m, Throwable failure) {
        inFlight--;
        free.push(m);
        if (failure != null) {
            result.completeExceptionally(failure);
            return;
        }
        if (options.direction() == PerfDirection.SEND) {
            latency.record(System.nanoTime() - PerfHeader.b(m));
        }
        pump();
    }

    private void control(int op, long a, long b, long c) {
        ByteBuffer buf = ByteBuffer.allocateDirect(PerfHeader.LENGTH);
        PerfHeader.put(buf, op, a, b, c);
        connection.send(buf, controlSent);
    }

    private void controlSent(ByteBuffer m, Throwable failure) {
        if (failure != null) {
            result.completeExceptionally(failure);
        }
    }

    @Override
    public synchronized void onMessage(SmbDirectConnection c, ReceivedMessage message) {
        ByteBuffer p = message.payload();
        switch (PerfHeader.op(p)) {
            case PerfHeader.ECHO -> {
                latency.record(System.nanoTime() - PerfHeader.b(p));
                received++;
                receivedBytes += message.length();
                echoOutstanding--;
                pump();
            }
            case PerfHeader.DATA -> {
                received++;
                receivedBytes += message.length();
            }
            case PerfHeader.STATS -> {
                long messages = PerfHeader.a(p);
                long bytes = PerfHeader.b(p);
                long expectedBytes = issued * (long) options.size();
                complete(issued, expectedBytes, "server confirmed " + messages + " messages, " + bytes + " bytes",
                        messages == issued && bytes == expectedBytes);
            }
            case PerfHeader.END -> {
                long sent = PerfHeader.a(p);
                complete(received, receivedBytes, "server sent " + sent + " messages, all received",
                        sent == received);
            }
            default -> result.completeExceptionally(new PerfException(
                    "unexpected message of " + message.length() + " bytes from the perf server"));
        }
    }

    private void complete(long messages, long bytes, String confirmation, boolean consistent) {
        long elapsed = System.nanoTime() - startNanos;
        if (!consistent) {
            result.completeExceptionally(new PerfException("perf run inconsistent: " + confirmation
                    + ", but this end counted " + messages + " messages (" + bytes + " bytes)"));
            return;
        }
        boolean measured = options.direction() != PerfDirection.RECEIVE && latency.count() > 0;
        result.complete(new Counts(messages, bytes, elapsed, measured ? latency.quantile(0.5) : -1,
                measured ? latency.quantile(0.99) : -1, confirmation));
    }

    @Override
    public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
        result.completeExceptionally(new PerfException("connection " + c.id() + " closed during the run: " + reason));
    }
}
