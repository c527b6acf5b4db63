package smbdirect.bench;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.tck.EchoPair;

/**
 * Small messages of {@code messageSize} bytes at default settings.
 *
 * <ul>
 * <li>One way (messages/s) with up to {@link #DEPTH} messages outstanding: {@code copyFloor} (the
 * one copy the design makes: into a send slot; the receive side is zero copy), {@code rawOneWay}
 * (the same bytes posted as Sends through the SPI, receives reposted at once) and
 * {@code engineOneWay} ({@link smbdirect.api.SmbDirectConnection#send}).</li>
 * <li>Ping-pong latency (SampleTime): {@code rawPingPong} (the server's receive handler posts a
 * Send of the same size back) and {@code enginePingPong} (the server's message handler sends a
 * message of the same size back).</li>
 * </ul>
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SmallBench {

    /** Messages outstanding one way. */
    static final int DEPTH = 32;
    static final int SLOTS = 64;
    static final int RECEIVE_SIZE = 1364;

    /** The message size. */
    @State(Scope.Benchmark)
    public static class Size {
        @Param({"64", "1024"})
        public int messageSize;
    }

    /** The mock's completion mode. */
    @State(Scope.Benchmark)
    public static class Delivery {
        @Param({"INLINE", "THREADED"})
        public DeliveryMode mode;
    }

    /** Buffers of the copy floor. */
    @State(Scope.Benchmark)
    public static class Floor {
        ByteBuffer source;
        ByteBuffer slots;
        int slot;

        @Setup
        public void setUp(Size size) {
            source = Buffers.pattern(size.messageSize);
            slots = ByteBuffer.allocateDirect(SLOTS * RECEIVE_SIZE);
        }
    }

    /** Two raw endpoints, one way. */
    @State(Scope.Benchmark)
    public static class Raw {
        RawPair pair;
        long sent;
        final Spin spin = new Spin();

        @Setup
        public void setUp(Size size, Delivery delivery) throws Exception {
            pair = new RawPair(delivery.mode, RECEIVE_SIZE, SLOTS, size.messageSize, 0);
        }

        @TearDown
        public void tearDown() {
            pair.close();
        }
    }

    /** Two raw endpoints, the server echoing. */
    @State(Scope.Benchmark)
    public static class RawEcho {
        RawPair pair;
        long sent;
        final Spin spin = new Spin();

        @Setup
        public void setUp(Size size, Delivery delivery) throws Exception {
            pair = new RawPair(delivery.mode, RECEIVE_SIZE, SLOTS, size.messageSize, size.messageSize);
        }

        @TearDown
        public void tearDown() {
            pair.close();
        }
    }

    /** Two engines, one way. */
    @State(Scope.Benchmark)
    public static class Engine {
        EnginePair pair;
        Receiver server;
        Receiver client;
        ByteBuffer message;
        long sent;
        final Spin spin = new Spin();

        @Setup
        public void setUp(Size size, Delivery delivery) throws Exception {
            server = new Receiver(null);
            client = new Receiver(null);
            pair = EnginePair.overMock(delivery.mode, Map.of(), server, client);
            message = Buffers.pattern(size.messageSize);
        }

        @TearDown
        public void tearDown() throws Exception {
            pair.close();
        }
    }

    /** Two engines, the server echoing. */
    @State(Scope.Benchmark)
    public static class EngineEcho {
        EnginePair pair;
        Receiver server;
        Receiver client;
        ByteBuffer message;
        long sent;
        final Spin spin = new Spin();

        @Setup
        public void setUp(Size size, Delivery delivery) throws Exception {
            server = new Receiver(Buffers.pattern(size.messageSize));
            client = new Receiver(null);
            pair = EnginePair.overMock(delivery.mode, Map.of(), server, client);
            message = Buffers.pattern(size.messageSize);
        }

        @TearDown
        public void tearDown() throws Exception {
            pair.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    public int copyFloor(Size size, Floor f) {
        f.slots.put(f.slot * RECEIVE_SIZE + BulkBench.HEADER, f.source, 0, size.messageSize);
        f.slot = f.slot + 1 == SLOTS ? 0 : f.slot + 1;
        return f.slot;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    public long rawOneWay(Size size, Raw r) {
        EchoPair.Side client = r.pair.client;
        EchoPair.Side server = r.pair.server;
        long s = r.sent;
        while (s - server.received() >= DEPTH || s - client.sendsCompleted() >= DEPTH) {
            r.spin.idle("raw one way");
        }
        r.spin.reset();
        client.send(0, size.messageSize);
        server.checkHealthy();
        return r.sent = s + 1;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    public long engineOneWay(Engine e) {
        while (e.sent - e.server.messages >= DEPTH) {
            e.spin.idle("engine one way");
        }
        e.spin.reset();
        e.client.checkHealthy();
        e.pair.client.send(e.message, e.client);
        return ++e.sent;
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public long rawPingPong(Size size, RawEcho r) {
        long s = r.sent + 1;
        r.pair.client.send(0, size.messageSize);
        while (r.pair.client.received() < s) {
            r.spin.idle("raw pong");
        }
        r.spin.reset();
        r.pair.server.checkHealthy();
        return r.sent = s;
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public long enginePingPong(EngineEcho e) {
        long s = e.sent + 1;
        e.pair.client.send(e.message, e.client);
        while (e.client.messages < s) {
            e.spin.idle("engine pong");
        }
        e.spin.reset();
        e.server.checkHealthy();
        return e.sent = s;
    }
}
