package smbdirect.perf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;

/**
 * Runs perf workloads over a transport. Stateless; each call is independent and may run
 * concurrently with others.
 */
public final class Perf {

    private static final Logger LOG = LoggerFactory.getLogger(Perf.class);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    private static final long CLOSE_WAIT_SECONDS = 10;

    private Perf() {
    }

    /**
     * Runs the client end over {@link PerfOptions#provider()} (the transport's selected provider when
     * none is named). Without {@link PerfOptions#connect()} a server end is started here on a free
     * port of the local RDMA address ({@link PerfOptions#local()}, else the address of the first
     * open listener on that provider) and closed afterwards; both ends then run on the provider of
     * that address. With {@link PerfOptions#connections()} above 1 it opens that many connections to
     * the same server end, each running the whole workload, and returns their sum with each one's
     * result in {@link PerfResult#streams()}.
     *
     * @throws PerfException with a message naming what failed
     * @throws InterruptedException when the calling thread was interrupted; the run is abandoned
     */
    public static PerfResult run(SmbDirectTransport transport, PerfOptions options)
            throws PerfException, InterruptedException {
        return run(transport, options, new CompletableFuture<>());
    }

    /**
     * {@link #run(SmbDirectTransport, PerfOptions)} that ends early when {@code stop} completes (for
     * example on SIGTERM): nothing more is sent, what is in flight completes and the server confirms
     * what it received, so the result covers the run so far, every byte accounted for.
     *
     * @throws PerfException with a message naming what failed
     * @throws InterruptedException when the calling thread was interrupted; the run is abandoned
     */
    public static PerfResult run(SmbDirectTransport transport, PerfOptions options, CompletionStage<?> stop)
            throws PerfException, InterruptedException {
        if (options.listen() != null) {
            throw new PerfException("--listen starts only a server end; use Perf.serve");
        }
        SmbDirectListener listener = null;
        int n = options.connections();
        SmbDirectConnection[] connections = new SmbDirectConnection[n];
        try {
            InetSocketAddress peer = options.connect();
            SmbDirectTransport on = options.provider() == null ? transport : transport.onProvider(options.provider());
            if (peer == null) {
                ListenerDTO local = localListener(transport, options);
                InetAddress address = options.local() != null ? options.local() : addressOf(local);
                if (options.provider() == null && local != null && local.provider != null) {
                    on = transport.onProvider(local.provider); // the device of that address
                }
                listener = serve(on, new InetSocketAddress(address, 0));
                peer = listener.localAddress();
            }
            PerfClient[] clients = new PerfClient[n];
            for (int i = 0; i < n; i++) {
                clients[i] = new PerfClient(options);
                connections[i] = connect(on, peer, clients[i], n > 1 ? " (connection " + (i + 1) + " of " + n + ")" : "");
                check(connections[i], options);
            }
            long[] stallsBefore = new long[n];
            for (int i = 0; i < n; i++) {
                stallsBefore[i] = connections[i].getConnectionDTO().creditStalls;
                PerfClient client = clients[i];
                stop.whenComplete((v, t) -> client.finishNow()); // before the start: no completion races it
            }
            for (int i = 0; i < n; i++) {
                clients[i].start(connections[i]);
            }
            PerfClient.Counts[] counts = await(clients, options);
            PerfResult[] results = new PerfResult[n];
            for (int i = 0; i < n; i++) {
                results[i] = result(options, connections[i], counts[i], stallsBefore[i]);
            }
            return n == 1 ? results[0] : sum(options, results, counts);
        } finally {
            closeQuietly(connections, listener);
        }
    }

    private static SmbDirectConnection connect(SmbDirectTransport on, InetSocketAddress peer, PerfClient client,
            String which) throws PerfException, InterruptedException {
        try {
            return on.connect(peer, CONNECT_TIMEOUT, client).toCompletableFuture()
                    .get(CONNECT_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
        } catch (ExecutionException | CompletionException e) {
            throw new PerfException("cannot connect to " + peer + which + ": " + message(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new PerfException("connecting to " + peer + which + " did not finish within "
                    + CONNECT_TIMEOUT.toSeconds() + " s");
        }
    }

    /** Whether the connection can carry the workload's messages or transfers. */
    private static void check(SmbDirectConnection connection, PerfOptions options) throws PerfException {
        long maxMessage = connection.parameters().maxFragmentedSendSize();
        if (options.direction().isRdma()) {
            int maxTransfer = connection.parameters().maxReadWriteSize();
            if (options.size() > maxTransfer) {
                throw new PerfException("--size " + options.size() + " exceeds the largest RDMA transfer of the "
                        + "connection (MaxReadWriteSize " + maxTransfer + ")");
            }
        } else if (options.size() > maxMessage) {
            throw new PerfException("--size " + options.size() + " exceeds what the peer reassembles "
                    + "(MaxFragmentedSize " + maxMessage + ")");
        }
    }

    private static String latencyKind(PerfOptions options) {
        return switch (options.direction()) {
            case PINGPONG -> "round-trip";
            case WRITE, READ -> "RDMA completion";
            default -> "send-completion";
        };
    }

    private static String unit(PerfOptions options) {
        return options.direction().isRdma() ? "RDMA " + options.direction().label() + "s" : "messages";
    }

    private static PerfResult result(PerfOptions options, SmbDirectConnection connection, PerfClient.Counts counts,
            long stallsBefore) {
        ConnectionDTO after = connection.getConnectionDTO();
        return new PerfResult(options.describe(), connection.providerName(), after.providerDetail,
                text(connection.localAddress()), text(connection.peerAddress()), counts.messages(), unit(options),
                counts.bytes(), counts.elapsedNanos(), after.creditStalls - stallsBefore, counts.p50(), counts.p99(),
                latencyKind(options), counts.confirmation(), counts.cpu());
    }

    /**
     * The sum of several connections' results, as iperf3 -P sums its streams: messages, bytes and
     * credit stalls added, over the longest connection's time (so the summed rate is never above what
     * moved in the time it took); the latencies of all connections in one histogram; the CPU of the
     * process over the first connection's time.
     */
    private static PerfResult sum(PerfOptions options, PerfResult[] results, PerfClient.Counts[] counts) {
        long messages = 0;
        long bytes = 0;
        long elapsed = 0;
        long stalls = 0;
        LatencyHistogram all = null;
        for (int i = 0; i < results.length; i++) {
            messages += results[i].messages();
            bytes += results[i].bytes();
            elapsed = Math.max(elapsed, results[i].elapsedNanos());
            stalls += results[i].creditStalls();
            if (counts[i].latency() != null) {
                if (all == null) {
                    all = new LatencyHistogram();
                }
                all.add(counts[i].latency());
            }
        }
        PerfResult first = results[0];
        String host = first.local().substring(0, Math.max(0, first.local().lastIndexOf(':')));
        return new PerfResult(options.describe(), first.provider(), first.providerDetail(),
                host + " (" + results.length + " connections)", first.peer(), messages, first.unit(), bytes, elapsed,
                stalls, all == null ? -1 : all.quantile(0.5), all == null ? -1 : all.quantile(0.99), first.latencyKind(),
                "every connection confirmed by the server (" + results.length + " runs); the first: "
                        + first.confirmation(), first.cpu(), List.of(results));
    }

    /**
     * Starts a perf server end on {@link PerfOptions#listen()} over {@link PerfOptions#provider()}
     * (the selected provider when none is named).
     *
     * @return the listener; closing it stops accepting
     */
    public static SmbDirectListener serve(SmbDirectTransport transport, PerfOptions options) throws PerfException {
        return serve(transport, options, new PerfServer());
    }

    /**
     * As {@link #serve(SmbDirectTransport, PerfOptions)}, with {@code server} (whose counters tell
     * what the runs delivered) as the accept handler.
     */
    public static SmbDirectListener serve(SmbDirectTransport transport, PerfOptions options, PerfServer server)
            throws PerfException {
        if (options.listen() == null) {
            throw new PerfException("a perf server end needs --listen host:port");
        }
        SmbDirectTransport on = options.provider() == null ? transport : transport.onProvider(options.provider());
        try {
            return on.listen(options.listen(), server);
        } catch (SmbDirectException e) {
            throw new PerfException("cannot listen on " + options.listen() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Starts a perf server end on {@code address}.
     *
     * @return the listener; closing it stops accepting
     */
    public static SmbDirectListener serve(SmbDirectTransport transport, InetSocketAddress address) throws PerfException {
        try {
            return transport.listen(address, new PerfServer());
        } catch (SmbDirectException e) {
            throw new PerfException("cannot listen on " + address + ": " + e.getMessage(), e);
        }
    }

    /**
     * The first open listener with a specific address (on {@link PerfOptions#provider()} when one is
     * named), or {@code null} when {@code --local} is given.
     *
     * @throws PerfException when neither --local nor such a listener gives an address
     */
    private static ListenerDTO localListener(SmbDirectTransport transport, PerfOptions options) throws PerfException {
        if (options.local() != null) {
            return null;
        }
        ListenerDTO[] listeners = transport.getTransportDTO().listeners;
        if (listeners != null) {
            for (ListenerDTO l : listeners) {
                if ("OPEN".equals(l.state) && l.address != null
                        && (options.provider() == null || options.provider().equals(l.provider))
                        && addressOf(l) != null) {
                    return l;
                }
            }
        }
        throw new PerfException("no local RDMA address known" + (options.provider() == null ? ""
                : " on provider " + options.provider()) + ": pass --local IP (the device's address), "
                + "or --connect host:port");
    }

    /** A listener's specific address, or {@code null} for a wildcard or an unparsable one. */
    private static InetAddress addressOf(ListenerDTO l) {
        String host = l.address.substring(0, Math.max(0, l.address.lastIndexOf(':')));
        host = host.startsWith("/") ? host.substring(1) : host;
        try {
            InetAddress ip = InetAddress.getByName(host);
            return ip.isAnyLocalAddress() ? null : ip;
        } catch (UnknownHostException e) {
            LOG.debug("listener address {} not usable: {}", l.address, e.toString());
            return null;
        }
    }

    /** Waits for every client's result; a RECEIVE run for a duration is stopped when its time is up. */
    private static PerfClient.Counts[] await(PerfClient[] clients, PerfOptions options)
            throws PerfException, InterruptedException {
        long timeoutNanos = options.timeout().toNanos();
        long start = System.nanoTime();
        PerfClient.Counts[] counts = new PerfClient.Counts[clients.length];
        try {
            if (options.duration() != null && options.direction() == PerfDirection.RECEIVE) {
                long end = start + options.warmup().plus(options.duration()).toNanos();
                for (PerfClient client : clients) {
                    try {
                        client.result().get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (TimeoutException expected) {
                        // its time is up: stopped below
                    }
                }
                for (PerfClient client : clients) {
                    client.stopStream();
                }
            }
            for (int i = 0; i < clients.length; i++) {
                long left = Math.max(1, timeoutNanos - (System.nanoTime() - start));
                counts[i] = clients[i].result().get(left, TimeUnit.NANOSECONDS);
            }
            return counts;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof PerfException p) {
                throw p;
            }
            throw new PerfException("perf run failed: " + message(cause), cause);
        } catch (TimeoutException e) {
            throw new PerfException("perf run did not finish within " + options.timeout().toSeconds()
                    + " s (raise --timeout, or lower --count)");
        }
    }

    private static void closeQuietly(SmbDirectConnection[] connections, SmbDirectListener listener)
            throws InterruptedException {
        CompletableFuture<?>[] closing = new CompletableFuture<?>[connections.length];
        for (int i = 0; i < connections.length; i++) {
            closing[i] = connections[i] == null ? CompletableFuture.completedFuture(null)
                    : connections[i].close().toCompletableFuture();
        }
        try {
            CompletableFuture.allOf(closing).get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("closing the perf connections failed: {}", e.toString());
        }
        try {
            if (listener != null) {
                listener.close().toCompletableFuture().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("closing the perf listener failed: {}", e.toString());
        }
    }

    private static String message(Throwable t) {
        if (t == null) {
            return "unknown failure";
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    private static String text(InetSocketAddress a) {
        return a == null ? "?" : a.getHostString() + ":" + a.getPort();
    }
}
