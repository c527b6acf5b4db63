package smbdirect.rdma.iwarp.internal.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/** Records one endpoint's callbacks (completions copied) and lets a test wait for them, bounded. */
public final class Events implements RdmaEndpointHandler {

    public record Completion(long wrId, WorkRequestType type, CompletionStatus status, int bytes, boolean invalidated,
            int token) {
    }

    private final List<Completion> completions = new ArrayList<>();
    private byte[] establishedData;
    private DisconnectCause cause;
    private String detail;
    private byte[] disconnectData;
    private int callbacksAfterDisconnect;
    private Runnable atDisconnect = () -> { };

    /** Runs {@code probe} inside {@code onDisconnected}, on the provider's thread, before it returns. */
    public synchronized Events atDisconnect(Runnable probe) {
        atDisconnect = probe;
        return this;
    }

    @Override
    public synchronized void onEstablished(ByteBuffer peerPrivateData) {
        establishedData = copy(peerPrivateData);
        notifyAll();
    }

    @Override
    public synchronized void onCompletion(WorkCompletion wc) {
        if (cause != null) {
            callbacksAfterDisconnect++;
        }
        completions.add(new Completion(wc.wrId(), wc.type(), wc.status(), wc.byteLength(), wc.hasInvalidatedToken(),
                wc.invalidatedToken()));
        notifyAll();
    }

    @Override
    public synchronized void onDisconnected(DisconnectCause c, String d, ByteBuffer privateData) {
        if (cause != null) {
            callbacksAfterDisconnect++;
        }
        cause = c;
        detail = d;
        disconnectData = copy(privateData);
        atDisconnect.run();
        notifyAll();
    }

    private static byte[] copy(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    public synchronized void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RawPeer.TIMEOUT_MILLIS);
        while (!condition.getAsBoolean()) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                fail("timed out waiting for " + what + "; completions " + completions + ", disconnect " + cause + " "
                        + detail);
            }
            wait(left);
        }
    }

    public byte[] awaitEstablished() throws InterruptedException {
        await("onEstablished", () -> establishedData != null || cause != null);
        if (establishedData == null) {
            fail("not established: " + cause + " " + detail);
        }
        return establishedData;
    }

    public DisconnectCause awaitDisconnected() throws InterruptedException {
        await("onDisconnected", () -> cause != null);
        return cause;
    }

    public List<Completion> awaitCompletions(int n) throws InterruptedException {
        await(n + " completions", () -> completions.size() >= n);
        return completions();
    }

    public synchronized List<Completion> completions() {
        return new ArrayList<>(completions);
    }

    public synchronized String detail() {
        return detail;
    }

    public synchronized DisconnectCause cause() {
        return cause;
    }

    public synchronized byte[] disconnectData() {
        return disconnectData;
    }

    public synchronized boolean established() {
        return establishedData != null;
    }

    public synchronized int callbacksAfterDisconnect() {
        return callbacksAfterDisconnect;
    }
}
