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
 * Bulk one way: upper-layer messages of {@code messageSize} bytes from client to server, with
 * {@code sendSize} as MaxSendSize (and, at 8192, as MaxReceiveSize of both sides). One operation is
 * one upper-layer message; bytes/s = ops/s x messageSize.
 *
 * <ul>
 * <li>{@code copyFloor}: the two copies the design makes of every byte, direct to direct, one
 * fragment at a time: source into a send slot, then the (received) slot into the reassembly
 * buffer.</li>
 * <li>{@code copyFloorOverFabric}: those two plus the third the mock fabric makes (its Send copies
 * the slot into the receiver's buffer): every copy the path over the mock makes.</li>
 * <li>{@code rawMock}: the fragments (MaxSendSize bytes each, the last shorter) posted as Sends
 * through the SPI with no protocol, receives reposted at once; the mock's copy stands for the
 * NIC's DMA.</li>
 * <li>{@code engine}: {@link smbdirect.api.SmbDirectConnection#send} with up to {@link #DEPTH}
 * messages outstanding, counted when the server's handler has the reassembled message.</li>
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BulkBench {

    /** Upper-layer messages outstanding in the engine benchmark. */
    static final int DEPTH = 8;
    static final int HEADER = 24;
    static final int SEND_SLOTS = 255;

    /** The message and fragment sizes. */
    @State(Scope.Benchmark)
    public static class Shape {
        @Param({"65536", "1048576"})
        public int messageSize;
        @Param({"1364", "8192"})
        public int sendSize;

        int payload() {
            return sendSize - HEADER;
        }

        int fragments() {
            return (messageSize + payload() - 1) / payload();
        }
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
        ByteBuffer receives;
        ByteBuffer reassembly;
        int slot;

        @Setup
        public void setUp(Shape shape) {
            source = Buffers.pattern(shape.messageSize);
            slots = ByteBuffer.allocateDirect(SEND_SLOTS * shape.sendSize);
            receives = ByteBuffer.allocateDirect(SEND_SLOTS * shape.sendSize);
            reassembly = ByteBuffer.allocateDirect(shape.messageSize);
        }
    }

    /** Two raw endpoints. */
    @State(Scope.Benchmark)
    public static class Raw {
        RawPair pair;
        int[] lengths;
        long sent;
        final Spin spin = new Spin();

        @Setup
        public void setUp(Shape shape, Delivery delivery) throws Exception {
            pair = new RawPair(delivery.mode, shape.sendSize, SEND_SLOTS, shape.sendSize, 0);
            lengths = new int[shape.fragments()];
            int left = shape.messageSize;
            for (int i = 0; i < lengths.length; i++) {
                int payload = Math.min(left, shape.payload());
                lengths[i] = HEADER + payload;
                left -= payload;
            }
        }

        @TearDown
        public void tearDown() {
            pair.close();
        }
    }

    /** Two engines. */
    @State(Scope.Benchmark)
    public static class Engine {
        EnginePair pair;
        Receiver server;
        Receiver client;
        ByteBuffer message;
        long sent;
        final Spin spin = new Spin();

        @Setup
        public void setUp(Shape shape, Delivery delivery) throws Exception {
            if (shape.sendSize > 8192) {
                throw new IllegalArgumentException("sendSize above the default MaxReceiveSize 8192");
            }
            Map<String, Object> settings = Map.of("maxSendSize", shape.sendSize,
                    "maxReceiveSize", Math.max(8192, shape.sendSize));
            server = new Receiver(null);
            client = new Receiver(null);
            pair = EnginePair.overMock(delivery.mode, settings, server, client);
            message = Buffers.pattern(shape.messageSize);
        }

        @TearDown
        public void tearDown() throws Exception {
            pair.close();
        }
    }

    @Benchmark
    public int copyFloor(Shape shape, Floor f) {
        int payload = shape.payload();
        int size = shape.messageSize;
        int stride = shape.sendSize;
        for (int at = 0; at < size; at += payload) {
            int n = Math.min(payload, size - at);
            int base = f.slot * stride + HEADER;
            f.slots.put(base, f.source, at, n);       // into the registered send slot
            f.reassembly.put(at, f.slots, base, n);   // from the receive slot into the reassembly buffer
            f.slot = f.slot + 1 == SEND_SLOTS ? 0 : f.slot + 1;
        }
        return f.slot;
    }

    /**
     * The copies a message costs over the mock fabric: the two of {@link #copyFloor} plus the
     * fabric's own (the mock's Send copies the slot into the peer's receive buffer, where a NIC would
     * DMA without the CPU).
     */
    @Benchmark
    public int copyFloorOverFabric(Shape shape, Floor f) {
        int payload = shape.payload();
        int size = shape.messageSize;
        int stride = shape.sendSize;
        for (int at = 0; at < size; at += payload) {
            int n = Math.min(payload, size - at);
            int base = f.slot * stride;
            f.slots.put(base + HEADER, f.source, at, n);              // into the registered send slot
            f.receives.put(base, f.slots, base, HEADER + n);          // the fabric: slot to receive buffer
            f.reassembly.put(at, f.receives, base + HEADER, n);       // into the reassembly buffer
            f.slot = f.slot + 1 == SEND_SLOTS ? 0 : f.slot + 1;
        }
        return f.slot;
    }

    @Benchmark
    public long rawMock(Raw r) {
        EchoPair.Side client = r.pair.client;
        EchoPair.Side server = r.pair.server;
        for (int length : r.lengths) {
            long s = r.sent;
            while (s - server.received() >= SEND_SLOTS || s - client.sendsCompleted() >= SEND_SLOTS) {
                r.spin.idle("raw receives");
            }
            r.spin.reset();
            client.send(0, length);
            r.sent = s + 1;
        }
        server.checkHealthy();
        return r.sent;
    }

    @Benchmark
    public long engine(Engine e) {
        while (e.sent - e.server.messages >= DEPTH) {
            e.spin.idle("bulk messages");
        }
        e.spin.reset();
        e.client.checkHealthy();
        e.pair.client.send(e.message, e.client);
        return ++e.sent;
    }
}
