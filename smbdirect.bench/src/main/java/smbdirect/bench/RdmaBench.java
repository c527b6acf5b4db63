package smbdirect.bench;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
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

import smbdirect.api.BufferDescriptor;
import smbdirect.api.RdmaCompletionHandler;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.mock.DeliveryMode;

/**
 * RDMA Write and Read of {@code size} bytes through
 * {@link smbdirect.api.SmbDirectConnection#rdmaWrite} / {@code rdmaRead}: the client's local
 * registration (access LOCAL_ONLY) against the server's registration (READ_WRITE), whose descriptors
 * the server would have sent in an upper-layer message. One operation = one transfer; with
 * {@code depth} 1 each is issued and waited for (latency bound), with {@code depth} 8 up to 8 are
 * outstanding, as an SMB server keeps several reads and writes of its clients in flight (throughput;
 * an operation is counted when issued, after the oldest beyond the depth completed). Floors:
 * {@code memcpy} of the same size direct to direct, and {@code rawMockWrite} /
 * {@code rawMockRead}: the same transfer posted through the provider SPI with no protocol on top
 * (the mock's RDMA is a checked memcpy plus a completion).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RdmaBench {

    /** The transfer size. */
    @State(Scope.Benchmark)
    public static class Size {
        @Param({"65536", "1048576"})
        public int size;
    }

    /** The mock's completion mode. */
    @State(Scope.Benchmark)
    public static class Delivery {
        @Param({"INLINE", "THREADED"})
        public DeliveryMode mode;
    }

    /** Transfers outstanding at once. */
    @State(Scope.Benchmark)
    public static class Depth {
        @Param({"1", "8"})
        public int depth;
    }

    /** Buffers of the floor. */
    @State(Scope.Benchmark)
    public static class Floor {
        ByteBuffer source;
        ByteBuffer target;

        @Setup
        public void setUp(Size size) {
            source = Buffers.pattern(size.size);
            target = ByteBuffer.allocateDirect(size.size);
        }
    }

    /** Two engines with one registration each. */
    @State(Scope.Benchmark)
    public static class Engine implements RdmaCompletionHandler {
        EnginePair pair;
        RegisteredBuffer local;
        RegisteredBuffer remote;
        List<BufferDescriptor> descriptors;
        volatile long completed;
        volatile long lastBytes;
        int expected;
        volatile Throwable failure;
        long issued;
        int depth;
        final Spin spin = new Spin();

        @Setup
        public void setUp(Size size, Delivery delivery, Depth depth) throws Exception {
            this.depth = depth.depth;
            pair = EnginePair.overMock(delivery.mode, Map.of(), new Receiver(null), new Receiver(null));
            remote = pair.server.register(Buffers.pattern(size.size), RemoteAccess.READ_WRITE).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            local = pair.client.register(ByteBuffer.allocateDirect(size.size), RemoteAccess.LOCAL_ONLY)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            descriptors = remote.descriptors();
            expected = size.size;
            // the transfers really move the bytes: a read fills the zeroed local buffer with the pattern
            pair.client.rdmaRead(local, 0, size.size, descriptors, 0, this);
            issued++;
            awaitBelow(1);
            if (local.buffer().mismatch(remote.buffer()) != -1) {
                throw new IllegalStateException("RDMA Read did not copy the " + size.size + " bytes");
            }
        }

        @TearDown
        public void tearDown() throws Exception {
            awaitBelow(1);
            local.deregister().toCompletableFuture().get(10, TimeUnit.SECONDS);
            remote.deregister().toCompletableFuture().get(10, TimeUnit.SECONDS);
            pair.close();
        }

        @Override
        public void rdmaComplete(long bytes, Throwable failure) {
            if (failure != null && this.failure == null) {
                this.failure = failure;
            }
            lastBytes = bytes;
            completed = completed + 1; // single writer: the connection's serial context
        }

        /** Waits until fewer than {@code limit} transfers are outstanding; checks each outcome. */
        void awaitBelow(int limit) {
            while (issued - completed >= limit) {
                spin.idle("RDMA completion");
            }
            spin.reset();
            Throwable f = failure;
            if (f != null) {
                throw new IllegalStateException("RDMA failed", f);
            }
            if (completed > 0 && lastBytes != expected) {
                throw new IllegalStateException("RDMA moved " + lastBytes + " bytes, not " + expected);
            }
        }

        /** Room for one more transfer: waits for the oldest beyond the depth. */
        long next() {
            awaitBelow(depth);
            return ++issued;
        }
    }

    /** Two raw endpoints: the client's local region and the server's exposed one. */
    @State(Scope.Benchmark)
    public static class Raw {
        RawPair pair;
        MemoryRegion local;
        MemoryRegion remote;
        long issued;
        long wrId;
        int depth;
        int size;
        final Spin spin = new Spin();

        @Setup
        public void setUp(Size size, Delivery delivery, Depth depth) throws Exception {
            this.depth = depth.depth;
            this.size = size.size;
            pair = new RawPair(delivery.mode, 1364, 16, 64, 0); // a send queue of 17: room for the depth
            remote = pair.server.endpoint().register(Buffers.pattern(size.size),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE));
            local = pair.client.endpoint().register(ByteBuffer.allocateDirect(size.size),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE));
        }

        @TearDown
        public void tearDown() {
            awaitBelow(1);
            pair.close();
        }

        /** Waits until fewer than {@code limit} transfers are outstanding; checks the bytes moved. */
        void awaitBelow(int limit) {
            while (issued - pair.client.rdmaCompleted() >= limit) {
                pair.client.checkHealthy();
                spin.idle("raw RDMA completion");
            }
            spin.reset();
            if (pair.client.rdmaCompleted() > 0 && pair.client.rdmaLastBytes() != size) {
                throw new IllegalStateException("raw RDMA moved " + pair.client.rdmaLastBytes() + " bytes, not " + size);
            }
        }

        /** Room for one more transfer: waits for the oldest beyond the depth. */
        long next() {
            awaitBelow(depth);
            return ++issued;
        }
    }

    @Benchmark
    public long rawMockWrite(Size size, Raw r) throws RdmaException {
        long n = r.next();
        r.pair.client.endpoint().postRdmaWrite(r.local, 0, size.size, r.remote.address(), r.remote.token(), ++r.wrId);
        return n;
    }

    @Benchmark
    public long rawMockRead(Size size, Raw r) throws RdmaException {
        long n = r.next();
        r.pair.client.endpoint().postRdmaRead(r.local, 0, size.size, r.remote.address(), r.remote.token(), ++r.wrId);
        return n;
    }

    @Benchmark
    public ByteBuffer memcpy(Size size, Floor f) {
        return f.target.put(0, f.source, 0, size.size);
    }

    @Benchmark
    public long rdmaWrite(Size size, Engine e) {
        long n = e.next();
        e.pair.client.rdmaWrite(e.local, 0, size.size, e.descriptors, 0, e);
        return n;
    }

    @Benchmark
    public long rdmaRead(Size size, Engine e) {
        long n = e.next();
        e.pair.client.rdmaRead(e.local, 0, size.size, e.descriptors, 0, e);
        return n;
    }
}
