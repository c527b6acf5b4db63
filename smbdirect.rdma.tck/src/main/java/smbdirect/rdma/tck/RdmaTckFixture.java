package smbdirect.rdma.tck;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

import smbdirect.api.rdma.RdmaProvider;

/**
 * What the contract suite needs from a provider under test: two providers (devices) that can reach
 * each other, the address a listener of the server provider binds to, and a way to let the
 * providers make progress. One fixture per test.
 */
public abstract class RdmaTckFixture {

    /** The provider of the active (connecting) side. */
    public abstract RdmaProvider clientProvider();

    /** The provider of the passive (listening) side; may be the same as the client's. */
    public abstract RdmaProvider serverProvider();

    /** The address a listener of {@link #serverProvider()} on {@code port} binds to and clients connect to. */
    public abstract InetSocketAddress serverAddress(int port);

    /**
     * Lets the providers make progress on the calling thread (a deterministic provider runs its
     * queued work here); providers with their own threads do nothing. Called repeatedly while the
     * suite waits for a condition.
     */
    public void settle() {
    }

    /** Whether callbacks may be delivered re-entrantly from inside a {@code post} call on the caller's thread. */
    public boolean inlineCallbacks() {
        return false;
    }

    /**
     * Whether the provider can tell a connect that found no listener from a consumer's reject. The
     * SPI reports the former as {@code UNREACHABLE}; a provider whose connection manager reports
     * both as a reject without a reason it can read (librdmacm's REJECTED, as surfaced by DiSNI
     * 2.0) returns false, and the suite then expects {@code REJECTED} there.
     */
    public boolean reportsMissingListenerAsUnreachable() {
        return true;
    }

    /**
     * Whether a Send or RDMA Write completes only once the peer acknowledged it, as on InfiniBand
     * and RoCE reliable connections: a completed Write is then placed at the peer, and a failure at
     * the receiver (receiver not ready, remote invalid request, remote access error) is the status
     * of the completion. iWARP (RFC 5040) has no acknowledgement: a Send or RDMA Write completes once
     * handed to TCP, its data is placed when the peer gets to it (a later Read Response or message of
     * the peer proves it), and a failure at the receiver (no receive posted, a receive too short, a
     * bad STag, access right or bounds for a Write) reaches the sender only as the peer's Terminate,
     * which breaks the connection. A provider returning false: the suite expects such a Send or Write
     * to complete with SUCCESS and the connection to end on both sides with QP_ERROR at the sender,
     * everything else flushed, and looks at written memory only after a later Read completed. RDMA
     * Read failures are reported in the Read's completion by every provider.
     */
    public boolean sendsAndWritesCompleteOnAcknowledgement() {
        return true;
    }

    /**
     * Whether the connection manager hands over private data zero-padded to the fixed size of its
     * message field: the InfiniBand CM does (so RoCE too: 56 bytes for a request, 196 for an accept,
     * 148 for a reject, whatever was sent); iWARP's MPA carries the length sent. A provider returning
     * true: the suite expects the bytes sent followed by nothing but zeros.
     */
    public boolean padsPrivateData() {
        return false;
    }

    /**
     * A documented way a real device departs from what the SPI promises, where the device gives the
     * provider nothing to keep the promise with. A fixture declares the facts of its device with
     * their reasons ({@link #deviceFacts()}); the suite then accepts the device's outcome besides the
     * contract's in the tests concerned, says so on the console, and still fails on anything else.
     */
    public enum DeviceFact {
        /**
         * A failure at the peer (iWARP: the peer's Terminate) reaches the requester only as its
         * outstanding requests flushed and the connection manager's disconnect: a refused RDMA Read
         * completes FLUSHED instead of REMOTE_ACCESS_ERROR, and the requester's connection ends as
         * PEER instead of QP_ERROR.
         */
        PEER_FAILURE_SEEN_AS_DISCONNECT,
        /**
         * A receive shorter than the message is reported as a general error, not a length error: at
         * the receiver GENERAL_ERROR instead of LOCAL_LENGTH_ERROR, at the sender GENERAL_ERROR.
         */
        SHORT_RECEIVE_NOT_A_LENGTH_ERROR,
        /** An RDMA Read of a region registered without REMOTE_READ is served instead of refused. */
        READ_WITHOUT_REMOTE_READ_SERVED,
        /**
         * A peer's Send with Invalidate naming the receiver's region invalidates it, but the receive
         * completion does not say so: the receiver sees a plain message (no invalidated token) and
         * its region still looks valid to it; an RDMA access to the token fails all the same.
         */
        INVALIDATION_NOT_REPORTED
    }

    /**
     * The facts of the device under test, each with its reason: the device, the kernel or driver
     * version it was seen on and where in the device's source the behaviour comes from. None by
     * default.
     */
    public Map<DeviceFact, String> deviceFacts() {
        return Map.of();
    }

    /** How long the suite waits for an expected callback before it fails. */
    public Duration timeout() {
        return Duration.ofSeconds(10);
    }

    /**
     * Called after the test closed every endpoint and listener it made: releases the providers and
     * fails when something was left behind.
     */
    public abstract void close() throws Exception;
}
