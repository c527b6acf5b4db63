package smbdirect.perf;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.AcceptHandler;
import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;

/**
 * The server end of perf, usable as any listener's {@link AcceptHandler}: counts DATA messages,
 * echoes ECHO messages, streams on PULL and answers FIN with its counters; for RDMA runs registers
 * a buffer for the client's RDMA Writes or Reads on REGION and answers REGION_FIN with the CRC32C
 * of what it holds. Messages that are not perf messages are counted and otherwise ignored (a sink).
 *
 * <p>It counts what moved in each direction: messages and their bytes received and sent (echoes and
 * streams), and the bytes moved by RDMA, Writes into its buffers and Reads from them
 * ({@link #summary()}). RDMA Writes and Reads are one-sided: they complete on the client without
 * this end taking part, so their numbers are those the client's REGION_FIN reports at the end of
 * the run, accepted only when they fit the buffer (every operation moves the whole buffer) and, for
 * Writes, checked by the CRC32C of what the buffer holds, which the client compares with its own.
 *
 * <p>Thread-safe: each connection gets its own session, whose callbacks run on that connection's
 * serial context. Echo and stream buffers are pooled per connection and owned by the transport
 * between {@code send} and its completion.
 */
public final class PerfServer implements AcceptHandler {

    private static final Logger LOG = LoggerFactory.getLogger(PerfServer.class);

    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong confirmedMessages = new AtomicLong();
    private final AtomicLong confirmedBytes = new AtomicLong();
    private final AtomicLong sentMessages = new AtomicLong();
    private final AtomicLong sentBytes = new AtomicLong();
    private final AtomicLong rdmaWrites = new AtomicLong();
    private final AtomicLong rdmaWriteBytes = new AtomicLong();
    private final AtomicLong rdmaReads = new AtomicLong();
    private final AtomicLong rdmaReadBytes = new AtomicLong();
    private final Consumer<String> report;

    /** A server end that reports each connection's runs only to its log. */
    public PerfServer() {
        this(line -> { });
    }

    /**
     * A server end that also hands {@code report} one line per connection's run when it ends (what
     * that connection received, in how long, at what rate), as an iperf3 server prints its streams;
     * called on the connection's serial context, so it must not block.
     */
    public PerfServer(Consumer<String> report) {
        this.report = report;
    }

    @Override
    public ConnectionHandler accepted(SmbDirectConnection connection) {
        connections.incrementAndGet();
        return new Session(connection);
    }

    /** Connections accepted so far. */
    public long connections() {
        return connections.get();
    }

    /** Messages received on all connections. */
    public long messages() {
        return messages.get();
    }

    /** Payload bytes received on all connections. */
    public long bytes() {
        return bytes.get();
    }

    /** Runs whose end (FIN) arrived: the client was told the counts below. */
    public long runs() {
        return runs.get();
    }

    /** DATA messages of the runs whose end arrived (what the clients were confirmed). */
    public long runMessages() {
        return confirmedMessages.get();
    }

    /** DATA payload bytes of the runs whose end arrived. */
    public long runBytes() {
        return confirmedBytes.get();
    }

    /** Workload messages sent on all connections (echoes and streamed messages; not the control replies). */
    public long sentMessages() {
        return sentMessages.get();
    }

    /** Payload bytes of {@link #sentMessages()}. */
    public long sentBytes() {
        return sentBytes.get();
    }

    /** RDMA Writes of the clients into this end's buffers, in the runs whose end arrived. */
    public long rdmaWrites() {
        return rdmaWrites.get();
    }

    /** Bytes moved by {@link #rdmaWrites()}. */
    public long rdmaWriteBytes() {
        return rdmaWriteBytes.get();
    }

    /** RDMA Reads of the clients from this end's buffers, in the runs whose end arrived. */
    public long rdmaReads() {
        return rdmaReads.get();
    }

    /** Bytes moved by {@link #rdmaReads()}. */
    public long rdmaReadBytes() {
        return rdmaReadBytes.get();
    }

    /**
     * What this end's runs moved, in one line: the runs confirmed, the messages and bytes received in
     * them, the connections, the messages and bytes sent, and the bytes moved by RDMA in each direction.
     */
    public String summary() {
        return String.format(Locale.ROOT, "perf server: %d runs confirmed, %d messages, %d bytes received on %d "
                + "connections; %d messages, %d bytes sent; RDMA Writes into its buffers %d, %d bytes; RDMA Reads "
                + "from them %d, %d bytes", runs(), runMessages(), runBytes(), connections(), sentMessages(), sentBytes(),
                rdmaWrites(), rdmaWriteBytes(), rdmaReads(), rdmaReadBytes());
    }

    /** One connection's state; all methods run on the connection's serial context. */
    private final class Session implements ConnectionHandler {
        private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
        private final SmbDirectConnection connection;
        private final SendCompletion sentCallback = this::sent;
        private final SendCompletion streamedCallback = this::streamed;
        private final SendCompletion echoedCallback = this::echoed;
        private long runMessages;
        private long runBytes;
        /** When this connection's run started (its START), for the rate of its report. */
        private long runStart;
        // PULL stream state
        private long streamRemaining;
        private long streamSent;
        private int streamSize;
        private int streamInFlight;
        private boolean streaming;
        /** The buffer registered for the client's RDMA operations (volatile: registered on another thread). */
        private volatile RegisteredBuffer region;
        /** The region holds the pattern for the client's RDMA Reads (else it takes its RDMA Writes). */
        private boolean regionForReads;

        Session(SmbDirectConnection connection) {
            this.connection = connection;
        }

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
            ByteBuffer p = message.payload();
            int length = message.length();
            messages.incrementAndGet();
            bytes.addAndGet(length);
            runMessages++;
            runBytes += length;
            switch (PerfHeader.op(p)) {
                case PerfHeader.ECHO -> echo(c, p, length);
                case PerfHeader.START -> {
                    runMessages = 0;
                    runBytes = 0;
                    runStart = System.nanoTime();
                }
                case PerfHeader.FIN -> finished(c, runMessages - 1, runBytes - length);
                case PerfHeader.PULL -> pull(c, PerfHeader.a(p), (int) PerfHeader.b(p), (int) PerfHeader.c(p));
                case PerfHeader.STOP -> streamRemaining = 0;
                case PerfHeader.REGION -> region(c, PerfHeader.a(p), PerfHeader.b(p) == 1);
                case PerfHeader.REGION_FIN -> regionFinished(c, PerfHeader.a(p), PerfHeader.b(p), PerfHeader.c(p));
                default -> {
                    // DATA and foreign messages: counted above
                }
            }
        }

        private void finished(SmbDirectConnection c, long received, long receivedBytes) {
            runs.incrementAndGet();
            confirmedMessages.addAndGet(received);
            confirmedBytes.addAndGet(receivedBytes);
            LOG.info("perf run on connection {} ended: {} messages, {} bytes received", c.id(), received, receivedBytes);
            double seconds = (System.nanoTime() - runStart) / 1e9;
            report.accept(String.format(Locale.ROOT,
                    "perf server: connection %d from %s: %d messages, %d bytes received in %.3f s (%.1f MB/s since its "
                            + "start)", c.id(), c.peerAddress(), received, receivedBytes, seconds,
                    seconds <= 0 ? 0 : receivedBytes / seconds / 1e6));
            control(c, PerfHeader.STATS, received, receivedBytes);
        }

        /** REGION: registers a buffer of {@code size} bytes for remote access and sends its descriptors. */
        private void region(SmbDirectConnection c, long size, boolean pattern) {
            if (size < 1 || size > Integer.MAX_VALUE || region != null) {
                LOG.warn("perf REGION of {} bytes on connection {} refused", size, c.id());
                c.send(regionReady(List.of()), sentCallback);
                return;
            }
            regionForReads = pattern;
            ByteBuffer b = ByteBuffer.allocateDirect((int) size);
            if (pattern) {
                PerfHeader.pattern(b, (int) size);
            }
            c.register(b, RemoteAccess.READ_WRITE).whenComplete((registered, failure) -> {
                if (failure != null) {
                    LOG.warn("perf: registering {} bytes for RDMA on connection {} failed: {}", size, c.id(),
                            failure.toString());
                    c.send(regionReady(List.of()), sentCallback);
                    return;
                }
                region = registered;
                c.send(regionReady(registered.descriptors()), sentCallback);
            });
        }

        /** REGION_READY with {@code descriptors} after the header (control plane: a buffer of its own). */
        private ByteBuffer regionReady(List<BufferDescriptor> descriptors) {
            ByteBuffer b = ByteBuffer.allocateDirect(PerfHeader.LENGTH + descriptors.size() * BufferDescriptor.BYTES);
            PerfHeader.put(b, PerfHeader.REGION_READY, descriptors.size(), 0, 0);
            b.position(PerfHeader.LENGTH);
            for (BufferDescriptor d : descriptors) {
                d.encode(b);
            }
            return b.flip();
        }

        /**
         * REGION_FIN: the client's RDMA operations are over, {@code operations} of them moving
         * {@code moved} bytes; answered with the CRC32C of the first {@code length} bytes of the buffer
         * (as the client's RDMA Writes left it, or as its Reads found it) and the bytes counted here:
         * {@code moved}, or -1 when it does not fit the buffer (each operation moves all of it).
         */
        private void regionFinished(SmbDirectConnection c, long length, long operations, long moved) {
            RegisteredBuffer r = region;
            long checked = r == null ? 0 : Math.max(0, Math.min(length, r.length()));
            CRC32C crc = new CRC32C();
            if (r != null) {
                crc.update(r.buffer().duplicate().clear().limit((int) checked));
            }
            runs.incrementAndGet();
            boolean fits = r != null && operations >= 0 && moved == operations * r.length();
            String what = regionForReads ? "RDMA Reads from" : "RDMA Writes into";
            if (fits) {
                (regionForReads ? rdmaReads : rdmaWrites).addAndGet(operations);
                (regionForReads ? rdmaReadBytes : rdmaWriteBytes).addAndGet(moved);
            } else {
                LOG.warn("perf RDMA run on connection {}: the client reports {} operations moving {} bytes, which does "
                        + "not fit a buffer of {} bytes; not counted", c.id(), operations, moved,
                        r == null ? 0 : r.length());
            }
            LOG.info("perf RDMA run on connection {} ended: {} {} its buffer, {} bytes; CRC32C 0x{} over {} bytes of "
                    + "the buffer", c.id(), operations, what, moved, Long.toHexString(crc.getValue()), checked);
            report.accept(String.format(Locale.ROOT, "perf server: connection %d from %s: %d %s its buffer, %d bytes in "
                    + "%.3f s; CRC32C 0x%08x over %d bytes of its buffer", c.id(), c.peerAddress(), operations, what,
                    moved, (System.nanoTime() - runStart) / 1e9, crc.getValue(), checked));
            ByteBuffer buf = take(PerfHeader.LENGTH);
            buf.limit(PerfHeader.LENGTH);
            PerfHeader.put(buf, PerfHeader.REGION_STATS, crc.getValue(), checked, fits ? moved : -1);
            c.send(buf, sentCallback);
        }

        private void echo(SmbDirectConnection c, ByteBuffer payload, int length) {
            ByteBuffer b = take(length);
            b.put(payload.duplicate()).flip();
            c.send(b, echoedCallback);
        }

        private void pull(SmbDirectConnection c, long count, int size, int depth) {
            if (size < PerfHeader.LENGTH || depth < 1) {
                LOG.warn("perf PULL with size {} and depth {} ignored", size, depth);
                return;
            }
            streaming = true;
            streamRemaining = count < 0 ? Long.MAX_VALUE : count;
            streamSent = 0;
            streamSize = size;
            streamInFlight = 0;
            for (int i = 0; i < depth && streamRemaining > 0; i++) {
                streamNext(c);
            }
        }

        private void streamNext(SmbDirectConnection c) {
            streamRemaining--;
            ByteBuffer b = take(streamSize);
            b.limit(streamSize);
            PerfHeader.put(b, PerfHeader.DATA, streamSent, System.nanoTime(), 0);
            streamSent++;
            streamInFlight++;
            c.send(b, streamedCallback);
        }

        private void streamed(ByteBuffer m, Throwable failure) {
            SmbDirectConnection c = connection;
            streamInFlight--;
            free.push(m);
            if (failure == null) {
                sentMessages.incrementAndGet();
                sentBytes.addAndGet(streamSize);
            } else {
                streaming = false;
                LOG.debug("perf stream on connection {} ended: {}", c.id(), failure.toString());
                return;
            }
            if (streaming && streamRemaining > 0) {
                streamNext(c);
            } else if (streaming && streamInFlight == 0) {
                streaming = false;
                double seconds = (System.nanoTime() - runStart) / 1e9;
                report.accept(String.format(Locale.ROOT, "perf server: connection %d from %s: %d messages, %d bytes "
                        + "sent in %.3f s (%.1f MB/s since its start)", c.id(), c.peerAddress(), streamSent,
                        streamSent * (long) streamSize, seconds,
                        seconds <= 0 ? 0 : streamSent * (double) streamSize / seconds / 1e6));
                control(c, PerfHeader.END, streamSent, 0);
            }
        }

        private void control(SmbDirectConnection c, int op, long a, long b) {
            ByteBuffer buf = take(PerfHeader.LENGTH);
            buf.limit(PerfHeader.LENGTH);
            PerfHeader.put(buf, op, a, b, 0);
            c.send(buf, sentCallback);
        }

        private void sent(ByteBuffer m, Throwable failure) {
            free.push(m);
        }

        /** An echo went out: counted as a workload message sent. */
        private void echoed(ByteBuffer m, Throwable failure) {
            if (failure == null) {
                sentMessages.incrementAndGet();
                sentBytes.addAndGet(m.limit());
            }
            free.push(m);
        }

        private ByteBuffer take(int size) {
            for (int i = 0, n = free.size(); i < n; i++) {
                ByteBuffer b = free.pollFirst();
                if (b.capacity() >= size) {
                    b.clear();
                    return b;
                }
                free.addLast(b);
            }
            return ByteBuffer.allocateDirect(Math.max(size, PerfHeader.LENGTH));
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
            streaming = false;
            free.clear();
            region = null; // the connection's registrations end with it
        }
    }
}
