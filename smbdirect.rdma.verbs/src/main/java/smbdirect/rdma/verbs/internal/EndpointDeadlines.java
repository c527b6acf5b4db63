package smbdirect.rdma.verbs.internal;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;

/**
 * The deadlines of one {@link VerbsEndpoint}, checked by its group thread each round while the
 * group watches the endpoint: a phase of connection establishment that got no answer in time ends
 * the connect (UNREACHABLE or CONNECT_ERROR, naming the phase); an endpoint whose queue pair is
 * known to be in error has what is outstanding completed as FLUSHED; an ending endpoint waits for
 * the device's flushes until {@code flushTimeoutMillis}. Group thread only.
 */
final class EndpointDeadlines {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);

    private final VerbsEndpoint endpoint;
    private final EndpointSetup setup;
    private final VerbsSettings settings;
    private final CompletionGroup group;
    /** When an ending endpoint stops waiting for the device's flushes (the group's clock). */
    private long drainDeadline;

    EndpointDeadlines(VerbsEndpoint endpoint, EndpointSetup setup, VerbsSettings settings, CompletionGroup group) {
        this.endpoint = endpoint;
        this.setup = setup;
        this.settings = settings;
        this.group = group;
    }

    /** The endpoint began ending with its queue pair live: the device's flushes are awaited from now. */
    void drainFromNow() {
        drainDeadline = group.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.flushTimeoutMillis());
    }

    /**
     * Group thread, each round after the completion queue was polled dry, while the group watches
     * this endpoint: a phase of connection establishment that ran out of time ends the connect;
     * with the queue pair known to be in error, what is still outstanding completes as FLUSHED now
     * (every completion the device had produced has just been delivered, in order); an ending
     * endpoint otherwise waits for the device's flushes until {@code flushTimeoutMillis}. Returns
     * true when the endpoint no longer needs watching.
     */
    boolean check(long now) {
        VerbsEndpoint.State s;
        String inError;
        long started;
        synchronized (endpoint.lock) {
            s = endpoint.stateHeld();
            inError = endpoint.queuePairErrorHeld();
            started = setup.phaseStartedHeld();
        }
        switch (s) {
            case RESOLVING_ADDRESS, RESOLVING_ROUTE, CONNECTING, ACCEPTING -> {
                boolean resolving = s == VerbsEndpoint.State.RESOLVING_ADDRESS
                        || s == VerbsEndpoint.State.RESOLVING_ROUTE;
                // a resolution's time is the kernel's to keep (resolveTimeoutMillis is given to
                // rdma_resolve_addr / rdma_resolve_route, whose ADDR_ERROR / ROUTE_ERROR ends it): the
                // provider's own watch is a backstop for a kernel that never answers, at twice that, so an
                // answer the kernel gave in time is never overtaken while it is being handed over (a slow
                // JVM: a guest under emulation takes seconds for a first native call)
                int limit = resolving ? VerbsEndpoint.RESOLVE_BACKSTOP_FACTOR * settings.resolveTimeoutMillis()
                        : settings.connectTimeoutMillis();
                if (now - started - TimeUnit.MILLISECONDS.toNanos(limit) < 0) {
                    return false;
                }
                timedOut(s, limit);
                // else still watched: for the device's flushes
                return endpoint.state() != VerbsEndpoint.State.DISCONNECTING;
            }
            case ESTABLISHED -> {
                if (inError != null) {
                    endpoint.flushOutstanding();
                }
                return true;
            }
            case DISCONNECTING -> {
                if (inError != null) {
                    LOG.debug("{}: the queue pair is in the error state ({}); completing {} sends and {} receives "
                            + "as FLUSHED", endpoint, inError, endpoint.outstandingSends(),
                            endpoint.outstandingReceives());
                } else if (now - drainDeadline < 0) {
                    return false;
                } else {
                    LOG.warn("{}: {} sends and {} receives not flushed by the device within {} ms; completing them "
                            + "as FLUSHED", endpoint, endpoint.outstandingSends(), endpoint.outstandingReceives(),
                            settings.flushTimeoutMillis());
                }
                endpoint.flushOutstanding();
                endpoint.maybeFinish();
                return true;
            }
            default -> {
                return true;
            }
        }
    }

    /** Group thread: a phase of connection establishment got no answer within its time. */
    private void timedOut(VerbsEndpoint.State phase, int limitMillis) {
        InetSocketAddress address = endpoint.peerAddress();
        String peer = address == null || address.getAddress() == null ? String.valueOf(address)
                : (address.getAddress() instanceof Inet4Address ? address.getAddress().getHostAddress()
                        : "[" + address.getAddress().getHostAddress() + "]") + ":" + address.getPort();
        String text = switch (phase) {
            case RESOLVING_ADDRESS -> "connect to " + peer + ": address resolution (rdma_resolve_addr) got no answer "
                    + "within " + limitMillis + " ms (twice resolveTimeoutMillis, the kernel's own time for it)";
            case RESOLVING_ROUTE -> "connect to " + peer + ": route resolution (rdma_resolve_route) got no answer "
                    + "within " + limitMillis + " ms (twice resolveTimeoutMillis, the kernel's own time for it)";
            case CONNECTING -> "connect to " + peer + ": the connect (rdma_connect) was not established within "
                    + limitMillis + " ms (connectTimeoutMillis): the peer did not answer";
            default -> "accept from " + peer + ": the accepted connection (rdma_accept) was not established within "
                    + limitMillis + " ms (connectTimeoutMillis): the peer did not complete it";
        };
        LOG.debug("{}: {}", endpoint, text);
        endpoint.endOnGroup(phase == VerbsEndpoint.State.RESOLVING_ADDRESS
                || phase == VerbsEndpoint.State.RESOLVING_ROUTE ? DisconnectCause.UNREACHABLE
                        : DisconnectCause.CONNECT_ERROR, text);
    }
}
