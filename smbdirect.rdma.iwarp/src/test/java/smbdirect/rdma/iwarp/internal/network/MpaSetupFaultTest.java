package smbdirect.rdma.iwarp.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.internal.conformance.Events;
import smbdirect.rdma.iwarp.internal.conformance.RawPeer;

/**
 * Faults before RDMA mode on real sockets (RFC 5044 §7.1, RFC 6581): a connection that never sends
 * its MPA Request, Requests the provider refuses, and a flood of connects and half-open handshakes
 * beyond the connection cap. The listener keeps serving, nothing reaches the consumer that is not
 * a good Request, what the bad connections took is given back, and a busy {@link Bystander} on the
 * same provider (and I/O thread) is untouched.
 */
class MpaSetupFaultTest {

    /** What a loaded 2-vCPU machine may add to a timer of the provider before its thread runs it. */
    private static final long SLACK_MILLIS = 3000;

    /** Reads until EOF or reset; returns the bytes read before it, or fails after {@code millis}. */
    private static byte[] readUntilClosed(Socket socket, long millis) throws IOException {
        socket.setSoTimeout((int) millis);
        InputStream in = socket.getInputStream();
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        byte[] b = new byte[256];
        try {
            for (int n = in.read(b); n >= 0; n = in.read(b)) {
                got.write(b, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection is still open after " + millis + " ms");
        } catch (IOException e) {
            // a reset ends the connection as well
        }
        return got.toByteArray();
    }

    /**
     * Waits until every socket is closed by the other side (EOF or reset) without a byte from it, at
     * most {@code boundMillis} after {@code startNanos}, looking at each in turn with 1 ms reads.
     *
     * @return for each socket, when it was seen closed, in ms after {@code startNanos}
     */
    private static long[] awaitAllClosed(List<Socket> sockets, long startNanos, long boundMillis) throws IOException {
        long[] closedAt = new long[sockets.size()];
        java.util.Arrays.fill(closedAt, -1);
        byte[] b = new byte[256];
        int open = sockets.size();
        while (open > 0) {
            long now = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            if (now > boundMillis) {
                throw new AssertionError(open + " of " + sockets.size() + " connections still open " + now + " ms after"
                        + " the flood began");
            }
            for (int i = 0; i < sockets.size(); i++) {
                if (closedAt[i] >= 0) {
                    continue;
                }
                Socket s = sockets.get(i);
                s.setSoTimeout(1);
                try {
                    int n = s.getInputStream().read(b);
                    assertTrue(n < 0, "the provider answered a flood connection with " + n + " bytes");
                } catch (SocketTimeoutException e) {
                    continue; // still open
                } catch (IOException e) {
                    // a reset ends the connection as well
                }
                closedAt[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
                open--;
            }
        }
        return closedAt;
    }

    /** A good initiator completes its handshake and its first Send is received: the listener serves. */
    private static void aGoodConnectionIsServed(FaultRig rig) throws Exception {
        FaultRig.RawSession s = rig.raw(true, 1, 64);
        s.peer().send(s.peer().fpdu(RawPeer.send(1, 0, true, new byte[] {1, 2, 3})));
        assertEquals(CompletionStatus.SUCCESS, s.events().awaitCompletions(1).get(0).status());
        s.peer().close();
        assertEquals(DisconnectCause.PEER, s.events().awaitDisconnected());
    }

    @Test
    void rfc5044_7_1_aConnectionWithoutMpaRequestIsClosedAfterTheRequestTimeoutAndTheListenerServesOn()
            throws Exception {
        try (FaultRig rig = new FaultRig("no-request")) {
            int before = rig.subject.statistics().pendingRequests();
            long start = System.nanoTime();
            try (Socket silent = new Socket(); Socket partial = new Socket()) {
                silent.connect(rig.address, RawPeer.TIMEOUT_MILLIS);
                partial.connect(rig.address, RawPeer.TIMEOUT_MILLIS);
                // 19 of the Request's 20 header bytes, then nothing
                partial.getOutputStream().write(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, new byte[0]), 0, 19);
                long limit = FaultRig.MPA_REQUEST_TIMEOUT_MILLIS + SLACK_MILLIS;
                assertEquals(0, readUntilClosed(silent, limit).length, "no Reply to a connection without Request");
                assertEquals(0, readUntilClosed(partial, limit).length, "no Reply to an incomplete Request");
            }
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(elapsed >= FaultRig.MPA_REQUEST_TIMEOUT_MILLIS, "closed after " + elapsed + " ms, before the "
                    + FaultRig.MPA_REQUEST_TIMEOUT_MILLIS + " ms the Request may take");
            rig.assertNoRequest(0);
            assertEquals(before, rig.subject.statistics().pendingRequests());
            rig.assertRecovered();
            aGoodConnectionIsServed(rig);
            rig.assertRecovered();
        }
    }

    /** MPA Requests the provider refuses (iwarp.md §2.4 as siw does it). */
    enum BadRequest {
        /** Not an MPA Request: closed without a Reply. */
        KEY(RawPeer.frame("MPA ID Rep Frame", 0x50, 2, RawPeer.word(4, 4)), false),
        /** Revision 3: a Reply with R=1. */
        REVISION(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 3, RawPeer.word(4, 4)), true),
        /** PD_Length 600 > 512 (RFC 5044 §7.1): a Reply with R=1. */
        PRIVATE_DATA_LENGTH(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, new byte[600]), true),
        /** Enhanced, but PD_Length 2: no RFC 6581 word. */
        ENHANCED_WITHOUT_WORD(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, new byte[2]), true),
        /** Markers asked for (RFC 5044 §5). */
        MARKERS(RawPeer.frame(RawPeer.KEY_REQ, 0xD0, 2, RawPeer.word(4, 4)), true);

        final byte[] bytes;
        final boolean rejectReply;

        BadRequest(byte[] bytes, boolean rejectReply) {
            this.bytes = bytes;
            this.rejectReply = rejectReply;
        }
    }

    @ParameterizedTest
    @EnumSource(BadRequest.class)
    void rfc5044_7_1_aBadRequestNeverReachesTheConsumerAndTheListenerServesOn(BadRequest bad) throws Exception {
        try (FaultRig rig = new FaultRig("bad-request")) {
            try (Socket socket = new Socket()) {
                socket.connect(rig.address, RawPeer.TIMEOUT_MILLIS);
                socket.getOutputStream().write(bad.bytes);
                byte[] answer = readUntilClosed(socket, RawPeer.TIMEOUT_MILLIS);
                if (bad.rejectReply) {
                    assertTrue(answer.length >= 20, "a Reply: " + answer.length + " bytes");
                    assertEquals(RawPeer.KEY_REP, new String(answer, 0, 16, java.nio.charset.StandardCharsets.US_ASCII));
                    assertEquals(0x20, answer[16] & 0x20, "R=1");
                    assertEquals(0, answer[16] & 0x80, "M=0 in the reject");
                } else {
                    assertEquals(0, answer.length, "closed without a Reply");
                }
            }
            rig.assertNoRequest(100);
            rig.assertRecovered();
            aGoodConnectionIsServed(rig);
            rig.assertRecovered();
        }
    }

    /**
     * The MPA request timeout of the flood test: long enough that a connection closed sooner after
     * the flood began cannot have been closed by it (each connection's timer starts at its accept,
     * after that), so that being shed at once is told apart from timing out without a wall-clock
     * guess; the pending connections then take that long to close.
     */
    private static final int FLOOD_REQUEST_TIMEOUT_MILLIS = 5000;

    @Test
    void aFloodOfConnectsAndHalfOpenHandshakesIsShedWhileEstablishedConnectionsAndConnectsWork() throws Exception {
        int cap = 40;
        int pendingCap = 8;
        try (FaultRig rig = new FaultRig("flood", IwarpSettings.builder().maxConnections(cap)
                .maxPendingConnections(pendingCap), FLOOD_REQUEST_TIMEOUT_MILLIS)) {
            FaultRig.RawSession established = rig.raw(false, 4, 64);
            int flood = 120;
            List<Socket> sockets = new ArrayList<>();
            long start = System.nanoTime();
            try {
                for (int i = 0; i < flood; i++) {
                    Socket s = new Socket();
                    s.connect(rig.address, RawPeer.TIMEOUT_MILLIS);
                    if (i % 2 == 1) {
                        s.getOutputStream().write(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, RawPeer.word(4, 4)), 0, 10);
                    }
                    sockets.add(s);
                }
                // while the flood is on, the established connections go on and the provider can still connect out
                rig.bystander.awaitRounds(20);
                established.peer().send(established.peer().fpdu(RawPeer.send(1, 0, true, new byte[] {42})));
                assertEquals(CompletionStatus.SUCCESS, established.events().awaitCompletions(1).get(0).status());
                assertTrue(rig.subject.statistics().pendingRequests() <= pendingCap, "pending connections beyond "
                        + pendingCap + ": " + rig.subject.statistics());
                aConnectOutSucceeds(rig);
                // every flood connection ends: beyond the pending cap at once, the rest after the MPA request timeout
                long phase = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                long[] closedAt = awaitAllClosed(sockets, start, FLOOD_REQUEST_TIMEOUT_MILLIS + phase + SLACK_MILLIS);
                int beforeTheTimeout = 0;
                for (long t : closedAt) {
                    if (t < FLOOD_REQUEST_TIMEOUT_MILLIS) {
                        beforeTheTimeout++;
                    }
                }
                assertTrue(beforeTheTimeout >= flood - pendingCap, beforeTheTimeout + " of " + flood + " flood"
                        + " connections closed before any MPA request timeout could expire (the flood and the checks"
                        + " beside it took " + phase + " ms of the " + FLOOD_REQUEST_TIMEOUT_MILLIS + " ms)");
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
            rig.assertNoRequest(0);
            // the established connection still works, and a new one is served
            established.peer().send(established.peer().fpdu(RawPeer.send(2, 0, true, new byte[] {43})));
            assertEquals(CompletionStatus.SUCCESS, established.events().awaitCompletions(2).get(1).status());
            established.peer().close();
            assertEquals(DisconnectCause.PEER, established.events().awaitDisconnected());
            rig.assertRecovered();
            aGoodConnectionIsServed(rig);
            rig.assertRecovered();
        }
    }

    /** The subject connects to a listener of the helper provider, sends one message, and disconnects. */
    private static void aConnectOutSucceeds(FaultRig rig) throws Exception {
        java.util.concurrent.BlockingQueue<RdmaConnectRequest> requests = new java.util.concurrent.LinkedBlockingQueue<>();
        RdmaListener target = rig.helper.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                requests.add(request);
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
            }
        });
        try {
            Events out = new Events();
            RdmaEndpoint active = rig.track(rig.subject.createEndpoint(new EndpointSettings(4, 4), out));
            active.connect(target.localAddress(), new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
            RdmaConnectRequest request = requests.poll(RawPeer.TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            assertTrue(request != null, "the subject's connect reached the helper");
            Events in = new Events();
            RdmaEndpoint passive = request.createEndpoint(new EndpointSettings(4, 4), in);
            MemoryRegion receive = passive.register(ByteBuffer.allocateDirect(64), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            passive.postReceive(receive, 0, 64, 0);
            passive.accept(new ConnectParameters(ByteBuffer.allocate(0), 1, 1));
            out.awaitEstablished();
            MemoryRegion send = active.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            active.postSend(send, 0, 8, 1);
            assertEquals(8, in.awaitCompletions(1).get(0).bytes());
            active.disconnect();
            assertEquals(DisconnectCause.LOCAL, out.awaitDisconnected());
            assertEquals(DisconnectCause.PEER, in.awaitDisconnected());
            passive.close();
        } finally {
            target.close();
        }
    }
}
