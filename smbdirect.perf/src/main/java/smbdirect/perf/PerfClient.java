package smbdirect.perf;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.RdmaCompletionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;

/**
 * The client end of perf: drives one connection with the workload of its {@link PerfOptions} and
 * completes {@link #result()} when the server confirmed the run.
 *
 * <p>For {@link PerfDirection#WRITE} and {@link PerfDirection#READ} the client asks the server to
 * register a buffer of the transfer size for remote access (zeroed for Writes, filled with the perf
 * pattern for Reads), registers its own (the pattern for Writes), and keeps {@code depth} RDMA
 * operations of the whole buffer in flight, as {@code ib_write_bw} and {@code ib_read_bw} do. At
 * the end it tells the server how many operations completed and the bytes they moved (REGION_FIN);
 * the server counts them and answers with the CRC32C of its buffer, and the run is confirmed when the
 * server counted every byte this end moved and the buffers agree: for Writes the server's CRC32C
 * equals the client's, for Reads the client's buffer holds the server's pattern byte for byte.
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
    private final RdmaCompletionHandler rdmaDone = this::rdmaDone;
    /** RDMA runs: issue times of the operations in flight, in issue order (they complete in order). */
    private final long[] issuedAt;

    private SmbDirectConnection connection;
    private long deadline = Long.MAX_VALUE;
    private long issued;
    private long received;
    private long receivedBytes;
    private int inFlight;
    private int echoOutstanding;
    private boolean finishing;
    private boolean stopSent;
    /** {@link #finishNow} came before {@link #start}: the run issues one window at most. */
    private boolean stopRequested;
    private long startNanos;
    // RDMA runs
    private RegisteredBuffer local;
    private List<BufferDescriptor> remote;
    private long completed;
    private boolean rdmaStarted;
    // warm-up (--warmup): the counters when it ended are subtracted from the figures
    private long warmupEnd = Long.MAX_VALUE;
    private boolean warmed;
    private long warmNanos;
    private long warmCount;
    private long warmBytes;
    /** This process's threads' CPU when the warm-up ended (null where the JVM does not measure it). */
    private CpuUse warmCpu;

    /** What the run measured, before it is turned into a {@link PerfResult}. */
    record Counts(long messages, long bytes, long elapsedNanos, long p50, long p99, String confirmation, String cpu,
            LatencyHistogram latency) {
    }

    PerfClient(PerfOptions options) {
        this.options = options;
        this.issuedAt = new long[options.direction().isRdma() ? options.depth() : 0];
        int buffers = options.direction() == PerfDirection.PINGPONG ? 2 * options.depth() : options.depth();
        if (options.direction() != PerfDirection.RECEIVE && !options.direction().isRdma()) {
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
        if (!options.direction().isRdma()) {
            startClock(startNanos);
        }
        control(PerfHeader.START, 0, 0, 0);
        if (options.direction() == PerfDirection.RECEIVE) {
            long count = options.duration() != null ? -1 : options.count();
            control(PerfHeader.PULL, count, options.size(), options.depth());
        } else if (options.direction().isRdma()) {
            boolean write = options.direction() == PerfDirection.WRITE;
            control(PerfHeader.REGION, options.size(), write ? 0 : 1, 0);
            ByteBuffer b = ByteBuffer.allocateDirect(options.size());
            if (write) {
                PerfHeader.pattern(b, options.size());
            }
            c.register(b, RemoteAccess.LOCAL_ONLY).whenComplete(this::registered);
        } else {
            pump();
        }
        if (stopRequested) { // asked before the start: the first window went out, nothing more does
            finishNow();
        }
    }

    private synchronized void registered(RegisteredBuffer buffer, Throwable failure) {
        if (failure != null) {
            result.completeExceptionally(new PerfException("registering the client's buffer of " + options.size()
                    + " bytes failed: " + failure.getMessage(), failure));
            return;
        }
        local = buffer;
        pumpRdma();
    }

    /** Keeps {@code depth} RDMA operations of the whole buffer in flight while the run goes on. */
    private void pumpRdma() {
        if (local == null || remote == null) {
            return; // both buffers first
        }
        if (!rdmaStarted) {
            rdmaStarted = true; // the clock runs from the first operation
            startNanos = System.nanoTime();
            startClock(startNanos);
        }
        warmCheck();
        while (!result.isDone() && canIssue() && inFlight < options.depth()) {
            issuedAt[(int) (issued % issuedAt.length)] = System.nanoTime();
            issued++;
            inFlight++;
            if (options.direction() == PerfDirection.WRITE) {
                connection.rdmaWrite(local, 0, options.size(), remote, 0, rdmaDone);
            } else {
                connection.rdmaRead(local, 0, options.size(), remote, 0, rdmaDone);
            }
        }
        if (!finishing && !result.isDone() && !canIssue() && inFlight == 0) {
            finishing = true; // the server counts what moved and checks its buffer: REGION_STATS
            control(PerfHeader.REGION_FIN, checked(), completed, completed * options.size());
        }
    }

    /** The bytes of the buffers the end of an RDMA run compares: all, once an operation completed. */
    private int checked() {
        return completed > 0 ? options.size() : 0;
    }

    private synchronized void rdmaDone(long bytes, Throwable failure) {
        inFlight--;
        if (failure != null) {
            fail(failure, new PerfException("RDMA " + options.direction().label() + " " + (completed + 1)
                    + " failed: " + failure.getMessage(), failure));
            return;
        }
        if (bytes != options.size()) {
            result.completeExceptionally(new PerfException("RDMA " + options.direction().label() + " " + (completed + 1)
                    + " moved " + bytes + " bytes, not " + options.size()));
            return;
        }
        latency.record(System.nanoTime() - issuedAt[(int) (completed % issuedAt.length)]);
        completed++;
        pumpRdma();
    }

    /** The server's REGION_READY: its buffer's descriptors, or a refusal. */
    private void regionReady(ByteBuffer p) {
        int count = (int) PerfHeader.a(p);
        if (count <= 0) {
            result.completeExceptionally(new PerfException("the perf server could not register a buffer of "
                    + options.size() + " bytes for RDMA"));
            return;
        }
        ByteBuffer list = p.duplicate();
        list.position(p.position() + PerfHeader.LENGTH);
        remote = BufferDescriptor.decodeList(list, count);
        pumpRdma();
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
     * completes, and the server confirms what it received. Any thread; before {@link #start}, the
     * run ends once its first window went out.
     */
    synchronized void finishNow() {
        if (result.isDone()) {
            return;
        }
        if (connection == null) {
            stopRequested = true; // start() applies it
            return;
        }
        if (options.direction() == PerfDirection.RECEIVE) {
            stopStream();
        } else {
            deadline = Math.min(deadline, System.nanoTime());
            if (options.direction().isRdma()) {
                pumpRdma();
            } else {
                pump();
            }
        }
    }

    /** The run's clock starts at {@code now}: the warm-up, then the measured duration. */
    private void startClock(long now) {
        warmupEnd = now + options.warmup().toNanos();
        if (options.duration() != null) {
            deadline = Math.min(deadline, warmupEnd + options.duration().toNanos());
        }
    }

    /** What the run has moved so far, in its own unit: messages sent or received, RDMA operations completed. */
    private long progress() {
        return switch (options.direction()) {
            case RECEIVE -> received;
            case WRITE, READ -> completed;
            default -> issued;
        };
    }

    /** Once the warm-up is over: notes the counters and the time the figures start from, forgets the latencies. */
    private void warmCheck() {
        if (!warmed && System.nanoTime() - warmupEnd >= 0) {
            warmed = true;
            warmCpu = CpuUse.now();
            warmNanos = System.nanoTime();
            warmCount = progress();
            warmBytes = options.direction() == PerfDirection.RECEIVE ? receivedBytes : warmCount * options.size();
            latency.reset();
        }
    }

    private boolean canIssue() {
        // a stop before the start: one window (a completion that runs on the issuing thread
        // re-enters the pump before start() has applied the stop)
        long limit = stopRequested ? Math.min(options.count(), options.depth()) : options.count();
        return issued < limit && (deadline == Long.MAX_VALUE || System.nanoTime() < deadline);
    }

    private int window() {
        return options.direction() == PerfDirection.PINGPONG ? echoOutstanding : inFlight;
    }

    private void pump() {
        warmCheck();
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
            fail(failure, failure);
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
            fail(failure, failure);
        }
    }

    /**
     * Ends the run with {@code failure}. One that only says the connection ended is told as
     * {@link #onDisconnected} tells it, whichever of the two comes first: the end of a run by a
     * peer's disconnect reads the same whether a message was in flight at that moment or not.
     */
    private void fail(Throwable failure, Throwable otherwise) {
        if (failure instanceof SmbDirectException e && e.kind() == SmbDirectException.Kind.CONNECTION_CLOSED
                && e.closeReason() != null && connection != null) {
            result.completeExceptionally(closedDuringRun(connection, e.closeReason(), e));
        } else {
            result.completeExceptionally(otherwise);
        }
    }

    private static PerfException closedDuringRun(SmbDirectConnection c, CloseReason reason, Throwable cause) {
        return new PerfException("connection " + c.id() + " closed during the run: " + reason, cause);
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
                warmCheck();
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
            case PerfHeader.REGION_READY -> regionReady(p);
            case PerfHeader.REGION_STATS -> regionStats(PerfHeader.a(p), PerfHeader.c(p));
            case PerfHeader.END -> {
                long sent = PerfHeader.a(p);
                complete(received, receivedBytes, "server sent " + sent + " messages, all received",
                        sent == received);
            }
            default -> result.completeExceptionally(new PerfException(
                    "unexpected message of " + message.length() + " bytes from the perf server"));
        }
    }

    /**
     * The server's answer to REGION_FIN: the CRC32C of its buffer and the RDMA bytes it counted for the
     * run. Writes: its buffer must equal the client's; Reads: the client's buffer must hold what the
     * server's does, byte for byte. Either way the server must count the bytes this end moved.
     */
    private void regionStats(long serverCrc, long serverBytes) {
        boolean write = options.direction() == PerfDirection.WRITE;
        long moved = completed * options.size();
        String counted = serverBytes < 0 ? "server refused the RDMA count of this end"
                : String.format(Locale.ROOT, "server counted %d RDMA %s %s its buffer, %d bytes",
                        serverBytes / options.size(), write ? "Writes" : "Reads", write ? "into" : "from", serverBytes);
        boolean ok = serverBytes == moved && completed == issued;
        String check;
        if (write) {
            CRC32C crc = new CRC32C();
            crc.update(local.buffer().duplicate().clear().limit(checked()));
            long want = crc.getValue();
            ok &= serverCrc == want;
            check = serverCrc == want
                    ? String.format(Locale.ROOT, "its buffer equals the client's (CRC32C 0x%08x)", want)
                    : String.format(Locale.ROOT, "its buffer has CRC32C 0x%08x, the client wrote 0x%08x",
                            serverCrc, want);
        } else {
            int mismatch = PerfHeader.patternMismatch(local.buffer(), checked());
            ok &= mismatch < 0;
            check = mismatch < 0 ? "the buffer the last Read filled equals the server's byte for byte"
                    : "byte " + mismatch + " of the buffer the RDMA Reads filled differs from the server's";
        }
        complete(completed, moved, counted + "; " + check, ok);
    }

    /**
     * The run ended with {@code messages} and {@code bytes} moved in all: the figures are what moved
     * after the warm-up (all of it without one), over the time since it ended.
     */
    private void complete(long messages, long bytes, String confirmation, boolean consistent) {
        if (!consistent) {
            result.completeExceptionally(new PerfException("perf run inconsistent: " + confirmation
                    + ", but this end counted " + messages + " messages (" + bytes + " bytes)"));
            return;
        }
        if (!warmed) {
            result.completeExceptionally(new PerfException("the run ended within its warm-up of "
                    + options.warmup().toMillis() + " ms (" + confirmation + "); nothing was measured"));
            return;
        }
        long elapsed = System.nanoTime() - warmNanos;
        CpuUse cpu = warmCpu == null ? null : CpuUse.now();
        boolean measured = options.direction() != PerfDirection.RECEIVE && latency.count() > 0;
        result.complete(new Counts(messages - warmCount, bytes - warmBytes, elapsed,
                measured ? latency.quantile(0.5) : -1, measured ? latency.quantile(0.99) : -1, confirmation,
                cpu == null ? null : cpu.since(warmCpu), measured ? latency : null));
    }

    @Override
    public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
        result.completeExceptionally(closedDuringRun(c, reason, null));
    }
}
