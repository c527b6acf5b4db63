package smbdirect.impl.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.impl.engine.Scheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testsupport.SmbDirectTrace;

/**
 * A real session between two engines on the mock fabric (negotiation, a small message, a message
 * fragmented into three Data Transfer messages, a keepalive and its answer) traced with
 * {@link PcapTraceWriter} and decoded by Wireshark's own SMB Direct dissector ({@link WiresharkOracle}):
 * the message types and header fields tshark reports must be those of the bytes the engine sent.
 * Without tshark, a missing judge (fails in strict mode, CI).
 */
class SessionTraceOracleTest {

    private static final int SMALL = 16;
    private static final int LARGE = 3000;

    @TempDir
    Path dir;

    /** Virtual time: tasks run when the test advances the clock. Used by one thread only. */
    static final class VirtualScheduler implements Scheduler {
        private record Task(long due, long seq, Runnable run) {
        }

        private final PriorityQueue<Task> tasks = new PriorityQueue<>(
                (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
        private long now;
        private long seq;

        @Override
        public synchronized long nanoTime() {
            return now;
        }

        @Override
        public synchronized Cancellable schedule(Runnable task, long delayNanos) {
            Task t = new Task(now + Math.max(0, delayNanos), seq++, task);
            tasks.add(t);
            return () -> {
                synchronized (this) {
                    tasks.remove(t);
                }
            };
        }

        /** Runs every task due within {@code d}, letting the fabric settle after each. */
        void advance(Duration d, MockFabric fabric) {
            long end;
            synchronized (this) {
                end = now + d.toNanos();
            }
            while (true) {
                Task t;
                synchronized (this) {
                    t = tasks.peek();
                    if (t == null || t.due > end) {
                        now = end;
                        break;
                    }
                    tasks.poll();
                    now = Math.max(now, t.due);
                }
                t.run.run();
                fabric.runUntilIdle();
            }
            fabric.runUntilIdle();
        }
    }

    /** Keeps a copy of every message with its direction, in order. */
    static final class Recorder implements TraceSink {
        final List<byte[]> messages = new ArrayList<>();
        final List<Boolean> fromInitiator = new ArrayList<>();

        @Override
        public synchronized void record(boolean initiator, ByteBuffer message, long timestampMicros) {
            byte[] b = new byte[message.remaining()];
            message.duplicate().get(b);
            messages.add(b);
            fromInitiator.add(initiator);
        }
    }

    static final class Sink implements ConnectionHandler {
        final List<Integer> lengths = new ArrayList<>();

        @Override
        public void onMessage(SmbDirectConnection c, ReceivedMessage m) {
            lengths.add(m.length());
        }

        @Override
        public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
        }
    }

    @Test
    void tsharkDecodesNegotiationSmallFragmentedAndKeepaliveAsTheEngineSentThem() throws Exception {
        Path pcap = dir.resolve("session.pcap");
        Recorder recorder = new Recorder();
        TransportSettings settings = TransportSettings.builder().keepaliveInterval(Duration.ofSeconds(30)).build();
        VirtualScheduler scheduler = new VirtualScheduler();
        Sink serverSide = new Sink();
        try (MockFabric fabric = MockFabric.builder().name("trace").build();
                PcapTraceWriter writer = PcapTraceWriter.open(pcap)) {
            MockProvider clientProvider = fabric.provider("client");
            MockProvider serverProvider = fabric.provider("server");
            SmbDirectEngine client = new SmbDirectEngine(clientProvider, settings, scheduler);
            SmbDirectEngine server = new SmbDirectEngine(serverProvider, settings, scheduler);
            client.setTraceSink(new TraceSink() {
                @Override
                public void record(boolean initiator, ByteBuffer message, long micros) {
                    recorder.record(initiator, message, micros);
                    writer.record(initiator, message, micros);
                }
            });
            server.listen(new InetSocketAddress(serverProvider.address(), 445), c -> serverSide);
            CompletableFuture<SmbDirectConnection> connecting = client
                    .connect(new InetSocketAddress(serverProvider.address(), 445), Duration.ofSeconds(120), new Sink())
                    .toCompletableFuture();
            fabric.runUntilIdle();
            SmbDirectConnection connection = connecting.get(1, TimeUnit.SECONDS);

            connection.send(fill(SMALL));
            fabric.runUntilIdle();
            connection.send(fill(LARGE));
            fabric.runUntilIdle();
            assertEquals(List.of(SMALL, LARGE), serverSide.lengths);
            scheduler.advance(Duration.ofSeconds(31), fabric);
            connection.close();
            fabric.runUntilIdle();
            assertEquals(0, writer.dropped());
        }

        List<SmbDirectTrace.Frame> frames = WiresharkOracle.decode(pcap);
        assertEquals(recorder.messages.size(), frames.size(), "one frame per traced message: " + frames);

        SmbDirectTrace.Frame request = frames.get(0);
        assertEquals("NegotiateRequest", request.type());
        assertEquals("c2s", request.direction());
        assertEquals(0x100, request.number("smb_direct.version.min"));
        assertEquals(settings.sendCreditTarget(), request.number("smb_direct.credits.requested"));
        assertEquals(settings.maxSendSize(), request.number("smb_direct.preferred_send_size"));
        assertEquals(settings.maxFragmentedRecvSize(), request.number("smb_direct.max_fragmented_size"));
        SmbDirectTrace.Frame response = frames.get(1);
        assertEquals("NegotiateResponse", response.type());
        assertEquals("s2c", response.direction());
        assertEquals(0, response.number("smb_direct.status"));
        assertEquals(0x100, response.number("smb_direct.version.negotiated"));

        int data = 0;
        int payloads = 0;
        int keepalives = 0;
        List<Long> largeRemaining = new ArrayList<>();
        for (int i = 2; i < frames.size(); i++) {
            SmbDirectTrace.Frame f = frames.get(i);
            ByteBuffer sent = ByteBuffer.wrap(recorder.messages.get(i)).order(ByteOrder.LITTLE_ENDIAN);
            String at = "frame " + (i + 1) + ": " + f;
            assertEquals("DataMessage", f.type(), at);
            assertEquals(recorder.fromInitiator.get(i) ? "c2s" : "s2c", f.direction(), at);
            assertEquals(sent.getShort(0) & 0xFFFF, f.number("smb_direct.credits.requested"), at);
            assertEquals(sent.getShort(2) & 0xFFFF, f.number("smb_direct.credits.granted"), at);
            assertEquals(sent.getShort(4) & 0xFFFF, f.number("smb_direct.flags"), at);
            assertEquals(sent.getInt(8) & 0xFFFFFFFFL, f.number("smb_direct.remaining_length"), at);
            assertEquals(sent.getInt(12) & 0xFFFFFFFFL, f.number("smb_direct.data_offset"), at);
            long length = sent.getInt(16) & 0xFFFFFFFFL;
            assertEquals(length, f.number("smb_direct.data_length"), at);
            assertEquals(List.of(), f.expert(), at);
            assertFalse(f.malformed(), at);
            data++;
            if (length > 0) {
                payloads++;
                if (length != SMALL) {
                    largeRemaining.add(sent.getInt(8) & 0xFFFFFFFFL);
                }
            }
            if (f.number("smb_direct.flags.response_requested") == 1) {
                keepalives++;
                assertEquals(0, f.number("smb_direct.data_length"), "a keepalive carries no payload");
            }
        }
        assertTrue(data >= 5, "data messages: " + data);
        int fragment = settings.maxSendSize() - 24;
        assertEquals(List.of((long) LARGE - fragment, (long) LARGE - 2L * fragment, 0L), largeRemaining,
                "RemainingDataLength of the three fragments");
        assertEquals(4, payloads, "one small message and three fragments");
        assertTrue(keepalives >= 1, "a keepalive (RESPONSE_REQUESTED) after " + settings.keepaliveInterval());
        assertTrue(frames.stream().anyMatch(f -> f.has("smb_direct.reassembled.length")
                && f.number("smb_direct.reassembled.length") == LARGE), "Wireshark reassembled the fragmented message");
    }

    private static ByteBuffer fill(int n) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            b.put((byte) i);
        }
        return b.flip();
    }
}
