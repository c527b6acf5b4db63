package smbdirect.rdma.iwarp.internal.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.perf.Perf;
import smbdirect.perf.PerfOptions;
import smbdirect.perf.PerfResult;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * A manual measurement (not a test): the engine's perf workload over two iWARP providers on
 * loopback in one JVM, for several provider settings, against plain TCP on the same loopback in the
 * same run as the floor. Run with the test class path:
 * {@code java -cp <test classpath> smbdirect.rdma.iwarp.internal.engine.IwarpPerfMain [count]}.
 */
public final class IwarpPerfMain {

    private IwarpPerfMain() {
    }

    public static void main(String[] args) throws Exception {
        long count = args.length > 0 ? Long.parseLong(args[0]) : 20_000;
        System.out.printf(Locale.ROOT, "plain TCP, 64 KiB writes, 1 GiB: %.1f MB/s%n", plainTcp(1L << 30));
        engine(IwarpSettings.builder().listenAddresses("127.0.0.1").build(),
                List.of("--size", "1364", "--count", Long.toString(count), "--depth", "16")); // warm-up
        for (String variant : (args.length > 1 ? args[1] : "1460:crc,1460:nocrc,65536:crc,65536:nocrc").split(",")) {
            String[] v = variant.split(":");
            IwarpSettings s = IwarpSettings.builder().listenAddresses("127.0.0.1").maxFpduSize(Integer.parseInt(v[0]))
                    .crc(v[1].equals("crc")).build();
            System.out.printf(Locale.ROOT, "FPDU %s, %s: RDMA Write 1 MiB, depth 4: %.1f MB/s; RDMA Read: %.1f MB/s%n",
                    v[0], v[1], rdma(s, false, 2000), rdma(s, true, 2000));
            for (String size : new String[] {"1364", "64k"}) {
                PerfResult r = engine(s, List.of("--size", size, "--count", Long.toString(count), "--depth", "16"));
                System.out.printf(Locale.ROOT, "FPDU %s, %s: send %s x %d: %.1f MB/s, %.0f messages/s%n", v[0], v[1],
                        size, count, r.megabytesPerSecond(), r.messagesPerSecond());
            }
        }
    }

    private static PerfResult engine(IwarpSettings settings, List<String> options) throws Exception {
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try (IwarpProvider client = IwarpProvider.open("perf-client", settings);
                IwarpProvider server = IwarpProvider.open("perf-server", settings)) {
            SmbDirectEngine serverEngine = new SmbDirectEngine(server, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            SmbDirectEngine clientEngine = new SmbDirectEngine(client, TransportSettings.DEFAULTS,
                    new ExecutorScheduler(timers));
            SmbDirectListener listener = Perf.serve(serverEngine, new InetSocketAddress("127.0.0.1", 0));
            List<String> all = new java.util.ArrayList<>(options);
            all.add("--connect");
            all.add("127.0.0.1:" + listener.localAddress().getPort());
            PerfResult r = Perf.run(clientEngine, PerfOptions.parse(all));
            listener.close().toCompletableFuture().get();
            clientEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "done")).toCompletableFuture().get();
            serverEngine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "done")).toCompletableFuture().get();
            return r;
        } finally {
            timers.shutdownNow();
        }
    }

    /** Provider level: {@code count} RDMA Writes (or Reads) of 1 MiB, 4 outstanding; MB/s. */
    private static double rdma(IwarpSettings settings, boolean read, int count) throws Exception {
        int size = 1 << 20;
        try (IwarpProvider client = IwarpProvider.open("rdma-client", settings);
                IwarpProvider server = IwarpProvider.open("rdma-server", settings)) {
            java.util.concurrent.CompletableFuture<smbdirect.api.rdma.MemoryRegion> exposed =
                    new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(4);
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(count);
            smbdirect.api.rdma.RdmaEndpointHandler quiet = handler(null, null);
            smbdirect.api.rdma.RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
                    new smbdirect.api.rdma.RdmaListenHandler() {
                        @Override
                        public void onConnectRequest(smbdirect.api.rdma.RdmaConnectRequest request) {
                            try {
                                smbdirect.api.rdma.RdmaEndpoint ep = request.createEndpoint(
                                        new smbdirect.api.rdma.EndpointSettings(8, 8), quiet);
                                exposed.complete(ep.register(java.nio.ByteBuffer.allocateDirect(size),
                                        java.util.EnumSet.allOf(smbdirect.api.rdma.MemoryAccess.class)));
                                ep.accept(new smbdirect.api.rdma.ConnectParameters(null, 8, 8));
                            } catch (smbdirect.api.rdma.RdmaException e) {
                                exposed.completeExceptionally(e);
                            }
                        }

                        @Override
                        public void onListenerFailed(smbdirect.api.rdma.DisconnectCause cause, String detail) {
                        }
                    });
            java.util.concurrent.CountDownLatch up = new java.util.concurrent.CountDownLatch(1);
            smbdirect.api.rdma.RdmaEndpoint ep = client.createEndpoint(new smbdirect.api.rdma.EndpointSettings(8, 8),
                    handler(up, () -> {
                        window.release();
                        done.countDown();
                    }));
            smbdirect.api.rdma.MemoryRegion local = ep.register(java.nio.ByteBuffer.allocateDirect(size),
                    java.util.EnumSet.of(smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE));
            ep.connect(listener.localAddress(), new smbdirect.api.rdma.ConnectParameters(null, 8, 8));
            up.await();
            smbdirect.api.rdma.MemoryRegion target = exposed.get();
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                window.acquire();
                if (read) {
                    ep.postRdmaRead(local, 0, size, target.address(), target.token(), i);
                } else {
                    ep.postRdmaWrite(local, 0, size, target.address(), target.token(), i);
                }
            }
            done.await();
            double mbs = (double) count * size / 1e6 / ((System.nanoTime() - start) / 1e9);
            ep.close();
            listener.close();
            return mbs;
        }
    }

    private static smbdirect.api.rdma.RdmaEndpointHandler handler(java.util.concurrent.CountDownLatch up,
            Runnable completed) {
        return new smbdirect.api.rdma.RdmaEndpointHandler() {
            @Override
            public void onEstablished(java.nio.ByteBuffer peerPrivateData) {
                if (up != null) {
                    up.countDown();
                }
            }

            @Override
            public void onCompletion(smbdirect.api.rdma.WorkCompletion completion) {
                if (completed != null) {
                    completed.run();
                }
            }

            @Override
            public void onDisconnected(smbdirect.api.rdma.DisconnectCause cause, String detail,
                    java.nio.ByteBuffer privateData) {
            }
        };
    }

    /** Plain TCP on loopback: one thread writes {@code bytes} in 64 KiB writes, another reads them. */
    private static double plainTcp(long bytes) throws IOException, InterruptedException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread reader = new Thread(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    byte[] b = new byte[65536];
                    while (in.read(b) >= 0) {
                        // drain
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            reader.start();
            long start = System.nanoTime();
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                    OutputStream out = s.getOutputStream()) {
                s.setTcpNoDelay(true);
                byte[] b = new byte[65536];
                for (long sent = 0; sent < bytes; sent += b.length) {
                    out.write(b);
                }
            }
            reader.join();
            return bytes / 1e6 / ((System.nanoTime() - start) / 1e9);
        }
    }
}
