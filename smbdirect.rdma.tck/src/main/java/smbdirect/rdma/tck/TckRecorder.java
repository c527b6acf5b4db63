package smbdirect.rdma.tck;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * Records every callback of one endpoint and checks the callback rules as it goes: never two
 * callbacks at once on different threads, nothing after {@code onDisconnected}. The contract suite
 * makes one per endpoint ({@link RdmaProviderContractTest#recorder()}); a provider's own tests may
 * make their own ({@link #TckRecorder()}) and wait for the connection events with
 * {@link #awaitEstablished} and {@link #awaitDisconnected}.
 */
public final class TckRecorder implements RdmaEndpointHandler {

    /**
     * One recorded work completion (copied: the provider's object is a reused flyweight), with the
     * name of the thread it was delivered on.
     */
    public record Completion(long wrId, WorkRequestType type, CompletionStatus status, int byteLength,
            boolean invalidated, int token, String thread) {
    }

    private final Object signal;
    private volatile boolean reentrantAllowed;
    private volatile boolean recording = true;
    private final List<String> events = new ArrayList<>();
    private final List<Completion> completions = new ArrayList<>();
    private final CountDownLatch establishedLatch = new CountDownLatch(1);
    private final CountDownLatch disconnectedLatch = new CountDownLatch(1);
    private Thread inside;
    private int depth;
    private volatile boolean concurrentCallbacks;
    private volatile boolean reentered;
    private volatile int callbacksAfterDisconnect;
    private volatile byte[] establishedData;
    private volatile DisconnectCause cause;
    private volatile String detail;
    private volatile byte[] disconnectData;
    /** Runs after each completion was recorded, inside the callback (may post). */
    public volatile Consumer<WorkCompletion> onCompletion = wc -> { };
    /** Runs after {@code onEstablished} was recorded, inside the callback (may post). */
    public volatile Runnable onEstablished = () -> { };

    /** A recorder for a provider that does not deliver callbacks inline ({@link #reentrantAllowed}). */
    public TckRecorder() {
        this(new Object(), false);
    }

    TckRecorder(Object signal, boolean reentrantAllowed) {
        this.signal = signal;
        this.reentrantAllowed = reentrantAllowed;
    }

    /**
     * Whether a callback may run inside another on the same thread (a provider that delivers inline,
     * from inside a post); set before the endpoint is made.
     */
    public TckRecorder reentrantAllowed(boolean allowed) {
        reentrantAllowed = allowed;
        return this;
    }

    /**
     * Whether completions are recorded (default); {@code false}: they are only handed to
     * {@link #onCompletion}, and the recorder allocates nothing per completion.
     */
    public TckRecorder recording(boolean record) {
        recording = record;
        return this;
    }

    private synchronized void enter() {
        Thread me = Thread.currentThread();
        if (depth > 0) {
            if (inside != me) {
                concurrentCallbacks = true;
            } else if (!reentrantAllowed) {
                reentered = true;
            }
        }
        inside = me;
        depth++;
        if (cause != null) {
            callbacksAfterDisconnect++;
        }
    }

    private void leave() {
        synchronized (this) {
            depth--;
            if (depth == 0) {
                inside = null;
            }
        }
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    @Override
    public void onEstablished(ByteBuffer peerPrivateData) {
        enter();
        try {
            establishedData = copy(peerPrivateData);
            synchronized (this) {
                events.add("established");
            }
            establishedLatch.countDown();
            onEstablished.run();
        } finally {
            leave();
        }
    }

    @Override
    public void onCompletion(WorkCompletion wc) {
        enter();
        try {
            if (!recording) {
                onCompletion.accept(wc);
                return;
            }
            synchronized (this) {
                completions.add(new Completion(wc.wrId(), wc.type(), wc.status(), wc.byteLength(),
                        wc.hasInvalidatedToken(), wc.invalidatedToken(), Thread.currentThread().getName()));
                events.add(wc.type() + ":" + wc.wrId() + ":" + wc.status());
            }
            onCompletion.accept(wc);
        } finally {
            leave();
        }
    }

    @Override
    public void onDisconnected(DisconnectCause c, String d, ByteBuffer privateData) {
        enter();
        try {
            disconnectData = copy(privateData);
            detail = d;
            synchronized (this) {
                events.add("disconnected:" + c);
            }
            cause = c;
            disconnectedLatch.countDown();
        } finally {
            leave();
        }
    }

    private static byte[] copy(ByteBuffer data) {
        byte[] out = new byte[data.remaining()];
        data.duplicate().get(out);
        return out;
    }

    public synchronized List<Completion> completions() {
        return new ArrayList<>(completions);
    }

    public synchronized List<Completion> completions(WorkRequestType type) {
        return completions.stream().filter(c -> c.type() == type).toList();
    }

    public synchronized List<String> events() {
        return new ArrayList<>(events);
    }

    public synchronized String lastEvent() {
        return events.isEmpty() ? null : events.get(events.size() - 1);
    }

    public boolean established() {
        return establishedData != null;
    }

    /** Waits for {@code onEstablished}; whether it came within the time given. */
    public boolean awaitEstablished(long timeout, TimeUnit unit) throws InterruptedException {
        return establishedLatch.await(timeout, unit);
    }

    /** Waits for {@code onDisconnected}; whether it came within the time given. */
    public boolean awaitDisconnected(long timeout, TimeUnit unit) throws InterruptedException {
        return disconnectedLatch.await(timeout, unit);
    }

    public byte[] establishedData() {
        return establishedData;
    }

    public DisconnectCause cause() {
        return cause;
    }

    public String detail() {
        return detail;
    }

    public byte[] disconnectData() {
        return disconnectData;
    }

    /** Whether two callbacks ever ran at once on different threads. */
    public boolean concurrentCallbacks() {
        return concurrentCallbacks;
    }

    /** Whether a callback ran inside another on the same thread although the provider does not deliver inline. */
    public boolean reentered() {
        return reentered;
    }

    /** Whether two callbacks ever overlapped: {@link #concurrentCallbacks()} or {@link #reentered()}. */
    public boolean overlapped() {
        return concurrentCallbacks || reentered;
    }

    public int callbacksAfterDisconnect() {
        return callbacksAfterDisconnect;
    }
}
