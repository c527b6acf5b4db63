package smbdirect.rdma.iwarp.internal.network;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * A second connection on the provider under test that stays busy through every fault and is
 * checked byte for byte: round after round, the far side (the initiator, on another provider) sends
 * a message of a size and content given by the round number, the subject side checks it and echoes
 * it, the far side checks the echo; every fourth round the subject first RDMA-reads 4 KiB of the far
 * side's registration and checks them. Everything runs in the two endpoints' callbacks, so the traffic never pauses while a test
 * breaks other connections. Any difference, failed completion or disconnect is recorded.
 */
final class Bystander {

    private static final int SLOTS = 4;
    private static final int MAX_MESSAGE = 4000;
    private static final int READ_SIZE = 4096;
    private static final int EXPOSED = 64 * 1024;

    private final Side subject = new Side(true);
    private final Side far = new Side(false);
    private final List<String> failures = new ArrayList<>();
    private long rounds;
    private long bytesChecked;
    private boolean stopping;
    private boolean stopped;

    /** One end: its endpoint, a receive region of {@link #SLOTS} slots and a send region. */
    private final class Side implements RdmaEndpointHandler {
        final boolean isSubject;
        RdmaEndpoint endpoint;
        MemoryRegion receives;
        MemoryRegion sends;
        MemoryRegion exposed;
        MemoryRegion sink;
        boolean established;
        DisconnectCause disconnected;

        Side(boolean isSubject) {
            this.isSubject = isSubject;
        }

        void prepare(RdmaEndpoint ep) throws RdmaException {
            endpoint = ep;
            receives = ep.register(ByteBuffer.allocateDirect(SLOTS * MAX_MESSAGE), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            sends = ep.register(ByteBuffer.allocateDirect(MAX_MESSAGE), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            for (int i = 0; i < SLOTS; i++) {
                ep.postReceive(receives, i * MAX_MESSAGE, MAX_MESSAGE, i);
            }
            if (isSubject) {
                sink = ep.register(ByteBuffer.allocateDirect(READ_SIZE), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            } else {
                ByteBuffer b = ByteBuffer.allocateDirect(EXPOSED);
                for (int i = 0; i < EXPOSED; i++) {
                    b.put(i, (byte) (i * 7 + 3));
                }
                exposed = ep.register(b, EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ));
            }
        }

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            synchronized (Bystander.this) {
                established = true;
                Bystander.this.notifyAll();
            }
            if (!isSubject) {
                nextRound(); // the initiator speaks first (RFC 5044 §7.1.2)
            }
        }

        @Override
        public void onCompletion(WorkCompletion wc) {
            if (wc.status() != CompletionStatus.SUCCESS) {
                if (!(stoppingNow() && wc.status() == CompletionStatus.FLUSHED)) {
                    fail((isSubject ? "subject" : "far side") + " completion " + wc.type() + " " + wc.status());
                }
                return;
            }
            try {
                if (wc.type() == WorkRequestType.RECEIVE) {
                    int slot = (int) wc.wrId();
                    long round = currentRound();
                    if (!matches(receives.buffer(), slot * MAX_MESSAGE, wc.byteLength(), round)) {
                        fail((isSubject ? "the message" : "the echo") + " of round " + round + " differs");
                        return;
                    }
                    checked(wc.byteLength());
                    if (isSubject) {
                        sends.buffer().put(0, receives.buffer(), slot * MAX_MESSAGE, wc.byteLength());
                        endpoint.postReceive(receives, slot * MAX_MESSAGE, MAX_MESSAGE, slot);
                        if (round % 4 == 3) {
                            long offset = (round * 64) % (EXPOSED - READ_SIZE);
                            endpoint.postRdmaRead(sink, 0, READ_SIZE, far.exposed.address() + offset,
                                    far.exposed.token(), (long) wc.byteLength() << 32 | round);
                        } else {
                            endpoint.postSend(sends, 0, wc.byteLength(), 100);
                        }
                    } else {
                        endpoint.postReceive(receives, slot * MAX_MESSAGE, MAX_MESSAGE, slot);
                        finishRound();
                    }
                } else if (wc.type() == WorkRequestType.RDMA_READ) {
                    long round = wc.wrId() & 0xFFFF_FFFFL;
                    long offset = (round * 64) % (EXPOSED - READ_SIZE);
                    for (int i = 0; i < READ_SIZE; i++) {
                        if (sink.buffer().get(i) != (byte) ((offset + i) * 7 + 3)) {
                            fail("RDMA Read of round " + round + " differs at byte " + i);
                            return;
                        }
                    }
                    checked(READ_SIZE);
                    endpoint.postSend(sends, 0, (int) (wc.wrId() >>> 32), 100);
                }
            } catch (RdmaException e) {
                fail((isSubject ? "subject" : "far side") + " post failed: " + e);
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            synchronized (Bystander.this) {
                disconnected = cause;
                if (!stopping) {
                    failures.add((isSubject ? "subject" : "far side") + " disconnected: " + cause + " " + detail);
                }
                Bystander.this.notifyAll();
            }
        }
    }

    /** The subject's endpoint is created from a connection request on the provider under test. */
    void prepareSubject(RdmaEndpoint endpoint) throws RdmaException {
        subject.prepare(endpoint);
    }

    RdmaEndpointHandler subjectHandler() {
        return subject;
    }

    RdmaEndpointHandler farHandler() {
        return far;
    }

    void prepareFar(RdmaEndpoint endpoint) throws RdmaException {
        far.prepare(endpoint);
    }

    static EndpointSettings config() {
        return new EndpointSettings(16, 16);
    }

    static ConnectParameters parameters() {
        return new ConnectParameters(ByteBuffer.allocate(0), 4, 4);
    }

    private static int size(long round) {
        return (int) (1 + (round * 997) % MAX_MESSAGE);
    }

    private static byte content(long round, int i) {
        return (byte) (round * 31 + i * 13);
    }

    private static boolean matches(ByteBuffer b, int at, int length, long round) {
        if (length != size(round)) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (b.get(at + i) != content(round, i)) {
                return false;
            }
        }
        return true;
    }

    private synchronized long currentRound() {
        return rounds;
    }

    private synchronized void checked(long bytes) {
        bytesChecked += bytes;
    }

    private synchronized boolean stoppingNow() {
        return stopping;
    }

    private void finishRound() {
        synchronized (this) {
            rounds++;
            notifyAll();
            if (stopping) {
                stopped = true;
                return;
            }
        }
        nextRound();
    }

    private void nextRound() {
        long round;
        synchronized (this) {
            round = rounds;
        }
        int length = size(round);
        ByteBuffer b = far.sends.buffer();
        for (int i = 0; i < length; i++) {
            b.put(i, content(round, i));
        }
        try {
            far.endpoint.postSend(far.sends, 0, length, 100);
        } catch (RdmaException e) {
            fail("far side post failed: " + e);
        }
    }

    private synchronized void fail(String failure) {
        failures.add(failure);
        notifyAll();
    }

    synchronized void awaitEstablished() throws InterruptedException {
        await("the bystander connection", () -> subject.established && far.established);
    }

    /** Waits until {@code n} more rounds completed; fails on a recorded failure. */
    synchronized void awaitRounds(long n) throws InterruptedException {
        long target = rounds + n;
        await(n + " more bystander rounds (at " + rounds + ")", () -> rounds >= target);
    }

    synchronized long rounds() {
        return rounds;
    }

    synchronized long bytesChecked() {
        return bytesChecked;
    }

    /** No failure so far. */
    synchronized void assertHealthy() {
        if (!failures.isEmpty()) {
            throw new AssertionError("the bystander connection was disturbed: " + failures);
        }
    }

    /** Stops after the round in flight, then closes both endpoints; the far side's is closed by its owner. */
    void stop() throws InterruptedException {
        synchronized (this) {
            stopping = true;
            await("the bystander's last round", () -> stopped || !failures.isEmpty());
        }
        assertHealthy();
    }

    private interface Condition {
        boolean holds();
    }

    private void await(String what, Condition condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.holds()) {
            if (!failures.isEmpty()) {
                throw new AssertionError("the bystander connection was disturbed: " + failures);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }
}
