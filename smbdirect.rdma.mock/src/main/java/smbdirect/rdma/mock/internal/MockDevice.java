package smbdirect.rdma.mock.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockProvider;

/** A simulated device. Thread-safe. */
final class MockDevice implements MockProvider {
    private static final Logger LOG = LoggerFactory.getLogger(MockDevice.class);

    final FabricImpl fabric;
    private final String name;
    private final TransportType transportType;
    private final InetAddress address;
    private volatile RdmaCapabilities capabilities;
    private final AtomicInteger failRegistrations = new AtomicInteger();
    private volatile byte[] refusal;
    private volatile boolean removed;
    final Set<MockQueuePair> endpoints = ConcurrentHashMap.newKeySet();
    final Set<MockListener> listeners = ConcurrentHashMap.newKeySet();

    MockDevice(FabricImpl fabric, String name, TransportType transportType, RdmaCapabilities capabilities,
            InetAddress address) {
        this.fabric = fabric;
        this.name = name;
        this.transportType = transportType;
        this.capabilities = capabilities;
        this.address = address;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public TransportType transportType() {
        return transportType;
    }

    @Override
    public RdmaCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(handler, "handler");
        checkUsable("listen");
        InetAddress ip = bindAddress.getAddress();
        if (bindAddress.isUnresolved() || (!ip.isAnyLocalAddress() && !ip.equals(address))) {
            throw new RdmaException("cannot bind " + bindAddress + ": device " + name + " has address "
                    + address.getHostAddress());
        }
        if (bindAddress.getPort() < 0 || bindAddress.getPort() > 65535) {
            throw new RdmaException("cannot bind port " + bindAddress.getPort());
        }
        int port = bindAddress.getPort() == 0 ? fabric.ephemeralPort() : bindAddress.getPort();
        InetSocketAddress key = new InetSocketAddress(address, port);
        InetSocketAddress bound = new InetSocketAddress(ip, port);
        MockListener listener = new MockListener(fabric, this, handler, key, bound);
        MockListener existing = fabric.bind(listener, key);
        if (existing != null) {
            throw new RdmaException("cannot bind " + bound + ": address in use by " + existing);
        }
        listeners.add(listener);
        if (removed) {
            listener.close();
            throw new RdmaException("device " + name + " was removed");
        }
        return listener;
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        return newEndpoint(config, handler, true, new Object());
    }

    MockQueuePair newEndpoint(EndpointSettings config, RdmaEndpointHandler handler, boolean active, Object lock)
            throws RdmaException {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(handler, "handler");
        checkUsable("createEndpoint");
        RdmaCapabilities caps = capabilities;
        if (config.sendQueueDepth() > caps.maxSendWorkRequests()) {
            throw new RdmaException("send queue depth " + config.sendQueueDepth()
                    + " exceeds the device limit maxSendWorkRequests " + caps.maxSendWorkRequests());
        }
        if (config.receiveQueueDepth() > caps.maxReceiveWorkRequests()) {
            throw new RdmaException("receive queue depth " + config.receiveQueueDepth()
                    + " exceeds the device limit maxReceiveWorkRequests " + caps.maxReceiveWorkRequests());
        }
        MockQueuePair endpoint = new MockQueuePair(fabric, this, caps, config, handler, active, lock);
        endpoints.add(endpoint);
        fabric.endpointCreated(endpoint);
        return endpoint;
    }

    void checkUsable(String operation) throws RdmaException {
        if (fabric.isClosed()) {
            throw new RdmaException(operation + " failed: fabric " + fabric.name() + " is shut down");
        }
        if (removed) {
            throw new RdmaException(operation + " failed: device " + name + " was removed");
        }
    }

    /** Whether a registration must fail now (consumes one injected failure). */
    boolean takeRegistrationFailure() {
        return failRegistrations.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    byte[] refusal() {
        return refusal;
    }

    void released(MockQueuePair endpoint) {
        endpoints.remove(endpoint);
        fabric.endpoints.remove(endpoint);
    }

    @Override
    public void setCapabilities(RdmaCapabilities value) {
        this.capabilities = FabricImpl.checkCapabilities(Objects.requireNonNull(value, "capabilities"));
    }

    @Override
    public void failNextRegistrations(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        failRegistrations.set(count);
    }

    @Override
    public void refuseConnections(byte[] privateData) {
        refusal = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public void acceptConnections() {
        refusal = null;
    }

    @Override
    public void removeDevice() {
        removed = true;
        LOG.info("Device {} of fabric {} removed", name, fabric.name());
        shutdown(DisconnectCause.DEVICE_REMOVED, "device " + name + " removed");
    }

    void shutdown(DisconnectCause cause, String detail) {
        for (MockListener l : new ArrayList<>(listeners)) {
            l.fail(cause, detail);
        }
        List<MockQueuePair> list = new ArrayList<>(endpoints);
        list.sort((a, b) -> Long.compare(a.id(), b.id()));
        for (MockQueuePair e : list) {
            e.deviceGone(cause, detail);
        }
    }

    @Override
    public void restoreDevice() {
        removed = false;
    }

    @Override
    public boolean isDeviceRemoved() {
        return removed;
    }

    @Override
    public List<MockEndpoint> endpoints() {
        List<MockEndpoint> list = new ArrayList<>(endpoints);
        list.sort((a, b) -> Long.compare(a.id(), b.id()));
        return List.copyOf(list);
    }

    @Override
    public String toString() {
        return "MockProvider[" + name + ", " + transportType + ", " + address.getHostAddress() + "]";
    }
}
