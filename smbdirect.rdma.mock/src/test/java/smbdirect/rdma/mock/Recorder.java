package smbdirect.rdma.mock;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/** Records every callback of one endpoint and checks the callback rules as it goes. */
final class Recorder implements RdmaEndpointHandler {

    record Completion(long wrId, WorkRequestType type, CompletionStatus status, int byteLength, boolean invalidated,
            int token, String thread) {
    }

    final List<String> events = new ArrayList<>();
    final List<Completion> completions = new ArrayList<>();
    final CountDownLatch establishedLatch = new CountDownLatch(1);
    final CountDownLatch disconnectedLatch = new CountDownLatch(1);
    final AtomicInteger inCallback = new AtomicInteger();
    volatile boolean concurrentCallbacks;
    /** False: completions are only passed to the hook, not recorded (allocation-free). */
    volatile boolean recording = true;
    volatile int callbacksAfterDisconnect;
    volatile byte[] establishedData;
    volatile DisconnectCause cause;
    volatile String detail;
    volatile byte[] disconnectData;
    volatile Consumer<WorkCompletion> onCompletion = wc -> { };
    volatile Runnable onEstablishedHook = () -> { };

    private void enter() {
        if (inCallback.incrementAndGet() > 1 && !reentrantAllowed) {
            concurrentCallbacks = true;
        }
        if (cause != null) {
            callbacksAfterDisconnect++;
        }
    }

    private void leave() {
        inCallback.decrementAndGet();
    }

    /** INLINE re-entry on the same thread is allowed; tests of other modes keep this false. */
    volatile boolean reentrantAllowed;

    @Override
    public void onEstablished(ByteBuffer peerPrivateData) {
        enter();
        try {
            byte[] data = new byte[peerPrivateData.remaining()];
            peerPrivateData.duplicate().get(data);
            establishedData = data;
            synchronized (this) {
                events.add("established");
            }
            establishedLatch.countDown();
            onEstablishedHook.run();
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
            byte[] data = new byte[privateData.remaining()];
            privateData.duplicate().get(data);
            disconnectData = data;
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

    synchronized List<Completion> completions() {
        return new ArrayList<>(completions);
    }

    synchronized List<Completion> completions(WorkRequestType type) {
        return completions.stream().filter(c -> c.type() == type).toList();
    }

    synchronized List<String> events() {
        return new ArrayList<>(events);
    }

    synchronized String lastEvent() {
        return events.isEmpty() ? null : events.get(events.size() - 1);
    }
}
