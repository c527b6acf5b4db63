package smbdirect.rdma.tck;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * Records every callback of one endpoint and checks the callback rules as it goes: never two
 * callbacks at once on different threads, nothing after {@code onDisconnected}.
 */
public final class TckRecorder implements RdmaEndpointHandler {

    /** One recorded work completion (copied: the provider's object is a reused flyweight). */
    public record Completion(long wrId, WorkRequestType type, CompletionStatus status, int byteLength,
            boolean invalidated, int token) {
    }

    private final Object signal;
    private final boolean reentrantAllowed;
    private final List<String> events = new ArrayList<>();
    private final List<Completion> completions = new ArrayList<>();
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

    TckRecorder(Object signal, boolean reentrantAllowed) {
        this.signal = signal;
        this.reentrantAllowed = reentrantAllowed;
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
        } finally {
            leave();
        }
    }

    @Override
    public void onCompletion(WorkCompletion wc) {
        enter();
        try {
            synchronized (this) {
                completions.add(new Completion(wc.wrId(), wc.type(), wc.status(), wc.byteLength(),
                        wc.hasInvalidatedToken(), wc.invalidatedToken()));
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

    public int callbacksAfterDisconnect() {
        return callbacksAfterDisconnect;
    }
}
