package smbdirect.impl.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

/**
 * A real session between two engines on the mock fabric (negotiation, a small message, a message
 * fragmented into three Data Transfer messages, a keepalive and its answer) traced with
 * {@link PcapTraceWriter} and decoded by Wireshark's dissector through
 * {@code shared/tools/smbd_pcap.py decode}: the message types and header fields tshark reports
 * must be those of the bytes the engine sent. Skips when python3, tshark or the tool is missing.
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
        Path tool = findTool();
        assumeTrue(tool != null, "shared/tools/smbd_pcap.py not found above " + Path.of("").toAbsolutePath());
        assumeTrue(onPath("python3") && onPath("tshark"), "python3 or tshark missing: install tshark to run this test");

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

        List<Map<String, String>> frames = decode(tool, pcap);
        assertEquals(recorder.messages.size(), frames.size(), "one frame per traced message: " + frames);

        assertEquals("NegotiateRequest", frames.get(0).get("type"));
        assertEquals("c2s", frames.get(0).get("dir"));
        assertEquals("256", frames.get(0).get("smb_direct.version.min"));
        assertEquals(String.valueOf(settings.sendCreditTarget()), frames.get(0).get("smb_direct.credits.requested"));
        assertEquals(String.valueOf(settings.maxSendSize()), frames.get(0).get("smb_direct.preferred_send_size"));
        assertEquals(String.valueOf(settings.maxFragmentedRecvSize()), frames.get(0).get("smb_direct.max_fragmented_size"));
        assertEquals("NegotiateResponse", frames.get(1).get("type"));
        assertEquals("s2c", frames.get(1).get("dir"));
        assertEquals("0", frames.get(1).get("smb_direct.status"));
        assertEquals("256", frames.get(1).get("smb_direct.version.negotiated"));

        int data = 0;
        int payloads = 0;
        int keepalives = 0;
        List<Long> largeRemaining = new ArrayList<>();
        for (int i = 2; i < frames.size(); i++) {
            Map<String, String> f = frames.get(i);
            ByteBuffer sent = ByteBuffer.wrap(recorder.messages.get(i)).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals("DataMessage", f.get("type"), "frame " + (i + 1) + ": " + f);
            assertEquals(recorder.fromInitiator.get(i) ? "c2s" : "s2c", f.get("dir"), "frame " + (i + 1));
            assertEquals(Integer.toString(sent.getShort(0) & 0xFFFF), f.get("smb_direct.credits.requested"), "frame " + (i + 1));
            assertEquals(Integer.toString(sent.getShort(2) & 0xFFFF), f.get("smb_direct.credits.granted"), "frame " + (i + 1));
            assertEquals(Integer.toString(sent.getShort(4) & 0xFFFF), f.get("smb_direct.flags"), "frame " + (i + 1));
            assertEquals(Long.toString(sent.getInt(8) & 0xFFFFFFFFL), f.get("smb_direct.remaining_length"), "frame " + (i + 1));
            assertEquals(Long.toString(sent.getInt(12) & 0xFFFFFFFFL), f.get("smb_direct.data_offset"), "frame " + (i + 1));
            long length = sent.getInt(16) & 0xFFFFFFFFL;
            assertEquals(Long.toString(length), f.get("smb_direct.data_length"), "frame " + (i + 1));
            data++;
            if (length > 0) {
                payloads++;
                if (length != SMALL) {
                    largeRemaining.add(sent.getInt(8) & 0xFFFFFFFFL);
                }
            }
            if ("1".equals(f.get("smb_direct.flags.response_requested"))) {
                keepalives++;
                assertEquals("0", f.get("smb_direct.data_length"), "a keepalive carries no payload");
            }
        }
        assertTrue(data >= 5, "data messages: " + data);
        int fragment = settings.maxSendSize() - 24;
        assertEquals(List.of((long) LARGE - fragment, (long) LARGE - 2L * fragment, 0L), largeRemaining,
                "RemainingDataLength of the three fragments");
        assertEquals(4, payloads, "one small message and three fragments");
        assertTrue(keepalives >= 1, "a keepalive (RESPONSE_REQUESTED) after " + settings.keepaliveInterval());
        assertTrue(frames.stream().anyMatch(f -> String.valueOf(LARGE).equals(f.get("smb_direct.reassembled.length"))),
                "Wireshark reassembled the fragmented message");
    }

    private static ByteBuffer fill(int n) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            b.put((byte) i);
        }
        return b.flip();
    }

    private static final String FLATTEN = "import sys, json\n"
            + "for line in sys.stdin:\n"
            + "    o = json.loads(line)\n"
            + "    parts = ['frame=%s' % o['frame'], 'dir=%s' % o['dir'], 'type=%s' % o.get('type')]\n"
            + "    for k, v in (o.get('fields') or {}).items():\n"
            + "        if not isinstance(v, (list, dict)):\n"
            + "            parts.append('%s=%s' % (k, v))\n"
            + "    print('|'.join(parts))\n";

    private List<Map<String, String>> decode(Path tool, Path pcap) throws IOException, InterruptedException {
        Path script = dir.resolve("flatten.py");
        Files.writeString(script, FLATTEN);
        Path out = dir.resolve("decoded.txt");
        String cmd = "python3 '" + tool + "' decode '" + pcap + "' | python3 '" + script + "'";
        Process p = new ProcessBuilder("sh", "-c", cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "smbd_pcap.py decode did not finish");
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        List<Map<String, String>> frames = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, String> f = new HashMap<>();
            for (String part : line.split("\\|")) {
                int eq = part.indexOf('=');
                f.put(part.substring(0, eq), part.substring(eq + 1));
            }
            frames.add(f);
        }
        return frames;
    }

    private static Path findTool() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path tool = p.resolve("shared/tools/smbd_pcap.py");
            if (Files.isRegularFile(tool)) {
                return tool;
            }
        }
        return null;
    }

    private static boolean onPath(String command) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, command))) {
                return true;
            }
        }
        return false;
    }
}
