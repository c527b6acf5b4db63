package smbdirect.rdma.iwarp.internal.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.IwarpStatistics;

/**
 * Fuzzes a live connection of the provider over a real loopback socket: a {@link RawPeer} sends
 * fuzzed bytes during the MPA setup ({@link #duringMpaSetup}) or, after a valid setup, a fuzzed
 * sequence of raw bytes and structured FPDUs (Sends, RDMA Writes, Read Requests and Responses,
 * Terminates, fuzzed control bytes, with a correct or a corrupted CRC) aimed at the registrations the
 * provider exposes ({@link #afterMpaSetup}). Under plain {@code mvn verify} each target replays its
 * committed corpus ({@code LiveConnectionFuzzTestInputs/<method>/}, seeded with Linux siw's real
 * frames from {@code tools/siw-vm/pcaps}); with {@code JAZZER_FUZZ=1} it fuzzes (RELIABILITY.md §7).
 *
 * <p>Invariants for every input:
 * <ul>
 * <li>the MPA Request's verdict equals an independent reference of the responder's rules (RFC 5044
 * §7.1, RFC 6581, iwarp.md §2.4): closed without a Reply, refused with R=1, or handed to the consumer
 * with the ULP private data and IRD/ORD the bytes carry;</li>
 * <li>the connection ends through a protocol check (QP_ERROR naming the Terminate, or PEER), never
 * through the provider's internal-error path, and each callback comes once;</li>
 * <li>no byte outside a live registration with REMOTE_WRITE changes: guard blocks around every
 * registration, a REMOTE_READ-only registration and a local-only one keep their pattern;</li>
 * <li>a second connection on the same provider goes on: a Send after the fault arrives byte for byte;</li>
 * <li>nothing leaks: endpoints, registrations, connections and pending requests go back to zero.</li>
 * </ul>
 */
class LiveConnectionFuzzTest {

    /** Bytes of every registration and of every guard block between them. */
    private static final int BLOCK = 512;
    private static final byte GUARD = (byte) 0xA5;
    private static final int RECEIVES = 4;

    // ---------------------------------------------------------------- during the MPA setup

    /** What the responder does with the bytes it got as an MPA Request. */
    private enum Verdict {
        /** Not an MPA Request: closed without a Reply. */
        DROP,
        /** A Reply with R=1, then close. */
        REFUSE,
        /** The Request reaches the consumer. */
        DELIVER,
        /** Refused or delivered: bytes after the Request are refused as far as they arrived with it. */
        REFUSE_OR_DELIVER,
        /** Not complete yet: the peer's close ends it without a Reply. */
        INCOMPLETE
    }

    private static final byte[] KEY_REQ = RawPeer.KEY_REQ.getBytes(StandardCharsets.US_ASCII);

    /** The responder's rules over raw bytes (iwarp.md §2.4, in the provider's documented order). */
    private static Verdict reference(byte[] b) {
        if (b.length < 20) {
            return Verdict.INCOMPLETE;
        }
        if (!Arrays.equals(Arrays.copyOf(b, 16), KEY_REQ)) {
            return Verdict.DROP;
        }
        int flags = b[16] & 0xFF;
        int revision = b[17] & 0xFF;
        int pd = (b[18] & 0xFF) << 8 | (b[19] & 0xFF);
        if (revision > 2 || pd > 512) {
            return Verdict.REFUSE;
        }
        if (b.length < 20 + pd) {
            return Verdict.INCOMPLETE;
        }
        boolean enhanced = revision == 2 && (flags & 0x10) != 0;
        if (enhanced && pd < 4 || (flags & 0x80) != 0) {
            return Verdict.REFUSE;
        }
        return b.length > 20 + pd ? Verdict.REFUSE_OR_DELIVER : Verdict.DELIVER;
    }

    /**
     * The peer connects to the provider on loopback: Jazzer's server-side request forgery detector,
     * which reports any socket connect while fuzzing, is told that loopback is this test's purpose.
     */
    private static SilentCloseable loopbackOnly() {
        return BugDetectors.allowNetworkConnections((host, port) -> host.equals("127.0.0.1")
                || host.equals("localhost"));
    }

    @FuzzTest(maxDuration = "4m", maxExecutions = 1_000_000)
    void duringMpaSetup(FuzzedDataProvider data) throws Exception {
        try (SilentCloseable loopback = loopbackOnly()) {
            fuzzMpaSetup(data);
        }
    }

    private static void fuzzMpaSetup(FuzzedDataProvider data) throws Exception {
        boolean crc = data.consumeBoolean();
        boolean accept = data.consumeBoolean();
        boolean structured = data.consumeBoolean();
        byte[] request;
        byte[] after = new byte[0];
        if (structured) {
            int key = data.consumeInt(0, 3);
            int flags = data.consumeInt(0, 255);
            int revision = data.consumeInt(0, 3);
            int claimed = data.consumeInt(0, 3);
            byte[] pd = data.consumeBytes(data.consumeInt(0, 600));
            int pdLength = claimed == 0 ? data.consumeInt(0, 0xFFFF) : pd.length;
            String k = key == 3 ? RawPeer.KEY_REP : key == 2 ? "MPA ID Req Frams" : RawPeer.KEY_REQ;
            request = RawPeer.frame(k, flags, revision, pd);
            request[18] = (byte) (pdLength >>> 8);
            request[19] = (byte) pdLength;
            after = data.consumeRemainingAsBytes();
        } else {
            request = data.consumeRemainingAsBytes();
        }
        try (Rig rig = new Rig(IwarpSettings.builder().crc(crc).build())) {
            Fixture f = new Fixture(rig);
            try (RawPeer peer = RawPeer.connect(f.address)) {
                peer.send(request);
                Verdict expected = reference(request);
                if (expected == Verdict.INCOMPLETE) {
                    peer.hangUp();
                    f.awaitNoSetup();
                    assertTrue(rig.requests.isEmpty(), "an incomplete Request reached the consumer");
                } else if (expected == Verdict.DROP) {
                    assertTrue(peer.closedByPeer(), "a first frame that is no MPA Request is closed");
                    f.awaitNoSetup();
                    assertTrue(rig.requests.isEmpty(), "no Request reached the consumer");
                } else {
                    RdmaConnectRequest delivered = f.awaitVerdict(peer);
                    if (delivered == null) {
                        assertTrue(expected != Verdict.DELIVER, "a valid Request did not reach the consumer");
                        RawPeer.Frame reply = peer.readFrame();
                        assertEquals(RawPeer.KEY_REP, reply.key());
                        assertTrue((reply.flags() & 0x20) != 0, "refused with R=1");
                        peer.hangUp(); // the provider drains until our FIN (iwarp.md §2.4) and closes
                        assertTrue(rig.requests.isEmpty(), "a refused Request reached the consumer");
                        f.awaitNoSetup();
                    } else {
                        assertTrue(expected != Verdict.REFUSE, "a Request the rules refuse reached the consumer");
                        checkDelivered(request, delivered);
                        f.serve(peer, delivered, accept, after, (request[16] & 0x40) != 0 || crc);
                    }
                }
            }
            f.finish();
        }
    }

    /** The consumer sees the ULP private data and the IRD/ORD the Request carries. */
    private static void checkDelivered(byte[] request, RdmaConnectRequest r) {
        int pd = (request[18] & 0xFF) << 8 | (request[19] & 0xFF);
        boolean enhanced = request[17] == 2 && (request[16] & 0x10) != 0;
        int ulp = enhanced ? 24 : 20;
        byte[] expected = Arrays.copyOfRange(request, ulp, 20 + pd);
        byte[] got = new byte[r.privateData().remaining()];
        r.privateData().get(got);
        assertArrayEquals(expected, got, "ULP private data");
        assertEquals(enhanced ? ((request[20] & 0x3F) << 8 | (request[21] & 0xFF)) : 0, r.peerInboundReadDepth());
        assertEquals(enhanced ? ((request[22] & 0x3F) << 8 | (request[23] & 0xFF)) : 0, r.peerOutboundReadDepth());
    }

    // ---------------------------------------------------------------- after a valid MPA setup

    @FuzzTest(maxDuration = "4m", maxExecutions = 1_000_000)
    void afterMpaSetup(FuzzedDataProvider data) throws Exception {
        try (SilentCloseable loopback = loopbackOnly()) {
            fuzzAfterMpaSetup(data);
        }
    }

    private static void fuzzAfterMpaSetup(FuzzedDataProvider data) throws Exception {
        boolean providerCrc = data.consumeBoolean();
        boolean peerCrc = data.consumeBoolean();
        boolean revision1 = data.consumeInt(0, 3) == 0;
        int ird = data.consumeInt(0, 20);
        int ord = data.consumeInt(0, 20);
        try (Rig rig = new Rig(IwarpSettings.builder().crc(providerCrc).build())) {
            Fixture f = new Fixture(rig);
            try (RawPeer peer = RawPeer.connect(f.address)) {
                byte[] request = revision1 ? RawPeer.frame(RawPeer.KEY_REQ, peerCrc ? 0x40 : 0, 1, new byte[0])
                        : RawPeer.frame(RawPeer.KEY_REQ, (peerCrc ? 0x40 : 0) | 0x10, 2, RawPeer.word(ird, ord));
                peer.send(request);
                f.serve(peer, rig.nextRequest(), true, null, peerCrc || providerCrc);
                peer.crc = peerCrc || providerCrc;
                f.sendFuzzed(peer, data);
                f.endConnection(peer);
            }
            f.finish();
        }
    }

    // ---------------------------------------------------------------- the connection under test and its bystander

    /** The listener, the bystander connection, and the guarded registrations of the connection under test. */
    private static final class Fixture {
        final Rig rig;
        final InetSocketAddress address;
        final RawPeer bystanderPeer;
        final Rig.Side bystander;
        /** Guard, exposed (REMOTE_WRITE, REMOTE_READ), guard, read-only (REMOTE_READ), guard, local, guard, receives, guard. */
        final ByteBuffer memory = ByteBuffer.allocateDirect(9 * BLOCK);
        RdmaEndpoint endpoint;
        Events events;
        MemoryRegion exposed;
        MemoryRegion readOnly;
        MemoryRegion local;
        MemoryRegion receives;

        Fixture(Rig rig) throws Exception {
            this.rig = rig;
            address = rig.listen();
            bystanderPeer = RawPeer.connect(address);
            bystanderPeer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x10, 2, RawPeer.word(2, 2)));
            bystander = rig.accept(2, 64, Rig.params(2, 2));
            RawPeer.Frame reply = bystanderPeer.readFrame();
            bystanderPeer.crc = (reply.flags() & 0x40) != 0;
            for (int i = 0; i < memory.capacity(); i++) {
                memory.put(i, isGuard(i) ? GUARD : (byte) (i * 7));
            }
        }

        private static boolean isGuard(int i) {
            return (i / BLOCK) % 2 == 0;
        }

        /** Accepts (registrations posted and exposed) or rejects the delivered request, then sends {@code after}. */
        void serve(RawPeer peer, RdmaConnectRequest request, boolean accept, byte[] after, boolean crcOn)
                throws Exception {
            if (!accept) {
                request.reject(ByteBuffer.allocate(0));
                RawPeer.Frame reply = peer.readFrame();
                assertTrue((reply.flags() & 0x20) != 0, "rejected with R=1");
                peer.hangUp();
                awaitNoSetup();
                return;
            }
            events = new Events();
            endpoint = rig.track(request.createEndpoint(new EndpointSettings(16, 16), events));
            exposed = endpoint.register(memory.slice(BLOCK, BLOCK),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE, MemoryAccess.REMOTE_READ));
            readOnly = endpoint.register(memory.slice(3 * BLOCK, BLOCK),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ));
            local = endpoint.register(memory.slice(5 * BLOCK, BLOCK), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            receives = endpoint.register(memory.slice(7 * BLOCK, BLOCK), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            for (int i = 0; i < RECEIVES; i++) {
                endpoint.postReceive(receives, i * (BLOCK / RECEIVES), BLOCK / RECEIVES, i);
            }
            endpoint.accept(Rig.params(4, 4));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(RawPeer.KEY_REP, reply.key());
            assertEquals(0, reply.flags() & 0x20, "accepted: R=0");
            assertEquals(crcOn, (reply.flags() & 0x40) != 0, "CRC when either side asks (RFC 5044 §7.1)");
            if (after != null && after.length > 0) {
                peer.crc = crcOn;
                send(peer, after);
                endConnection(peer);
            } else if (after != null) {
                endConnection(peer);
            }
        }

        /** Up to 12 fuzzed steps: raw bytes or structured FPDUs aimed at the exposed registrations. */
        void sendFuzzed(RawPeer peer, FuzzedDataProvider data) throws IOException {
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            int steps = data.consumeInt(0, 12);
            int sendMsn = 1;
            int readMsn = 1;
            for (int i = 0; i < steps; i++) {
                byte[] ulpdu;
                switch (data.consumeInt(0, 7)) {
                    case 0 -> {
                        stream.writeBytes(data.consumeBytes(data.consumeInt(0, 96)));
                        continue;
                    }
                    case 1 -> {
                        int opcode = data.consumeInt(3, 6);
                        boolean last = data.consumeBoolean();
                        int msn = data.consumeInt(0, 7) == 0 ? data.consumeInt() : sendMsn;
                        int mo = data.consumeInt(0, 7) == 0 ? data.consumeInt() : data.consumeInt(0, 200);
                        int invalidate = data.consumeBoolean() ? stag(data) : 0;
                        ulpdu = RawPeer.untagged(last ? 0x41 : 0x01, 0x40 | opcode, invalidate, 0, msn, mo,
                                data.consumeBytes(data.consumeInt(0, 160)));
                        if (last) {
                            sendMsn++;
                        }
                    }
                    case 2, 3 -> {
                        boolean readResponse = data.consumeInt(0, 3) == 0;
                        ulpdu = RawPeer.tagged(data.consumeBoolean() ? 0xC1 : 0x81, readResponse ? 0x42 : 0x40,
                                stag(data), offset(data), data.consumeBytes(data.consumeInt(0, 160)));
                    }
                    case 4 -> {
                        int msn = data.consumeInt(0, 7) == 0 ? data.consumeInt() : readMsn++;
                        ulpdu = RawPeer.readRequest(msn, data.consumeInt(), data.consumeLong(),
                                data.consumeBoolean() ? data.consumeInt(0, BLOCK + 8) : data.consumeInt(), stag(data),
                                offset(data));
                    }
                    case 5 -> ulpdu = RawPeer.untagged(0x41, 0x47, 0, 2, 1, 0,
                            ByteBuffer.allocate(4).putInt(data.consumeInt()).array());
                    default -> ulpdu = RawPeer.untagged(data.consumeInt(0, 255), data.consumeInt(0, 255),
                            data.consumeInt(), data.consumeInt(0, 3), data.consumeInt(0, 3), data.consumeInt(0, 3),
                            data.consumeBytes(data.consumeInt(0, 64)));
                }
                byte[] fpdu = peer.fpdu(ulpdu);
                if (data.consumeInt(0, 15) == 0) {
                    fpdu[data.consumeInt(0, fpdu.length - 1)] ^= (byte) data.consumeInt(1, 255);
                }
                stream.writeBytes(fpdu);
            }
            stream.writeBytes(data.consumeRemainingAsBytes());
            send(peer, stream.toByteArray());
        }

        /** An STag: the exposed, read-only, local or receive registration's, or any. */
        private int stag(FuzzedDataProvider data) {
            return switch (data.consumeInt(0, 5)) {
                case 0, 1 -> exposed.token();
                case 2 -> readOnly.token();
                case 3 -> local.token();
                case 4 -> receives.token();
                default -> data.consumeInt();
            };
        }

        /** A tagged offset near the exposed registration (inside, at and past its edges), or any. */
        private long offset(FuzzedDataProvider data) {
            return data.consumeInt(0, 7) == 0 ? data.consumeLong()
                    : exposed.address() + data.consumeInt(-16, BLOCK + 16);
        }

        private static void send(RawPeer peer, byte[] bytes) {
            try {
                peer.send(bytes);
            } catch (IOException e) {
                // the provider may end the connection (Terminate, close) before it took every byte
            }
        }

        /** The peer hangs up; the connection ends through a protocol check, never an internal error. */
        void endConnection(RawPeer peer) throws Exception {
            peer.hangUp();
            DisconnectCause cause = events.awaitDisconnected();
            String detail = events.detail();
            assertNotNull(detail);
            assertFalse(detail.contains("internal error"), detail);
            assertTrue(cause == DisconnectCause.QP_ERROR || cause == DisconnectCause.PEER, cause + " " + detail);
            assertEquals(0, events.callbacksAfterDisconnect(), "callbacks after onDisconnected");
            for (Events.Completion c : events.completions()) {
                // LOCAL_LENGTH_ERROR: a Send longer than the receive; LOCAL_PROTECTION_ERROR: the receive's region
                // was invalidated by the peer; REMOTE_INVALID_REQUEST: a Send with Invalidate naming no registration
                assertTrue(c.status() == CompletionStatus.SUCCESS || c.status() == CompletionStatus.FLUSHED
                        || c.status() == CompletionStatus.LOCAL_LENGTH_ERROR
                        || c.status() == CompletionStatus.LOCAL_PROTECTION_ERROR
                        || c.status() == CompletionStatus.REMOTE_INVALID_REQUEST, c.toString());
            }
            assertEquals(RECEIVES, events.completions().stream().filter(c -> c.wrId() < RECEIVES).count(),
                    "each posted receive completes exactly once: " + events.completions());
        }

        /** The request once the consumer has it, or null once the provider has answered on the socket. */
        RdmaConnectRequest awaitVerdict(RawPeer peer) throws Exception {
            RdmaConnectRequest[] delivered = new RdmaConnectRequest[1];
            await("an answer to the MPA Request", () -> {
                delivered[0] = rig.requests.poll();
                try {
                    return delivered[0] != null || peer.hasInput();
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
            return delivered[0];
        }

        void awaitNoSetup() throws InterruptedException {
            await("no connection in MPA setup", () -> rig.provider.statistics().pendingRequests() == 0
                    && rig.provider.statistics().connections() == 1);
        }

        private void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RawPeer.TIMEOUT_MILLIS);
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out waiting for " + what + ": " + rig.provider.statistics());
                }
                LockSupport.parkNanos(200_000);
            }
        }

        /** Guards untouched, the bystander unharmed, everything given back. */
        void finish() throws Exception {
            for (int i = 0; i < memory.capacity(); i++) {
                int region = i / BLOCK;
                if (isGuard(i) || region == 3 || region == 5) {
                    byte expected = isGuard(i) ? GUARD : (byte) (i * 7);
                    if (memory.get(i) != expected) {
                        throw new AssertionError("byte " + i + " (block " + region + ", not writable by the peer) "
                                + "changed to 0x" + Integer.toHexString(memory.get(i) & 0xFF));
                    }
                }
            }
            byte[] message = "the bystander goes on".getBytes(StandardCharsets.US_ASCII);
            bystanderPeer.send(bystanderPeer.fpdu(RawPeer.send(1, 0, true, message)));
            Events.Completion c = bystander.events.awaitCompletions(1).get(0);
            assertEquals(CompletionStatus.SUCCESS, c.status());
            assertArrayEquals(message, bystander.received(0, message.length));
            assertEquals(null, bystander.events.cause(), "the bystander was disconnected");
            if (endpoint != null) {
                endpoint.close();
            }
            bystander.endpoint.close();
            bystanderPeer.close();
            await("registrations and connections given back", () -> {
                IwarpStatistics s = rig.provider.statistics();
                return s.registrations() == 0 && s.connections() == 0 && s.pendingRequests() == 0
                        && s.endpoints() == 0;
            });
            IwarpProvider p = rig.provider;
            assertEquals(0, p.statistics().internalErrors(), "internal errors: " + p.statistics());
        }
    }
}
