package smbdirect.dist;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Turns SIGTERM and SIGINT into an orderly stop of the runtime: instead of the JVM's default
 * (exit status 143/130 while the framework is torn down by shutdown hooks) the signal releases
 * {@link #await()}, the launcher's main thread returns 0, and the launcher stops the framework.
 *
 * <p>Thread-safe. The previous handlers are restored by {@link #close()}.
 */
final class ShutdownSignal implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ShutdownSignal.class);
    private static final String[] SIGNALS = {"TERM", "INT"};

    /** Completed with the first cause. */
    private final CompletableFuture<String> released = new CompletableFuture<>();
    private final SignalHandler[] previous = new SignalHandler[SIGNALS.length];

    ShutdownSignal() {
        for (int i = 0; i < SIGNALS.length; i++) {
            String name = SIGNALS[i];
            try {
                previous[i] = Signal.handle(new Signal(name), s -> release("SIG" + s.getName()));
            } catch (IllegalArgumentException e) {
                LOG.debug("signal {} cannot be handled here: {}", name, e.getMessage());
            }
        }
    }

    /** The exit status asked for with the first cause (0 unless {@link #release(String, int)} said otherwise). */
    private volatile int status;

    /** Releases {@link #await()}; the first cause wins. */
    void release(String why) {
        release(why, 0);
    }

    /** Releases {@link #await()} asking for exit status {@code exitStatus}; the first cause wins. */
    void release(String why, int exitStatus) {
        synchronized (released) {
            if (!released.isDone()) {
                status = exitStatus;
                released.complete(why);
            }
        }
    }

    /** The exit status the first cause asked for. */
    int status() {
        return status;
    }

    /** Completes with the cause when {@link #release} is called (from the signal's thread). */
    CompletionStage<String> released() {
        return released;
    }

    /** The cause once released, else null. */
    String cause() {
        return released.getNow(null);
    }

    /** Blocks until {@link #release} was called; returns the cause. */
    String await() throws InterruptedException {
        try {
            return released.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("never completed exceptionally", e);
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < SIGNALS.length; i++) {
            if (previous[i] != null) {
                try {
                    Signal.handle(new Signal(SIGNALS[i]), previous[i]);
                } catch (IllegalArgumentException e) {
                    LOG.debug("signal {} handler not restored: {}", SIGNALS[i], e.getMessage());
                }
            }
        }
    }
}
