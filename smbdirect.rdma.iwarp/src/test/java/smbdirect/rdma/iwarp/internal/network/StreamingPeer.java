package smbdirect.rdma.iwarp.internal.network;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * A peer in its own JVM that connects to an iWARP listener and streams RDMA Writes into the
 * registration the listener's side advertises in its accept private data (STag, base, length),
 * while advertising one of its own in the connect private data, until it is killed. Protocol on
 * stdout: {@code STREAMING} once its first Write completed; {@code ENDED <cause>} if the connection
 * ends first. Exits by itself after the time limit given as the third argument (seconds).
 */
public final class StreamingPeer {

    static final int REGION = 1 << 20;
    static final int WRITE = 64 * 1024;
    static final int DEPTH = 8;

    private StreamingPeer() {
    }

    /** The private data advertising {@code region}: STag, base address, length (big-endian). */
    static ByteBuffer advertise(MemoryRegion region) {
        return ByteBuffer.allocate(16).putInt(region.token()).putLong(region.address()).putInt(region.length()).flip();
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        InetSocketAddress target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        long limit = Long.parseLong(args[2]);
        CountDownLatch ended = new CountDownLatch(1);
        try (IwarpProvider provider = IwarpProvider.open("streaming-peer",
                IwarpSettings.builder().listenAddresses("127.0.0.1").build())) {
            RdmaEndpoint[] ep = new RdmaEndpoint[1];
            MemoryRegion[] source = new MemoryRegion[1];
            long[] sink = new long[3];
            RdmaEndpointHandler handler = new RdmaEndpointHandler() {
                private long posted;
                private boolean announced;

                @Override
                public void onEstablished(ByteBuffer peerPrivateData) {
                    sink[0] = peerPrivateData.getInt(0);
                    sink[1] = peerPrivateData.getLong(4);
                    sink[2] = peerPrivateData.getInt(12);
                    for (int i = 0; i < DEPTH; i++) {
                        post();
                    }
                }

                private void post() {
                    long offset = (posted * WRITE) % (sink[2] - WRITE + 1);
                    try {
                        ep[0].postRdmaWrite(source[0], 0, WRITE, sink[1] + offset, (int) sink[0], posted++);
                    } catch (RdmaException e) {
                        out.println("ENDED post failed: " + e.getMessage());
                        out.flush();
                    }
                }

                @Override
                public void onCompletion(WorkCompletion wc) {
                    if (wc.status() == CompletionStatus.SUCCESS) {
                        if (!announced) {
                            announced = true;
                            out.println("STREAMING");
                            out.flush();
                        }
                        post();
                    }
                }

                @Override
                public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
                    out.println("ENDED " + cause + " " + detail);
                    out.flush();
                    ended.countDown();
                }
            };
            ep[0] = provider.createEndpoint(new EndpointSettings(DEPTH * 2, 4), handler);
            ByteBuffer data = ByteBuffer.allocateDirect(WRITE);
            for (int i = 0; i < WRITE; i++) {
                data.put(i, (byte) (i * 5 + 1));
            }
            source[0] = ep[0].register(data, EnumSet.of(MemoryAccess.LOCAL_WRITE));
            MemoryRegion region = ep[0].register(ByteBuffer.allocateDirect(REGION),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
            ep[0].connect(target, new ConnectParameters(advertise(region), 4, 4));
            ended.await(limit, TimeUnit.SECONDS);
        }
        System.exit(2);
    }
}
