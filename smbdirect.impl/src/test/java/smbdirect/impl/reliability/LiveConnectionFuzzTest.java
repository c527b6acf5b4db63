package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.RawPeer;
import smbdirect.testsupport.AllocationCounter;

/**
 * Fuzzes the receive path of a live connection in each role: a {@link RawPeer} on the mock
 * fabric negotiates (validly, or with fuzzed bytes) and then feeds a fuzzed sequence of messages
 * (raw bytes or structured Data Transfer messages with fuzzed fields), interleaved with virtual
 * time and sends by the upper layer.
 *
 * <p>Invariants: no exception escapes to the caller, to the provider's threads (the fabric records
 * handler failures) or inside the connection's serial context (logged as an error, captured here);
 * the connection either still works (a valid message arrives intact, a send reaches the peer) or it
 * closed and told the upper layer exactly once with a CloseReason (a protocol violation names its
 * rule); nothing leaks; and the bytes allocated while the peer talks stay below a bound derived
 * from the local negotiated limits, whatever sizes the peer claims.
 */
class LiveConnectionFuzzTest {

    static final TransportSettings SETTINGS = TransportSettings.builder().receiveCreditMax(16).sendCreditTarget(16)
            .maxReceiveSize(1364).maxFragmentedRecvSize(131072).keepaliveInterval(Duration.ofSeconds(10))
            .keepaliveResponseTimeout(Duration.ofSeconds(5)).creditGrantTimeout(Duration.ofSeconds(5)).build();
    /**
     * Local limits plus a fixed allowance of 64 MiB for class loading on first use, logging, DTO
     * snapshots, the test's own sends and the fuzzer's hooks (which allocate on this thread while
     * fuzzing). Anything proportional to a size the peer claims (up to 4 GiB) exceeds it.
     */
    static final long ALLOCATION_BOUND = (long) (SETTINGS.receiveCreditMax() + 2) * SETTINGS.maxReceiveSize()
            + SETTINGS.maxFragmentedRecvSize() + (64L << 20);

    private static final AllocationCounter THREADS = AllocationCounter.enabled();

    @FuzzTest(maxDuration = "35m", maxExecutions = 10_000_000)
    void passiveReceivePath(FuzzedDataProvider data) throws Exception {
        fuzz(data, false);
    }

    @FuzzTest(maxDuration = "35m", maxExecutions = 10_000_000)
    void activeReceivePath(FuzzedDataProvider data) throws Exception {
        fuzz(data, true);
    }

    /** Captures what is logged to standard error (slf4j-simple) to spot swallowed exceptions. */
    static final class ErrCapture extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    static void fuzz(FuzzedDataProvider data, boolean engineActive) throws Exception {
        PrintStream err = System.err;
        ErrCapture capture = new ErrCapture();
        System.setErr(new PrintStream(capture, true, StandardCharsets.UTF_8));
        try (Rig rig = new Rig(DeliveryMode.DETERMINISTIC, SETTINGS)) {
            run(rig, data, engineActive);
        } finally {
            System.setErr(err);
        }
        String log = capture.text();
        for (String line : log.split("\n")) {
            boolean escaped = line.contains(" ERROR ") || line.contains("threw") || line.contains("Exception");
            assertTrue(!escaped || line.contains("connection refused") , "an exception escaped: " + line + "\n"
                    + log);
        }
    }

    static void run(Rig rig, FuzzedDataProvider data, boolean engineActive) throws Exception {
        Rig.Peer subject;
        RawPeer raw = rig.fabric.rawPeer();
        raw.receiveSize(8192).initialReceives(16);
        CompletableFuture<SmbDirectConnection> connect = null;
        boolean valid = data.consumeBoolean();
        if (engineActive) {
            subject = new Rig.Peer("subject");
            InetSocketAddress at = raw.listen(new InetSocketAddress(raw.provider().address(), 0));
            connect = rig.client.connect(at, Duration.ofSeconds(20), subject).toCompletableFuture();
            rig.settle();
            byte[] response = valid
                    ? Rig.negotiateResponse(data.consumeInt(1, 65535), data.consumeLong(0, SETTINGS.maxReceiveSize()),
                            data.consumeLong(128, 0xFFFF_FFFFL), data.consumeLong(131072, 0xFFFF_FFFFL))
                    : data.consumeBytes(data.consumeInt(0, 600));
            if (raw.isConnected()) {
                raw.send(response);
            }
            rig.settle();
            if (connect.isDone() && !connect.isCompletedExceptionally()) {
                subject.connection.complete(connect.join());
            }
        } else {
            raw.connect(rig.listen(), new byte[0]);
            rig.settle();
            byte[] request = valid
                    ? Rig.negotiateRequest(data.consumeInt(1, 65535), data.consumeLong(0, 0xFFFF_FFFFL),
                            data.consumeLong(128, 0xFFFF_FFFFL), data.consumeLong(131072, 0xFFFF_FFFFL))
                    : data.consumeBytes(data.consumeInt(0, 600));
            raw.send(request);
            rig.settle();
            subject = rig.accepted.isEmpty() ? null : rig.accepted.get(0);
        }
        // negotiation-time claims are covered by HostileLimitsTest; here: what the peer sends afterwards
        long tid = Thread.currentThread().getId();
        long before = THREADS.bytes(tid);
        int steps = data.consumeInt(0, 16);
        for (int i = 0; i < steps && raw.endpoint() != null && rawUp(raw); i++) {
            switch (data.consumeInt(0, 4)) {
                case 0 -> raw.send(data.consumeBytes(data.consumeInt(0, 2000)));
                case 1, 2 -> raw.send(structured(data));
                case 3 -> rig.advance(Duration.ofMillis(data.consumeLong(0, 20_000)));
                default -> {
                    if (subject != null && subject.connection.isDone()) {
                        subject.c().send(ByteBuffer.allocate(data.consumeInt(0, 300_000)), (m, t) -> { });
                    }
                }
            }
            rig.settle();
        }
        long allocated = THREADS.bytes(tid) - before;
        assertTrue(allocated < ALLOCATION_BOUND, "allocated " + allocated + " bytes, bound " + ALLOCATION_BOUND);

        // the connection still works, or it closed and said why, once
        if (subject != null && subject.connection.isDone()) {
            SmbDirectConnection c = subject.c();
            if (c.isOpen() && rawUp(raw)) {
                int got = subject.received();
                raw.send(Rig.dataTransfer(1, 0, 100));
                rig.settle();
                if (c.isOpen()) {
                    assertEquals(got + 1, subject.received(), "a valid message after the sequence arrives");
                    if (subject.lengths.get(got) == 100) {
                        ByteBuffer expected = ByteBuffer.wrap(Rig.dataTransfer(1, 0, 100), 24, 100).slice();
                        assertEquals(Rig.crc(expected), subject.checksums.get(got), "intact");
                    } else {
                        // it completed a fragmented message the sequence had begun
                        assertTrue(subject.lengths.get(got) > 100, "the final fragment completes a longer message");
                    }
                }
            }
            if (!c.isOpen()) {
                rig.settle();
                assertEquals(1, subject.disconnects.size(), "told once: " + subject.disconnects);
                CloseReason r = subject.disconnects.get(0);
                assertNotNull(r.kind());
                if (r.kind() == CloseReason.Kind.PROTOCOL_VIOLATION) {
                    assertNotNull(r.rule(), "a violation names its rule: " + r);
                }
            }
            assertTrue(subject.callbackFailure == null, () -> String.valueOf(subject.callbackFailure));
        } else if (connect != null) {
            rig.advance(Duration.ofSeconds(21));
            assertTrue(connect.isDone(), "the connect stage completes (negotiation timer)");
        }
        raw.close();
        rig.closeAndAssertNoLeaks();
        assertTrue(subject == null || subject.disconnects.size() <= 1, "told at most once");
    }

    static boolean rawUp(RawPeer raw) {
        return raw.endpoint() != null && raw.endpoint().state() == smbdirect.rdma.mock.MockEndpoint.State.CONNECTED;
    }

    /** A Data Transfer message whose every field comes from the fuzzer. */
    static byte[] structured(FuzzedDataProvider data) {
        int credReq = data.consumeInt(0, 0xFFFF);
        int granted = data.consumeInt(0, 0xFFFF);
        int flags = data.consumeInt(0, 0xFFFF);
        long remaining = data.consumeBoolean() ? data.consumeLong(0, 0xFFFF_FFFFL) : data.consumeLong(0, 200_000);
        int payload = data.consumeInt(0, 1400);
        long offset = data.consumeBoolean() ? 24 : data.consumeLong(0, 0xFFFF_FFFFL);
        long length = data.consumeBoolean() ? payload : data.consumeLong(0, 0xFFFF_FFFFL);
        int size = Math.max(20, 24 + payload);
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        DataTransfer.encodeHeaderOnly(b, 0, credReq, granted, flags, remaining, offset, length);
        byte[] fill = data.consumeBytes(payload);
        b.put(24 > size ? size : Math.min(24, size), fill, 0, Math.min(fill.length, size - Math.min(24, size)));
        return b.array();
    }
}
