package smbdirect.standalone;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.impl.config.TransportConfigurations;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.Scheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TimerScheduler;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.transport.ForwardingTransport;

/**
 * An {@link SmbDirectTransport} over one {@link RdmaProvider}, built without OSGi.
 *
 * <pre>{@code
 * StandaloneTransport transport = StandaloneTransport.builder(provider)
 *         .settings(Map.of("receiveCreditMax", 64, "keepaliveIntervalSeconds", 30))
 *         .build();
 * try {
 *     SmbDirectListener listener = transport.listen(new InetSocketAddress(0), connection -> handler); // throws SmbDirectException
 *     serve(listener);
 * } finally {
 *     transport.close();   // closes listeners and connections (reason SHUTDOWN), stops its timer thread
 * }
 * }</pre>
 *
 * <p>Settings: the attributes of the {@code smbdirect.transport} configuration of the OSGi
 * component, with its names, defaults and validation ({@code receiveCreditMax},
 * {@code maxReceiveSize}, {@code keepaliveIntervalSeconds}, {@code creditGrantTimeoutMillis},
 * {@code receiveBufferBudgetMB}, ...); a value is a number or text that parses as one. A bad value is
 * refused with an {@link IllegalArgumentException} naming the attribute and the value: by
 * {@link Builder#build()} (nothing is built) and by {@link #updateSettings(Map)} (the settings in
 * force stay).
 *
 * <p>Time: by default the wall clock and one daemon timer thread named {@code smbdirect-timer},
 * owned by the transport and stopped by {@link #close()}. {@link Builder#timerExecutor} uses an
 * executor of the caller's instead (its lifecycle stays with the caller) and
 * {@link Builder#scheduler} any clock, a virtual one in tests. The transport has no other thread:
 * work runs on the threads that call in and on the provider's completion threads.
 *
 * <p>A callback of the upper layer that throws ends its connection with reason
 * {@link CloseReason.Kind#HANDLER_FAILED} (see {@link ConnectionHandler}) and is logged at ERROR (printed
 * on standard error when SLF4J has no binding); {@link Builder#callbackFailures} is told of each such
 * failure as well (the test kit fails the running test with it; a test without the kit should too).
 *
 * <p>In a container with bean lifecycles (Spring, CDI, Guice) create it in the bean's
 * initialisation method and call {@link #close()} from its destroy method; {@code close} is also
 * what Spring infers as the destroy method of a {@code @Bean}.
 *
 * <p>Thread-safe.
 */
public final class StandaloneTransport extends ForwardingTransport implements SmbDirectTransport, AutoCloseable {

    /** How long {@link #close()} waits for connections to be released. */
    public static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(StandaloneTransport.class);

    private final SmbDirectEngine engine;
    private final TimerScheduler ownedTimer;
    private final Object lock = new Object();
    private Map<String, Object> properties;
    private CompletionStage<Void> shutdown;

    private StandaloneTransport(SmbDirectEngine engine, TimerScheduler ownedTimer,
            Map<String, Object> properties) {
        super(engine);
        this.engine = engine;
        this.ownedTimer = ownedTimer;
        this.properties = properties;
    }

    /** A builder of a transport over {@code provider}, with the configuration's defaults. */
    public static Builder builder(RdmaProvider provider) {
        return new Builder(provider);
    }

    /**
     * This transport when {@code providerName} is its provider's name; otherwise a view whose
     * {@code listen} throws and whose {@code connect} fails with
     * {@link smbdirect.api.SmbDirectException.Kind#NO_PROVIDER}: a standalone transport runs over
     * one provider.
     */
    @Override
    public SmbDirectTransport onProvider(String providerName) {
        return providerName.equals(engine.provider().name()) ? this : engine.onProvider(providerName);
    }

    /** The RDMA provider this transport runs over. */
    public RdmaProvider provider() {
        return engine.provider();
    }

    /**
     * Changes settings: {@code changes} are merged over the properties in force and the result is
     * validated as a whole. New connections negotiate with the new values; live connections keep
     * their negotiated sizes and credits and apply new timer values at once.
     *
     * @throws IllegalArgumentException naming the refused attribute and value; the settings in force stay
     */
    public void updateSettings(Map<String, ?> changes) {
        synchronized (lock) {
            Map<String, Object> merged = new LinkedHashMap<>(properties);
            merged.putAll(changes);
            TransportSettings s = TransportConfigurations.fromProperties(merged);
            engine.updateSettings(s);
            properties = merged;
            LOG.info("Settings applied: {}", s);
        }
    }

    /** The settings properties in force (the ones given; absent attributes have their defaults). */
    public Map<String, Object> settings() {
        synchronized (lock) {
            return Map.copyOf(properties);
        }
    }

    /**
     * Closes every listener and connection with {@code reason} (connections tell their upper layer
     * through {@code ConnectionHandler.onDisconnected}); later operations fail with it. Idempotent:
     * a second call returns the first call's stage. Does not stop the timer thread; {@link #close()} does.
     *
     * @return completes when every connection is released (with a virtual-time scheduler, once the
     *     caller let the provider deliver the disconnects)
     */
    public CompletionStage<Void> shutdown(CloseReason reason) {
        Objects.requireNonNull(reason, "reason");
        synchronized (lock) {
            if (shutdown == null) {
                shutdown = engine.shutdown(reason);
            }
            return shutdown;
        }
    }

    /**
     * Drains, then closes with {@code reason}: every listener closes and new connections are refused
     * at once; each established connection goes on finishing what is in flight (messages handed over
     * and not yet acknowledged, RDMA Reads and Writes, a message being received or delivered; its
     * upper layer's new sends still go) and closes with {@code reason} as soon as it has nothing in
     * flight, or when the settings' {@code drainTimeoutSeconds} runs out (0: at once, as
     * {@link #shutdown}). Later operations fail with {@code reason}. Idempotent with {@link #shutdown}:
     * whichever is called first decides, a later call returns its stage.
     *
     * @return completes when every connection is released
     * @since 1.2
     */
    public CompletionStage<Void> drain(CloseReason reason) {
        Objects.requireNonNull(reason, "reason");
        synchronized (lock) {
            if (shutdown == null) {
                shutdown = engine.drain(reason, engine.settings().drainTimeout());
            }
            return shutdown;
        }
    }

    /**
     * {@link #shutdown} with reason {@link CloseReason.Kind#SHUTDOWN}; when the transport owns its
     * timer thread, waits up to {@link #CLOSE_WAIT} for the connections to be released and stops the
     * thread. With a scheduler or executor of the caller's it does not wait (with a virtual clock
     * nothing would move while it waited): use {@link #shutdown} and wait for the stage.
     * Idempotent.
     */
    @Override
    public void close() {
        CompletionStage<Void> done = shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "transport closed"));
        if (ownedTimer == null) {
            return;
        }
        try {
            done.toCompletableFuture().get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("SMB Direct transport on {} did not shut down cleanly within {}", engine.provider().name(),
                    CLOSE_WAIT, e);
        } finally {
            ownedTimer.close();
        }
    }

    @Override
    public String toString() {
        return "StandaloneTransport[" + engine.provider().name() + "]";
    }

    /** Builds a {@link StandaloneTransport}. Not thread-safe. */
    public static final class Builder {
        private final RdmaProvider provider;
        private final Map<String, Object> properties = new LinkedHashMap<>();
        private TransportScheduler scheduler;
        private ScheduledExecutorService timerExecutor;
        private Consumer<CallbackFailure> callbackFailures;

        private Builder(RdmaProvider provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
        }

        /** Sets the configuration attributes in {@code values} (see the class comment). */
        public Builder settings(Map<String, ?> values) {
            properties.putAll(values);
            return this;
        }

        /** Sets one configuration attribute, e.g. {@code setting("receiveCreditMax", 64)}. */
        public Builder setting(String attribute, Object value) {
            properties.put(Objects.requireNonNull(attribute, "attribute"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Time and timers from {@code value} (a virtual clock in tests) instead of a thread of the transport's. */
        public Builder scheduler(TransportScheduler value) {
            scheduler = Objects.requireNonNull(value, "scheduler");
            timerExecutor = null;
            return this;
        }

        /**
         * Timers on {@code value}, the caller's executor (its lifecycle stays with the caller), with the
         * wall clock, instead of a thread of the transport's.
         */
        public Builder timerExecutor(ScheduledExecutorService value) {
            timerExecutor = Objects.requireNonNull(value, "timerExecutor");
            scheduler = null;
            return this;
        }

        /**
         * Tells {@code handler} of every callback of the upper layer that threw (a connection's
         * handler or completion, an accept handler, a listener event handler), after the transport
         * logged it and closed the connection concerned with
         * {@link CloseReason.Kind#HANDLER_FAILED}. Called on the thread of the callback; must not
         * block. A test should give one that fails it (collect the failures, assert there are none),
         * as the test kit does: the transport goes on after a handler threw, so nothing else fails the
         * test.
         *
         * <p>Without it each failure is logged at ERROR with its stack trace; when SLF4J has no binding
         * on the class path (the log would go nowhere) it is printed, with its stack trace, on standard
         * error instead, once. A library does not print where its user chose a logger; a bug in the
         * user's handler is not left without a trace either.
         *
         * @since 1.1
         */
        public Builder callbackFailures(Consumer<CallbackFailure> handler) {
            callbackFailures = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Validates the settings and builds the transport.
         *
         * @throws IllegalArgumentException naming the first refused attribute and its value
         */
        public StandaloneTransport build() {
            TransportSettings settings = TransportConfigurations.fromProperties(properties);
            TimerScheduler owned = null;
            Scheduler time;
            if (scheduler != null) {
                TransportScheduler s = scheduler;
                time = new Scheduler() {
                    @Override
                    public long nanoTime() {
                        return s.nanoTime();
                    }

                    @Override
                    public Cancellable schedule(Runnable task, long delayNanos) {
                        TransportScheduler.Cancellable c = s.schedule(task, delayNanos);
                        return c::cancel;
                    }
                };
            } else if (timerExecutor != null) {
                time = new ExecutorScheduler(timerExecutor);
            } else {
                owned = new TimerScheduler();
                time = owned;
            }
            SmbDirectEngine engine = new SmbDirectEngine(provider, settings, time);
            Consumer<CallbackFailure> failures = callbackFailures != null ? callbackFailures
                    : UnloggedCallbackFailures.forThisClassPath();
            if (failures != null) {
                engine.setCallbackFailureHandler(
                        (callback, connectionId, failure) -> failures.accept(new CallbackFailure(callback, connectionId,
                                failure)));
            }
            StandaloneTransport t = new StandaloneTransport(engine, owned, new LinkedHashMap<>(properties));
            LOG.info("SMB Direct transport on {} ({}) built: {}", provider.name(), provider.transportType(), settings);
            return t;
        }
    }
}
