package smbdirect.rdma.iwarp.internal.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointConfig;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * A manual interoperability check against real Linux siw, ksmbd and cifs in the siw VM
 * ({@code tools/siw-vm} next to the repository), not a test of the build. Modes:
 * <ul>
 * <li>{@code rping-client PORT}: one iteration of rping's client against {@code rping -s} over siw
 * (Send, the server's RDMA Read of our buffer, its Send, Send, its RDMA Write into our buffer, its
 * Send), checked byte for byte;</li>
 * <li>{@code rping-server PORT}: one iteration of rping's server for {@code rping -c -V} over siw
 * (our RDMA Read of its buffer, Send, its Send, our RDMA Write, Send);</li>
 * <li>{@code smbd-client PORT}: the SMB Direct engine as client of ksmbd over siw: negotiation,
 * then a close;</li>
 * <li>{@code smbd-server PORT}: the engine as SMB Direct server for cifs over siw: negotiation and
 * the first upper-layer message.</li>
 * </ul>
 * Options: {@code crc} asks for CRC. Prints what happened; exit status 0 when it went as expected.
 */
public final class SiwInteropMain {

    private static final int SIZE = 64;
    private static final long WAIT = 60;

    private SiwInteropMain() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int port = Integer.parseInt(args[1]);
        boolean crc = args.length > 2 && args[2].equals("crc");
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").crc(crc)
                .firstFpduDelayMillis(Integer.getInteger("firstFpduDelayMillis", 500)).build();
        boolean ok;
        try (IwarpProvider provider = IwarpProvider.open("siw-interop", settings)) {
            ok = switch (mode) {
                case "rping-client" -> rpingClient(provider, port);
                case "rping-server" -> rpingServer(provider, port);
                case "smbd-client" -> smbdClient(provider, port);
                case "smbd-server" -> smbdServer(provider, port);
                default -> throw new IllegalArgumentException(mode);
            };
            System.out.println("statistics: " + provider.statistics());
        }
        System.out.println(ok ? "INTEROP OK" : "INTEROP FAILED");
        System.exit(ok ? 0 : 1);
    }

    /** Completions and the end of one endpoint, as a queue. */
    private static final class Queue implements RdmaEndpointHandler {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        final CompletableFuture<Void> up = new CompletableFuture<>();

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            System.out.println("established, peer private data " + peerPrivateData.remaining() + " bytes");
            up.complete(null);
        }

        @Override
        public void onCompletion(WorkCompletion wc) {
            System.out.println("completion " + wc);
            events.add(wc.type() + " " + wc.status() + " " + wc.wrId());
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            System.out.println("disconnected " + cause + ": " + detail);
            events.add("DISCONNECTED " + cause);
            up.completeExceptionally(new IllegalStateException(cause + " " + detail));
        }

        String next() throws InterruptedException {
            String e = events.poll(WAIT, TimeUnit.SECONDS);
            if (e == null) {
                throw new IllegalStateException("nothing within " + WAIT + " s");
            }
            return e;
        }

        /** The next completion of {@code type}, which must succeed. */
        void expect(WorkRequestType type) throws InterruptedException {
            String e = next();
            if (!e.startsWith(type + " " + CompletionStatus.SUCCESS)) {
                throw new IllegalStateException("expected a successful " + type + ", got " + e);
            }
        }
    }

    /** rping's struct rping_rdma_info: buf (u64), rkey (u32), size (u32), big-endian. */
    private static void info(ByteBuffer b, MemoryRegion r) {
        b.putLong(0, r.address()).putInt(8, r.token()).putInt(12, SIZE);
    }

    private static byte[] pattern() {
        byte[] p = new byte[SIZE];
        byte[] text = "rdma-ping-0: ".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, p, 0, text.length);
        for (int i = text.length; i < SIZE - 1; i++) {
            p[i] = (byte) ('A' + (i - text.length) % 62);
        }
        return p;
    }

    private static boolean rpingClient(IwarpProvider provider, int port) throws Exception {
        Queue q = new Queue();
        RdmaEndpoint ep = provider.createEndpoint(new EndpointConfig(8, 8), q);
        MemoryRegion recv = ep.register(ByteBuffer.allocateDirect(32), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        MemoryRegion send = ep.register(ByteBuffer.allocateDirect(16), EnumSet.noneOf(MemoryAccess.class));
        MemoryRegion start = ep.register(ByteBuffer.allocateDirect(SIZE), EnumSet.of(MemoryAccess.REMOTE_READ));
        MemoryRegion rdma = ep.register(ByteBuffer.allocateDirect(SIZE),
                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        start.buffer().put(0, pattern());
        ep.postReceive(recv, 0, 16, 1);
        ep.postReceive(recv, 16, 16, 2);
        ep.connect(new InetSocketAddress("127.0.0.1", port), new ConnectParameters(null, 1, 1));
        q.up.get(WAIT, TimeUnit.SECONDS);
        System.out.println("IRD " + ep.inboundReadDepth() + ", ORD " + ep.outboundReadDepth());
        info(send.buffer(), start);
        ep.postSend(send, 0, 16, 10);
        q.expect(WorkRequestType.SEND);
        q.expect(WorkRequestType.RECEIVE); // the server read our buffer and says go ahead
        info(send.buffer(), rdma);
        ep.postSend(send, 0, 16, 11);
        q.expect(WorkRequestType.SEND);
        q.expect(WorkRequestType.RECEIVE); // the server wrote into rdma and says done
        byte[] got = new byte[SIZE];
        rdma.buffer().get(0, got);
        System.out.println("the server wrote: " + new String(got, 0, SIZE - 1, StandardCharsets.US_ASCII));
        boolean same = java.util.Arrays.equals(pattern(), got);
        ep.disconnect();
        System.out.println("end: " + q.next() + " ...");
        ep.close();
        return same;
    }

    private static boolean rpingServer(IwarpProvider provider, int port) throws Exception {
        Queue q = new Queue();
        CompletableFuture<RdmaEndpoint> accepted = new CompletableFuture<>();
        MemoryRegion[] regions = new MemoryRegion[3];
        RdmaListener listener = provider.listen(new InetSocketAddress("127.0.0.1", port), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                try {
                    System.out.println("request from " + request.peerAddress() + ": IRD " + request.peerInboundReadDepth()
                            + ", ORD " + request.peerOutboundReadDepth());
                    RdmaEndpoint ep = request.createEndpoint(new EndpointConfig(8, 8), q);
                    regions[0] = ep.register(ByteBuffer.allocateDirect(32), EnumSet.of(MemoryAccess.LOCAL_WRITE));
                    regions[1] = ep.register(ByteBuffer.allocateDirect(16), EnumSet.noneOf(MemoryAccess.class));
                    regions[2] = ep.register(ByteBuffer.allocateDirect(SIZE), EnumSet.of(MemoryAccess.LOCAL_WRITE,
                            MemoryAccess.REMOTE_WRITE));
                    ep.postReceive(regions[0], 0, 16, 1);
                    ep.postReceive(regions[0], 16, 16, 2);
                    ep.accept(new ConnectParameters(null, 1, 1));
                    accepted.complete(ep);
                } catch (Exception e) {
                    accepted.completeExceptionally(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
            }
        });
        System.out.println("listening on " + listener.localAddress());
        RdmaEndpoint ep = accepted.get(WAIT, TimeUnit.SECONDS);
        q.up.get(WAIT, TimeUnit.SECONDS);
        q.expect(WorkRequestType.RECEIVE);
        ByteBuffer r = regions[0].buffer();
        long buf = r.getLong(0);
        int rkey = r.getInt(8);
        int size = r.getInt(12);
        System.out.printf("client's start buffer 0x%x rkey 0x%x size %d%n", buf, rkey, size);
        ep.postRdmaRead(regions[2], 0, Math.min(size, SIZE), buf, rkey, 20);
        q.expect(WorkRequestType.RDMA_READ);
        byte[] got = new byte[SIZE];
        regions[2].buffer().get(0, got);
        System.out.println("read: " + new String(got, 0, SIZE - 1, StandardCharsets.US_ASCII));
        ep.postSend(regions[1], 0, 16, 21);
        q.expect(WorkRequestType.SEND);
        q.expect(WorkRequestType.RECEIVE);
        buf = r.getLong(16);
        rkey = r.getInt(24);
        size = r.getInt(28);
        System.out.printf("client's rdma buffer 0x%x rkey 0x%x size %d%n", buf, rkey, size);
        ep.postRdmaWrite(regions[2], 0, Math.min(size, SIZE), buf, rkey, 22);
        q.expect(WorkRequestType.RDMA_WRITE);
        ep.postSend(regions[1], 0, 16, 23);
        q.expect(WorkRequestType.SEND);
        String end = q.next();
        System.out.println("end: " + end);
        ep.close();
        listener.close();
        return end.startsWith("DISCONNECTED PEER") || end.startsWith("RECEIVE FLUSHED");
    }

    private static boolean smbdClient(IwarpProvider provider, int port) throws Exception {
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try {
            SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            CompletableFuture<CloseReason> closed = new CompletableFuture<>();
            SmbDirectConnection c = engine.connect(new InetSocketAddress("127.0.0.1", port), Duration.ofSeconds(30),
                    new ConnectionHandler() {
                        @Override
                        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
                            System.out.println("message of " + message.payload().remaining() + " bytes");
                        }

                        @Override
                        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
                            closed.complete(reason);
                        }
                    }).toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
            System.out.println("negotiated with ksmbd: " + c.getConnectionDTO());
            c.close().toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
            CloseReason reason = closed.get(WAIT, TimeUnit.SECONDS);
            System.out.println("closed: " + reason);
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "done")).toCompletableFuture().get();
            return reason.kind() == CloseReason.Kind.LOCAL_CLOSE;
        } finally {
            timers.shutdownNow();
        }
    }

    private static boolean smbdServer(IwarpProvider provider, int port) throws Exception {
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try {
            SmbDirectEngine engine = new SmbDirectEngine(provider, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            CompletableFuture<byte[]> first = new CompletableFuture<>();
            CompletableFuture<SmbDirectConnection> connected = new CompletableFuture<>();
            SmbDirectListener listener = engine.listen(new InetSocketAddress("127.0.0.1", port), connection -> {
                connected.complete(connection);
                return new ConnectionHandler() {
                    @Override
                    public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
                        byte[] b = new byte[message.payload().remaining()];
                        message.payload().duplicate().get(b);
                        first.complete(b);
                    }

                    @Override
                    public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
                        System.out.println("closed: " + reason);
                    }
                };
            });
            System.out.println("listening on " + listener.localAddress());
            SmbDirectConnection c = connected.get(WAIT * 2, TimeUnit.SECONDS);
            System.out.println("negotiated with cifs: " + c.getConnectionDTO());
            byte[] m = first.get(WAIT, TimeUnit.SECONDS);
            System.out.printf("first upper-layer message: %d bytes, starts %02x %02x %02x %02x (SMB2: fe 53 4d 42)%n",
                    m.length, m[0], m[1], m[2], m[3]);
            c.close().toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
            listener.close().toCompletableFuture().get(WAIT, TimeUnit.SECONDS);
            engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "done")).toCompletableFuture().get();
            return (m[0] & 0xFF) == 0xFE && m[1] == 'S' && m[2] == 'M' && m[3] == 'B';
        } finally {
            timers.shutdownNow();
        }
    }
}
