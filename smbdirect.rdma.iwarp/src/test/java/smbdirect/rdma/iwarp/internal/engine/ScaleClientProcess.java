package smbdirect.rdma.iwarp.internal.engine;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * The client process of {@link IwarpScaleBetweenProcessesTest}: many SMB Direct connections over
 * software iWARP to the test's server on loopback. Arguments: port, connections to open, raw TCP
 * connections of the flood (connected, never an MPA Request), bytes of each connection's message,
 * connects in progress at once. Phases, each reported on stdout and the next started by a line on
 * stdin:
 * <ol>
 * <li>{@code FLOOD <n>}: the raw connections are open; on {@code GO} they are closed
 * ({@code FLOOD CLOSED});</li>
 * <li>{@code CONNECTED <ok> <refused> <millis> <first failure>}: every connect finished (at most the
 * window in progress at once);</li>
 * <li>{@code ECHOED <verified> <wrong>}: each connection sent its own message (bytes derived from its
 * index) and got it back from the server, compared byte for byte;</li>
 * <li>{@code HOLDING}: every connection stays open until stdin ends or says {@code CLOSE} (or the
 * process is killed).</li>
 * </ol>
 */
public final class ScaleClientProcess {

    private ScaleClientProcess() {
    }

    /** The message of connection {@code index}: {@code size} bytes, different for every connection and offset. */
    static ByteBuffer message(int index, int size) {
        ByteBuffer b = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            b.put(i, (byte) (i * 31 + index * 7 + (index >>> 8) + 1));
        }
        return b;
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        InetSocketAddress server = new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0]));
        int connections = Integer.parseInt(args[1]);
        int flood = Integer.parseInt(args[2]);
        int size = Integer.parseInt(args[3]);
        int window = Integer.parseInt(args[4]);
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        try (IwarpProvider provider = IwarpProvider.open("scale-client", IwarpSettings.builder()
                .listenAddresses("127.0.0.1").maxConnections(connections + 16).build())) {
            SmbDirectEngine engine = new SmbDirectEngine(provider, IwarpScaleBetweenProcessesTest.settings(connections),
                    new ExecutorScheduler(timers));

            List<SocketChannel> raw = new ArrayList<>();
            for (int i = 0; i < flood; i++) {
                raw.add(SocketChannel.open(server));
            }
            out.println("FLOOD " + raw.size());
            out.flush();
            if (!"GO".equals(in.readLine())) {
                return;
            }
            for (SocketChannel c : raw) {
                c.close();
            }
            out.println("FLOOD CLOSED");
            out.flush();
            if (!"GO".equals(in.readLine())) {
                return;
            }

            Semaphore inProgress = new Semaphore(window);
            List<SmbDirectConnection> open = new ArrayList<>();
            List<Echo> echoes = new ArrayList<>();
            AtomicInteger refused = new AtomicInteger();
            AtomicReference<String> firstFailure = new AtomicReference<>("-");
            List<CompletableFuture<?>> all = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < connections; i++) {
                inProgress.acquire();
                Echo echo = new Echo(i, size);
                CompletableFuture<?> done = engine.connect(server, Duration.ofSeconds(30), echo).toCompletableFuture()
                        .handle((c, failure) -> {
                            synchronized (open) {
                                if (failure == null) {
                                    open.add(c);
                                    echoes.add(echo);
                                } else {
                                    refused.incrementAndGet();
                                    firstFailure.compareAndSet("-", String.valueOf(failure.getMessage()));
                                }
                            }
                            inProgress.release();
                            return null;
                        });
                all.add(done);
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            long millis = (System.nanoTime() - start) / 1_000_000;
            out.println("CONNECTED " + open.size() + " " + refused.get() + " " + millis + " " + firstFailure.get());
            out.flush();
            if (!"GO".equals(in.readLine())) {
                return;
            }

            List<CompletableFuture<Boolean>> verdicts = new ArrayList<>();
            synchronized (open) {
                for (int i = 0; i < open.size(); i++) {
                    verdicts.add(echoes.get(i).sendOn(open.get(i)));
                }
            }
            int verified = 0;
            int wrong = 0;
            for (CompletableFuture<Boolean> v : verdicts) {
                if (v.get(120, TimeUnit.SECONDS)) {
                    verified++;
                } else {
                    wrong++;
                }
            }
            out.println("ECHOED " + verified + " " + wrong);
            out.println("HOLDING");
            out.flush();
            String line = in.readLine();
            if ("CLOSE".equals(line)) {
                for (SmbDirectConnection c : open) {
                    c.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
                }
                out.println("CLOSED");
                out.flush();
            }
        } finally {
            timers.shutdownNow();
        }
    }

    /** One connection's handler: sends its message and checks that the echo is the same bytes. */
    private static final class Echo implements ConnectionHandler {
        private final int index;
        private final int size;
        private final CompletableFuture<Boolean> verdict = new CompletableFuture<>();

        Echo(int index, int size) {
            this.index = index;
            this.size = size;
        }

        CompletableFuture<Boolean> sendOn(SmbDirectConnection c) {
            c.send(message(index, size), (m, failure) -> {
                if (failure != null) {
                    verdict.complete(false);
                }
            });
            return verdict;
        }

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer want = message(index, size);
            ByteBuffer got = message.payload();
            verdict.complete(message.length() == size && got.slice(got.position(), message.length()).equals(want));
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            verdict.complete(false);
        }
    }
}
