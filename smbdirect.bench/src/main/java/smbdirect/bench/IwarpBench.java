package smbdirect.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * The software iWARP provider on loopback TCP against its floor, measured in the same run: plain
 * NIO TCP streaming of the same bytes between two sockets with the same options (TCP_NODELAY, the
 * system's socket buffers), one blocking writer and a reader thread draining into a direct buffer.
 * One operation moves {@code size} bytes:
 * <ul>
 * <li>{@code tcpFloor}: one {@code write} of {@code size} bytes, all taken by the socket (the
 * writer runs at the reader's pace once the socket buffers are full);</li>
 * <li>{@code providerSend} / {@code providerWrite}: one Send (untagged, into a receive posted
 * by the peer and reposted at once) or one RDMA Write (tagged, placed into the peer's
 * registration) of {@code size} bytes through the provider SPI, 4 to {@link #DEPTH} outstanding; a
 * Send is counted once received, a Write once its completion says TCP took the last FPDU (iWARP
 * has no acknowledgement);</li>
 * <li>{@code providerRead}: one RDMA Read of {@code size} bytes through the provider SPI from the
 * peer's registration into ours (a Read Request, then the peer's Read Response FPDUs), 4 to
 * {@link #DEPTH} outstanding, counted at its completion (the last Response placed);</li>
 * <li>{@code engineBulk}: one upper-layer message through {@link SmbDirectConnection#send}
 * (fragments of {@code sendSize}: 1364, the [MS-SMBD] default, or 8192), 4 to {@link #DEPTH}
 * outstanding, counted when the peer's handler has it reassembled;</li>
 * <li>{@code engineWrite} / {@code engineRead}: one {@link SmbDirectConnection#rdmaWrite} into,
 * or {@link SmbDirectConnection#rdmaRead} from, the peer's registered buffer of {@code size}
 * bytes, 4 to {@link #DEPTH} outstanding.</li>
 * </ul>
 * Provider parameters: {@code maxFpduSize} 0 (the default: FPDUs fill the connection's TCP MSS as
 * Linux siw's do, 65480 bytes on loopback), 1460 (fixed: one FPDU per Ethernet segment) and 65536,
 * MPA CRC32C on and off.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IwarpBench {

    /** Operations outstanding at once. */
    static final int DEPTH = 8;
    /**
     * How the benchmarks wait: once {@link #DEPTH} operations are outstanding, the benchmark thread
     * sleeps until half of them have completed and a completion handler wakes it
     * ({@link Spin#wokenBy}, parking at most this long per round), as the kernel wakes a writer
     * blocked on a full socket only once a good part of its buffer is free. A timed poll (20 µs
     * rounds) or a wake-up per completion instead runs the benchmark thread thousands of times a
     * second on the vCPUs the I/O threads need (docs/benchmarks/2026-11-26-iwarp-loopback.md has the counts).
     */
    static final long WAIT_PARK_NANOS = 1_000_000;
    /** Receives the Send benchmark keeps posted. */
    static final int RECEIVES = 16;

    /** The transfer size. */
    @State(Scope.Benchmark)
    public static class Size {
        @Param({"65536", "1048576"})
        public int size;
    }

    /** The provider's settings. */
    @State(Scope.Benchmark)
    public static class Wire {
        @Param({"0", "1460", "65536"})
        public int maxFpduSize;
        @Param({"true", "false"})
        public boolean crc;

        IwarpSettings settings() {
            return IwarpSettings.builder().listenAddresses("127.0.0.1").maxFpduSize(maxFpduSize).crc(crc).build();
        }
    }

    /** Two TCP sockets on loopback, a reader thread draining one. */
    @State(Scope.Benchmark)
    public static class Tcp {
        ServerSocketChannel server;
        SocketChannel writer;
        SocketChannel reader;
        Thread drain;
        ByteBuffer source;

        @Setup
        public void setUp(Size size) throws IOException {
            server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            writer = SocketChannel.open(server.getLocalAddress());
            reader = server.accept();
            writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            reader.setOption(StandardSocketOptions.TCP_NODELAY, true);
            source = Buffers.pattern(size.size);
            drain = new Thread(() -> {
                ByteBuffer sink = ByteBuffer.allocateDirect(1 << 20);
                try {
                    while (reader.read(sink) >= 0) {
                        sink.clear();
                    }
                } catch (IOException e) {
                    // closed at tear-down
                }
            }, "smbdirect-bench-tcp-reader");
            drain.setDaemon(true);
            drain.start();
        }

        @TearDown
        public void tearDown() throws Exception {
            writer.close();
            drain.join(10_000);
            reader.close();
            server.close();
        }
    }

    /** Two providers, one connection between two raw endpoints, registrations on both sides. */
    @State(Scope.Benchmark)
    public static class Raw {
        IwarpProvider clientProvider;
        IwarpProvider serverProvider;
        RdmaListener listener;
        RdmaEndpoint client;
        RdmaEndpoint server;
        MemoryRegion source;
        /** The client's sink of its RDMA Reads. */
        MemoryRegion sink;
        MemoryRegion target;
        MemoryRegion receives;
        int size;
        volatile long sendsCompleted;
        /** RDMA Writes or Reads completed (a run measures one of them). */
        volatile long rdmaCompleted;
        volatile long received;
        volatile String failure;
        long issued;
        final Spin spin = Spin.wokenBy(WAIT_PARK_NANOS);

        @Setup
        public void setUp(Size size, Wire wire) throws Exception {
            this.size = size.size;
            clientProvider = IwarpProvider.open("bench-client", wire.settings());
            serverProvider = IwarpProvider.open("bench-server", wire.settings());
            CompletableFuture<RdmaEndpoint> accepted = new CompletableFuture<>();
            listener = serverProvider.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
                @Override
                public void onConnectRequest(RdmaConnectRequest request) {
                    try {
                        RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(DEPTH + 1, RECEIVES + 1),
                                new ServerSide());
                        target = ep.register(ByteBuffer.allocateDirect(size.size),
                                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE, MemoryAccess.REMOTE_READ));
                        receives = ep.register(ByteBuffer.allocateDirect(RECEIVES * size.size),
                                EnumSet.of(MemoryAccess.LOCAL_WRITE));
                        for (int i = 0; i < RECEIVES; i++) {
                            ep.postReceive(receives, i * size.size, size.size, i);
                        }
                        server = ep;
                        ep.accept(new ConnectParameters(null, 8, 8));
                        accepted.complete(ep);
                    } catch (RdmaException e) {
                        accepted.completeExceptionally(e);
                    }
                }

                @Override
                public void onListenerFailed(DisconnectCause cause, String detail) {
                    failure = "listener failed: " + cause + " " + detail;
                }
            });
            CompletableFuture<Void> up = new CompletableFuture<>();
            client = clientProvider.createEndpoint(new EndpointSettings(DEPTH + 1, 1), new ClientSide(up));
            source = client.register(Buffers.pattern(size.size), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            sink = client.register(ByteBuffer.allocateDirect(size.size), EnumSet.of(MemoryAccess.LOCAL_WRITE));
            client.connect(listener.localAddress(), new ConnectParameters(null, 8, 8));
            accepted.get(10, TimeUnit.SECONDS);
            up.get(10, TimeUnit.SECONDS);
        }

        @TearDown
        public void tearDown() {
            client.close();
            listener.close();
            clientProvider.close();
            serverProvider.close();
        }

        void check() {
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
        }

        /** With {@link #DEPTH} RDMA operations of {@code issued} outstanding, sleeps until half completed. */
        void awaitRdmaRoom(long issued, String what) {
            if (issued - rdmaCompleted >= DEPTH) {
                long until = issued - DEPTH / 2;
                spin.until(until);
                while (rdmaCompleted < until) {
                    check();
                    spin.idle(what);
                }
                spin.reset();
            }
        }

        /** The server's side: reposts each receive at once and counts it. */
        final class ServerSide implements RdmaEndpointHandler {
            @Override
            public void onEstablished(ByteBuffer peerPrivateData) {
            }

            @Override
            public void onCompletion(WorkCompletion c) {
                if (c.status() != CompletionStatus.SUCCESS) {
                    failure = "server completion " + c;
                    return;
                }
                try {
                    int slot = (int) c.wrId();
                    server.postReceive(receives, slot * size, size, slot);
                } catch (RdmaException e) {
                    failure = "repost failed: " + e;
                }
                long n = received + 1;
                received = n; // single writer: the endpoint's I/O thread
                spin.wake(Math.min(n, sendsCompleted));
            }

            @Override
            public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            }
        }

        /** The client's side: counts Send and Write completions. */
        final class ClientSide implements RdmaEndpointHandler {
            private final CompletableFuture<Void> up;

            ClientSide(CompletableFuture<Void> up) {
                this.up = up;
            }

            @Override
            public void onEstablished(ByteBuffer peerPrivateData) {
                up.complete(null);
            }

            @Override
            public void onCompletion(WorkCompletion c) {
                if (c.status() != CompletionStatus.SUCCESS) {
                    failure = "client completion " + c;
                }
                if (c.type() == WorkRequestType.RDMA_WRITE || c.type() == WorkRequestType.RDMA_READ) {
                    long n = rdmaCompleted + 1;
                    rdmaCompleted = n; // single writer: the endpoint's I/O thread
                    spin.wake(n);
                } else {
                    long n = sendsCompleted + 1;
                    sendsCompleted = n;
                    spin.wake(Math.min(n, received));
                }
            }

            @Override
            public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
                if (failure == null) {
                    failure = "client disconnected: " + cause + " " + detail;
                }
            }
        }
    }

    /** Two transports over two providers, one negotiated connection, registrations for RDMA. */
    public abstract static class EngineBase implements RdmaCompletionHandler {
        EnginePair pair;
        SmbDirectConnection client;
        SmbDirectConnection server;
        Receiver serverHandler;
        Receiver clientHandler;
        ByteBuffer message;
        RegisteredBuffer local;
        RegisteredBuffer remote;
        List<BufferDescriptor> descriptors;
        int size;
        volatile long rdmaCompleted;
        volatile Throwable rdmaFailure;
        long sent;
        long rdmaIssued;
        final Spin spin = Spin.wokenBy(WAIT_PARK_NANOS);

        /** Opens the pair; {@code settings} are attributes of the transport configuration. */
        void open(Size size, Wire wire, Map<String, ?> settings) throws Exception {
            IwarpProvider clientProvider = IwarpProvider.open("bench-client", wire.settings());
            IwarpProvider serverProvider = IwarpProvider.open("bench-server", wire.settings());
            serverHandler = new Receiver(null, spin);
            clientHandler = new Receiver(null);
            pair = new EnginePair(serverProvider, new InetSocketAddress("127.0.0.1", 0), clientProvider, settings,
                    serverHandler, clientHandler, () -> {
                        clientProvider.close();
                        serverProvider.close();
                    });
            client = pair.client;
            server = pair.server;
            message = Buffers.pattern(size.size);
            remote = server.register(ByteBuffer.allocateDirect(size.size), RemoteAccess.READ_WRITE)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            local = client.register(Buffers.pattern(size.size), RemoteAccess.LOCAL_ONLY).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            descriptors = remote.descriptors();
            this.size = size.size;
        }

        @TearDown
        public void tearDown() throws Exception {
            while (rdmaIssued > rdmaCompleted) {
                spin.idle("RDMA completions at tear-down");
            }
            spin.reset();
            pair.close();
        }

        /**
         * With {@link #DEPTH} RDMA operations outstanding, sleeps until half of them completed;
         * throws once one failed.
         */
        void awaitRdmaRoom(String what) {
            if (rdmaIssued - rdmaCompleted >= DEPTH) {
                long until = rdmaIssued - DEPTH / 2;
                spin.until(until);
                while (rdmaCompleted < until) {
                    spin.idle(what);
                }
                spin.reset();
            }
            Throwable f = rdmaFailure;
            if (f != null) {
                throw new IllegalStateException(what + ": an operation failed", f);
            }
        }

        @Override
        public void rdmaComplete(long bytes, Throwable failure) {
            if (failure != null && rdmaFailure == null) {
                rdmaFailure = failure;
            }
            long c = rdmaCompleted + 1;
            rdmaCompleted = c; // single writer: the connection's serial context
            spin.wake(c);
        }
    }

    /** The engines for RDMA, at the [MS-SMBD] defaults. */
    @State(Scope.Benchmark)
    public static class Engine extends EngineBase {
        @Setup
        public void setUp(Size size, Wire wire) throws Exception {
            open(size, wire, Map.of());
        }
    }

    /**
     * The engines for bulk messages, fragmented at {@code sendSize}: 1364 (the [MS-SMBD] default,
     * one fragment per FPDU of 1460) or 8192 (MaxSendSize and MaxReceiveSize 8192 on both sides).
     */
    @State(Scope.Benchmark)
    public static class BulkEngine extends EngineBase {
        @Param({"1364", "8192"})
        public int sendSize;

        @Setup
        public void setUp(Size size, Wire wire) throws Exception {
            open(size, wire, Map.of("maxSendSize", sendSize, "maxReceiveSize", 8192));
        }
    }

    @Benchmark
    public long tcpFloor(Tcp t) throws IOException {
        ByteBuffer b = t.source;
        b.clear();
        while (b.hasRemaining()) {
            t.writer.write(b);
        }
        return b.position();
    }

    @Benchmark
    public long providerSend(Raw r) throws RdmaException {
        long s = r.issued;
        if (s - r.received >= RECEIVES || s - r.sendsCompleted >= DEPTH) {
            // both counters are woken with the lower of the two (the other one read after its own write)
            long until = s - DEPTH / 2;
            r.spin.until(until);
            while (Math.min(r.received, r.sendsCompleted) < until) {
                r.check();
                r.spin.idle("iWARP Sends");
            }
            r.spin.reset();
        }
        r.client.postSend(r.source, 0, r.size, s);
        return r.issued = s + 1;
    }

    @Benchmark
    public long providerWrite(Raw r) throws RdmaException {
        long s = r.issued;
        r.awaitRdmaRoom(s, "iWARP RDMA Writes");
        r.client.postRdmaWrite(r.source, 0, r.size, r.target.address(), r.target.token(), s);
        return r.issued = s + 1;
    }

    @Benchmark
    public long providerRead(Raw r) throws RdmaException {
        long s = r.issued;
        r.awaitRdmaRoom(s, "iWARP RDMA Reads");
        r.client.postRdmaRead(r.sink, 0, r.size, r.target.address(), r.target.token(), s);
        return r.issued = s + 1;
    }

    @Benchmark
    public long engineBulk(BulkEngine e) {
        if (e.sent - e.serverHandler.messages >= DEPTH) {
            long until = e.sent - DEPTH / 2;
            e.spin.until(until);
            while (e.serverHandler.messages < until) {
                e.spin.idle("bulk messages over iWARP");
            }
            e.spin.reset();
        }
        e.clientHandler.checkHealthy();
        e.client.send(e.message, e.clientHandler);
        return ++e.sent;
    }

    @Benchmark
    public long engineRead(Engine e) {
        e.awaitRdmaRoom("RDMA Reads over iWARP");
        e.client.rdmaRead(e.local, 0, e.size, e.descriptors, 0, e);
        return ++e.rdmaIssued;
    }

    @Benchmark
    public long engineWrite(Engine e) {
        e.awaitRdmaRoom("RDMA Writes over iWARP");
        e.client.rdmaWrite(e.local, 0, e.size, e.descriptors, 0, e);
        return ++e.rdmaIssued;
    }
}
