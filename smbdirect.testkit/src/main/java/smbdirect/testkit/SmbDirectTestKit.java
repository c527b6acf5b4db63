package smbdirect.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import smbdirect.api.CloseReason;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.standalone.CallbackFailure;
import smbdirect.standalone.StandaloneTransport;

/**
 * A test bed: one {@link DeliveryMode#DETERMINISTIC} mock fabric, one {@link VirtualClock} over it,
 * transports built on the fabric's devices with that clock, and {@link ScriptedPeer}s. Nothing runs
 * by itself: {@link #settle()} delivers what is in flight, {@link #advance(Duration)} moves time.
 *
 * <pre>{@code
 * try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
 *     StandaloneTransport server = kit.transport("server", Map.of("keepaliveIntervalSeconds", 10));
 *     SmbDirectListener l = server.listen(kit.address("server"), c -> handler);
 *     ScriptedPeer client = kit.peer().connect(l.localAddress());
 *     kit.settle();                          // negotiated
 *     kit.advance(Duration.ofSeconds(10));   // the transport's keepalive, answered by the peer
 * }
 * }</pre>
 *
 * <p><b>A handler that throws fails the test.</b> When a callback of the upper layer on one of the
 * kit's transports throws (an assertion in {@code ConnectionHandler.onMessage}, a bug in a send
 * completion, an accept handler, a listener event handler; any {@link Throwable}), the transport
 * closes that connection with {@link CloseReason.Kind#HANDLER_FAILED} as it always does, and the
 * next {@link #settle()}, {@link #advance(Duration)} (or the clock's own) or {@link #close()} throws
 * an {@link AssertionError} naming the callback and the connection, with the handler's exception as
 * its cause; further failures are attached as suppressed. A test about that very behaviour calls
 * {@link #tolerateCallbackFailures()} and reads {@link #callbackFailures()}.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
public final class SmbDirectTestKit implements AutoCloseable {

    private final MockFabric fabric;
    private final VirtualClock clock;
    private final List<StandaloneTransport> transports = new ArrayList<>();
    private final List<ScriptedPeer> peers = new ArrayList<>();
    private final List<CallbackFailure> callbackFailures = new CopyOnWriteArrayList<>();
    /** Failures not yet thrown at the test (the first goes up as the cause, the others suppressed). */
    private final List<CallbackFailure> unreported = new CopyOnWriteArrayList<>();
    private volatile boolean tolerateCallbackFailures;
    private final BooleanSupplier failureCheck = () -> {
        rethrowCallbackFailures();
        return false;
    };

    private SmbDirectTestKit(String name) {
        fabric = MockFabric.builder().name(name).mode(DeliveryMode.DETERMINISTIC).build();
        clock = new VirtualClock(fabric);
        clock.addParticipant(failureCheck);
    }

    /** A new test bed with its own fabric. */
    public static SmbDirectTestKit create() {
        return new SmbDirectTestKit("testkit");
    }

    /** A new test bed whose fabric is named {@code name} (seen in messages). */
    public static SmbDirectTestKit create(String name) {
        return new SmbDirectTestKit(name);
    }

    /** The fabric (for fault injection on devices and endpoints). */
    public MockFabric fabric() {
        return fabric;
    }

    /** The clock. */
    public VirtualClock clock() {
        return clock;
    }

    /** The device named {@code name}, created on first use. */
    public MockProvider device(String name) {
        for (MockProvider p : fabric.providers()) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return fabric.provider(name);
    }

    /** An address on device {@code name} with port 0 (a listener picks a free port). */
    public java.net.InetSocketAddress address(String device) {
        return new java.net.InetSocketAddress(device(device).address(), 0);
    }

    /**
     * A transport on device {@code device} with {@code settings} (attributes of the
     * {@code smbdirect.transport} configuration) in this kit's virtual time; shut down by {@link #close()}.
     */
    public StandaloneTransport transport(String device, Map<String, ?> settings) {
        StandaloneTransport t = StandaloneTransport.builder(device(device)).settings(settings).scheduler(clock)
                .callbackFailures(this::callbackFailed).build();
        transports.add(t);
        return t;
    }

    /**
     * From now on a callback of the upper layer that throws does not fail the test: the transport
     * still closes its connection ({@link CloseReason.Kind#HANDLER_FAILED}), and the failure is only
     * kept in {@link #callbackFailures()}. For tests of that behaviour.
     *
     * @since 1.1
     */
    public SmbDirectTestKit tolerateCallbackFailures() {
        tolerateCallbackFailures = true;
        unreported.clear();
        return this;
    }

    /**
     * Every callback of the upper layer that threw on this kit's transports, oldest first.
     *
     * @since 1.1
     */
    public List<CallbackFailure> callbackFailures() {
        return List.copyOf(callbackFailures);
    }

    private void callbackFailed(CallbackFailure failure) {
        callbackFailures.add(failure);
        if (!tolerateCallbackFailures) {
            unreported.add(failure);
        }
    }

    /** Throws the callback failures not yet reported, as one AssertionError (see the class comment). */
    private void rethrowCallbackFailures() {
        if (unreported.isEmpty()) {
            return;
        }
        List<CallbackFailure> failures = List.copyOf(unreported);
        unreported.removeAll(failures);
        CallbackFailure first = failures.get(0);
        AssertionError e = new AssertionError("a handler of the upper layer threw: " + first
                + " (the transport closed the connection with HANDLER_FAILED)", first.failure());
        for (CallbackFailure f : failures.subList(1, failures.size())) {
            e.addSuppressed(f.failure());
        }
        throw e;
    }

    /** A scripted peer on a device of its own; configure it, then connect or listen. */
    public ScriptedPeer peer() {
        ScriptedPeer p = new ScriptedPeer(fabric.rawPeer(), clock);
        peers.add(p);
        return p;
    }

    /** Delivers everything in flight, lets peers answer, until nothing moves; time stands still. */
    public void settle() {
        clock.settle();
    }

    /** Moves virtual time forward, firing timers at their due times and settling after each. */
    public void advance(Duration d) {
        clock.advance(d);
    }

    /**
     * Shuts the transports down (reason SHUTDOWN), lets the disconnects settle, closes the peers and
     * the fabric; then throws the callback failures not yet reported (see the class comment).
     */
    @Override
    public void close() {
        clock.removeParticipant(failureCheck);
        for (StandaloneTransport t : transports) {
            t.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test kit closed"));
        }
        clock.settle();
        for (ScriptedPeer p : peers) {
            p.close();
        }
        clock.settle();
        fabric.close();
        rethrowCallbackFailures();
    }
}
