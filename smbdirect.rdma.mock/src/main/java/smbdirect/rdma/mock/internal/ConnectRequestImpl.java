package smbdirect.rdma.mock.internal;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;

/** A connection request in flight. Thread-safe: state guarded by the active endpoint's lock. */
final class ConnectRequestImpl implements RdmaConnectRequest {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectRequestImpl.class);

    enum Phase {
        PENDING, CREATED, ACCEPTED, REJECTED, ABANDONED
    }

    final MockQueuePair active;
    final MockListener listener;
    final byte[] privateData;
    final int inboundReadDepth;
    final int outboundReadDepth;
    private final InetSocketAddress peerAddress;
    Phase phase = Phase.PENDING;
    MockQueuePair passive;

    ConnectRequestImpl(MockQueuePair active, MockListener listener, byte[] privateData, int inboundReadDepth,
            int outboundReadDepth, InetSocketAddress peerAddress) {
        this.active = active;
        this.listener = listener;
        this.privateData = privateData;
        this.inboundReadDepth = inboundReadDepth;
        this.outboundReadDepth = outboundReadDepth;
        this.peerAddress = peerAddress;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peerAddress;
    }

    @Override
    public InetSocketAddress localAddress() {
        return listener.connectAddress();
    }

    @Override
    public ByteBuffer privateData() {
        return ByteBuffer.wrap(privateData).asReadOnlyBuffer();
    }

    @Override
    public int peerInboundReadDepth() {
        return inboundReadDepth;
    }

    @Override
    public int peerOutboundReadDepth() {
        return outboundReadDepth;
    }

    boolean isOpen() {
        return phase == Phase.PENDING || phase == Phase.CREATED;
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        synchronized (active.lock) {
            if (phase != Phase.PENDING) {
                throw new RdmaException("connection request " + this + " is " + phase + ": cannot create an endpoint");
            }
        }
        MockQueuePair created;
        try {
            created = listener.provider.newEndpoint(config, handler, false, active.lock);
        } catch (RdmaException | RuntimeException e) {
            reject(null);
            throw e;
        }
        synchronized (active.lock) {
            if (phase == Phase.PENDING) {
                phase = Phase.CREATED;
                passive = created;
                created.initPassive(this);
                return created;
            }
        }
        created.close();
        throw new RdmaException("connection request " + this + " was abandoned while its endpoint was created");
    }

    @Override
    public void reject(ByteBuffer rejectData) {
        byte[] bytes = MockQueuePair.copy(rejectData);
        MockQueuePair release = null;
        synchronized (active.lock) {
            if (!isOpen()) {
                LOG.debug("Reject of {} ignored: request is {}", this, phase);
                return;
            }
            if (phase == Phase.CREATED && passive.stateUnderLock() != smbdirect.rdma.mock.MockEndpoint.State.CONNECTED) {
                release = passive;
            }
            phase = Phase.REJECTED;
            active.fabric.pendingRequests.remove(this);
            active.requestEnded(this, DisconnectCause.REJECTED, "connection rejected by " + localAddress(), bytes);
        }
        if (release != null) {
            release.close();
        }
        active.signal();
    }

    /** The request cannot go on (listener gone, passive released): the active side gets CONNECT_ERROR. */
    void abandon(String detail) {
        abandon(DisconnectCause.CONNECT_ERROR, detail);
    }

    /** The request cannot go on: the active side gets {@code cause}. */
    void abandon(DisconnectCause cause, String detail) {
        synchronized (active.lock) {
            if (!isOpen()) {
                return;
            }
            phase = Phase.ABANDONED;
            active.fabric.pendingRequests.remove(this);
            active.requestEnded(this, cause, detail, MockQueuePair.NO_BYTES);
        }
        active.signal();
    }

    @Override
    public String toString() {
        return "ConnectRequest[" + peerAddress + " -> " + listener.connectAddress() + ", endpoint " + active.id() + "]";
    }
}
