package smbdirect.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import smbdirect.api.CloseReason;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
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
 * <p>Not thread-safe: one test thread drives it.
 */
public final class SmbDirectTestKit implements AutoCloseable {

    private final MockFabric fabric;
    private final VirtualClock clock;
    private final List<StandaloneTransport> transports = new ArrayList<>();
    private final List<ScriptedPeer> peers = new ArrayList<>();

    private SmbDirectTestKit(String name) {
        fabric = MockFabric.builder().name(name).mode(DeliveryMode.DETERMINISTIC).build();
        clock = new VirtualClock(fabric);
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
        StandaloneTransport t = StandaloneTransport.builder(device(device)).settings(settings).scheduler(clock).build();
        transports.add(t);
        return t;
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
     * the fabric.
     */
    @Override
    public void close() {
        for (StandaloneTransport t : transports) {
            t.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "test kit closed"));
        }
        clock.settle();
        for (ScriptedPeer p : peers) {
            p.close();
        }
        clock.settle();
        fabric.close();
    }
}
