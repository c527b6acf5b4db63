package smbdirect.perf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
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
     * that address.
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
        SmbDirectConnection connection = null;
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
            PerfClient client = new PerfClient(options);
            try {
                connection = on.connect(peer, CONNECT_TIMEOUT, client).toCompletableFuture()
                        .get(CONNECT_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
            } catch (ExecutionException | CompletionException e) {
                throw new PerfException("cannot connect to " + peer + ": " + message(e.getCause()), e.getCause());
            } catch (TimeoutException e) {
                throw new PerfException("connecting to " + peer + " did not finish within " + CONNECT_TIMEOUT.toSeconds()
                        + " s");
            }
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
            long stallsBefore = connection.getConnectionDTO().creditStalls;
            stop.whenComplete((v, t) -> client.finishNow()); // before the start: no completion races it
            client.start(connection);
            PerfClient.Counts counts = await(client, options);
            ConnectionDTO after = connection.getConnectionDTO();
            return new PerfResult(options.describe(), connection.providerName(), after.providerDetail,
                    text(connection.localAddress()), text(connection.peerAddress()), counts.messages(),
                    options.direction().isRdma() ? "RDMA " + options.direction().label() + "s" : "messages", counts.bytes(),
                    counts.elapsedNanos(), after.creditStalls - stallsBefore, counts.p50(), counts.p99(),
                    switch (options.direction()) {
                        case PINGPONG -> "round-trip";
                        case WRITE, READ -> "RDMA completion";
                        default -> "send-completion";
                    }, counts.confirmation(), counts.cpu());
        } finally {
            closeQuietly(connection, listener);
        }
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

    private static PerfClient.Counts await(PerfClient client, PerfOptions options)
            throws PerfException, InterruptedException {
        long timeoutNanos = options.timeout().toNanos();
        long start = System.nanoTime();
        try {
            if (options.duration() != null && options.direction() == PerfDirection.RECEIVE) {
                try {
                    return client.result().get(options.warmup().plus(options.duration()).toNanos(),
                            TimeUnit.NANOSECONDS);
                } catch (TimeoutException expected) {
                    client.stopStream();
                }
            }
            long left = Math.max(1, timeoutNanos - (System.nanoTime() - start));
            return client.result().get(left, TimeUnit.NANOSECONDS);
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

    private static void closeQuietly(SmbDirectConnection connection, SmbDirectListener listener)
            throws InterruptedException {
        try {
            if (connection != null) {
                connection.close().toCompletableFuture().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
            }
            if (listener != null) {
                listener.close().toCompletableFuture().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("closing the perf connection or listener failed: {}", e.toString());
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
