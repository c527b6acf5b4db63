package smbdirect.impl.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import smbdirect.api.AcceptHandler;
import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.ConnectionParameters;
import smbdirect.api.RdmaCompletionHandler;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.impl.engine.Scheduler;
import smbdirect.impl.engine.TransportSettings;

/**
 * Small fakes for testing the transport over several providers, and its OSGi components, without an
 * engine or a framework.
 */
public final class Fakes {

    private Fakes() {
    }

    /** Service properties of a provider: its name, ranking and service id. */
    public static Map<String, Object> props(String name, int ranking, long serviceId) {
        Map<String, Object> p = new Hashtable<>();
        p.put(RdmaProvider.PROVIDER_NAME, name);
        p.put("service.ranking", ranking);
        p.put("service.id", serviceId);
        return p;
    }

    /** A provider that only names itself (the fake engine does the rest). */
    public static class FakeProvider implements RdmaProvider {
        public final String name;

        public FakeProvider(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public TransportType transportType() {
            return TransportType.ROCE;
        }

        @Override
        public RdmaCapabilities capabilities() {
            return new RdmaCapabilities(256, 256, 2, 64, 1 << 30, 16, 16, 1L << 30, true);
        }

        @Override
        public RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException {
            throw new RdmaException("fake provider " + name + " is driven through its fake engine");
        }

        @Override
        public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
            throw new RdmaException("fake provider " + name + " is driven through its fake engine");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Creates fake engines and remembers them by provider name. */
    public static final class FakeEngines implements ProviderEngine.Factory {
        public final Map<String, FakeEngine> byName = new HashMap<>();
        public final AtomicLong ids = new AtomicLong();
        /** When set, every engine numbers its connections from 1, as real engines do. */
        public volatile boolean idsPerEngine;

        @Override
        public ProviderEngine create(RdmaProvider provider, TransportSettings settings, Scheduler scheduler) {
            FakeEngine e = new FakeEngine(provider.name(), settings, idsPerEngine ? new AtomicLong() : ids);
            byName.put(provider.name(), e);
            return e;
        }

        public FakeEngine get(String name) {
            return byName.get(name);
        }
    }

    /** An engine that connects at once, listens on a port table, and records what happened. */
    public static final class FakeEngine implements ProviderEngine {
        public final String provider;
        public final AtomicLong ids;
        public final List<TransportSettings> settingsSeen = new CopyOnWriteArrayList<>();
        public final List<FakeConnection> connections = new CopyOnWriteArrayList<>();
        public final List<FakeConnection> closed = new CopyOnWriteArrayList<>();
        public final List<FakeListener> listeners = new CopyOnWriteArrayList<>();
        public final List<FakeListener> everListened = new CopyOnWriteArrayList<>();
        public volatile CloseReason shutdownReason;
        /** When set, shutdown closes connections with this reason (as a connection that saw its peer go first). */
        public volatile CloseReason closeOnShutdownAs;
        public volatile int failNextBinds;
        public int nextPort = 40000;

        public FakeEngine(String provider, TransportSettings settings, AtomicLong ids) {
            this.provider = provider;
            this.ids = ids;
            settingsSeen.add(settings);
        }

        public TransportSettings settings() {
            return settingsSeen.get(settingsSeen.size() - 1);
        }

        @Override
        public synchronized SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
                ListenerEventHandler events) throws SmbDirectException {
            if (shutdownReason != null) {
                throw MultiProviderTransport.noProvider("engine stopped");
            }
            if (failNextBinds > 0) {
                failNextBinds--;
                throw new SmbDirectException(SmbDirectException.Kind.PROVIDER_ERROR, "address in use: " + bindAddress);
            }
            int port = bindAddress.getPort() == 0 ? nextPort++ : bindAddress.getPort();
            for (FakeListener l : listeners) {
                if (l.address.getPort() == port) {
                    throw new SmbDirectException(SmbDirectException.Kind.PROVIDER_ERROR, "address in use: " + port);
                }
            }
            FakeListener l = new FakeListener(this, new InetSocketAddress(bindAddress.getAddress(), port), acceptHandler);
            listeners.add(l);
            everListened.add(l);
            return l;
        }

        /** A peer connects to the listener on {@code port}: returns the accepted connection or null. */
        public FakeConnection arrive(int port, InetSocketAddress peer) {
            for (FakeListener l : listeners) {
                if (l.address.getPort() == port) {
                    l.requests++;
                    FakeConnection c = new FakeConnection(this, ids.incrementAndGet(), false, l.address, peer);
                    ConnectionHandler h = l.acceptHandler.accepted(c);
                    if (h == null) {
                        c.close();
                        return null;
                    }
                    l.accepted++;
                    c.handler = h;
                    connections.add(c);
                    return c;
                }
            }
            return null;
        }

        @Override
        public CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout,
                ConnectionHandler handler) {
            if (shutdownReason != null) {
                return CompletableFuture.failedFuture(MultiProviderTransport.noProvider("engine stopped"));
            }
            FakeConnection c = new FakeConnection(this, ids.incrementAndGet(), true,
                    new InetSocketAddress("127.0.0.1", 50000), peer);
            c.handler = handler;
            connections.add(c);
            return CompletableFuture.completedFuture(c);
        }

        @SuppressWarnings("removal") // the deprecated lastNegotiationFailure still works
        @Override
        public TransportDTO getTransportDTO() {
            TransportDTO dto = new TransportDTO();
            dto.connections = connections.stream().map(FakeConnection::getConnectionDTO).toArray(ConnectionDTO[]::new);
            dto.recentlyClosed = closed.stream().map(FakeConnection::getConnectionDTO).toArray(ConnectionDTO[]::new);
            dto.listeners = listeners.stream().map(FakeListener::getListenerDTO).toArray(ListenerDTO[]::new);
            dto.negotiationFailures = 1;
            dto.lastNegotiationFailure = "failure on " + provider;
            return dto;
        }

        @Override
        public void updateSettings(TransportSettings settings) {
            settingsSeen.add(settings);
        }

        @Override
        public CompletionStage<Void> closeConnection(long id, CloseReason reason) {
            for (FakeConnection c : connections) {
                if (c.id() == id) {
                    c.closeWith(reason);
                    return CompletableFuture.completedFuture(null);
                }
            }
            return null;
        }

        @Override
        public CompletionStage<Void> shutdown(CloseReason reason) {
            shutdownReason = reason;
            for (FakeListener l : List.copyOf(listeners)) {
                l.close();
            }
            for (FakeConnection c : List.copyOf(connections)) {
                c.closeWith(closeOnShutdownAs != null ? closeOnShutdownAs : reason);
            }
            return CompletableFuture.completedFuture(null);
        }
    }

    public static final class FakeListener implements SmbDirectListener {
        public final FakeEngine engine;
        public final InetSocketAddress address;
        public final AcceptHandler acceptHandler;
        public volatile boolean open = true;
        public long requests;
        public long accepted;

        public FakeListener(FakeEngine engine, InetSocketAddress address, AcceptHandler acceptHandler) {
            this.engine = engine;
            this.address = address;
            this.acceptHandler = acceptHandler;
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public String providerName() {
            return engine.provider;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public ListenerDTO getListenerDTO() {
            ListenerDTO dto = new ListenerDTO();
            dto.address = RelocatingListener.hostPort(address);
            dto.provider = engine.provider;
            dto.state = open ? "OPEN" : "CLOSED";
            dto.connectRequests = requests;
            dto.accepted = accepted;
            return dto;
        }

        @Override
        public CompletionStage<Void> close() {
            open = false;
            engine.listeners.remove(this);
            return CompletableFuture.completedFuture(null);
        }
    }

    public static final class FakeConnection implements SmbDirectConnection {
        public final FakeEngine engine;
        public final long id;
        public final boolean initiator;
        public final InetSocketAddress local;
        public final InetSocketAddress peer;
        public final List<CloseReason> disconnects = new CopyOnWriteArrayList<>();
        public volatile ConnectionHandler handler;
        public volatile CloseReason closeReason;
        public volatile long closedMillis;

        public FakeConnection(FakeEngine engine, long id, boolean initiator, InetSocketAddress local, InetSocketAddress peer) {
            this.engine = engine;
            this.id = id;
            this.initiator = initiator;
            this.local = local;
            this.peer = peer;
        }

        public void closeWith(CloseReason reason) {
            if (closeReason != null) {
                return;
            }
            closeReason = reason;
            closedMillis = System.currentTimeMillis();
            engine.connections.remove(this);
            engine.closed.add(this);
            disconnects.add(reason);
            if (handler != null) {
                handler.onDisconnected(this, reason);
            }
        }

        @Override
        public long id() {
            return id;
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public InetSocketAddress peerAddress() {
            return peer;
        }

        @Override
        public String providerName() {
            return engine.provider;
        }

        @Override
        public boolean isInitiator() {
            return initiator;
        }

        @Override
        public boolean isOpen() {
            return closeReason == null;
        }

        @Override
        public void send(ByteBuffer message, SendCompletion completion) {
            completion.sendComplete(message, closeReason == null ? null : SmbDirectException.closed(closeReason));
        }

        @Override
        public void sendWithInvalidate(ByteBuffer message, int remoteToken, SendCompletion completion) {
            send(message, completion);
        }

        @Override
        public CompletionStage<RegisteredBuffer> register(ByteBuffer buffer, RemoteAccess access) {
            return CompletableFuture.failedFuture(
                    new SmbDirectException(SmbDirectException.Kind.RESOURCE, "fake connections register nothing"));
        }

        @Override
        public void rdmaWrite(RegisteredBuffer source, int sourceOffset, int length, List<BufferDescriptor> remote,
                long remoteOffset, RdmaCompletionHandler completion) {
            throw new IllegalStateException("fake connections move no data");
        }

        @Override
        public void rdmaRead(RegisteredBuffer destination, int destinationOffset, int length,
                List<BufferDescriptor> remote, long remoteOffset, RdmaCompletionHandler completion) {
            throw new IllegalStateException("fake connections move no data");
        }

        @Override
        public ConnectionParameters parameters() {
            TransportSettings s = engine.settings();
            return new ConnectionParameters(s.maxSendSize(), s.maxFragmentedRecvSize(), s.maxReceiveSize(),
                    s.maxFragmentedRecvSize(), s.maxReadWriteSize(), s.keepaliveInterval(), 8, 8, true);
        }

        @Override
        public ConnectionDTO getConnectionDTO() {
            ConnectionDTO dto = new ConnectionDTO();
            dto.id = id;
            dto.provider = engine.provider;
            dto.role = initiator ? "ACTIVE" : "PASSIVE";
            dto.state = closeReason == null ? "ESTABLISHED" : "CLOSED";
            dto.closeReason = closeReason == null ? null : closeReason.toString();
            dto.closedMillis = closedMillis;
            return dto;
        }

        @Override
        public CompletionStage<Void> close() {
            closeWith(CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "closed locally"));
            return CompletableFuture.completedFuture(null);
        }
    }

    /** The upper layer's handler behind the transport's wrapper. */
    public static ConnectionHandler upper(ConnectionHandler h) {
        return h instanceof ProviderBoundHandler w ? w.delegate() : h;
    }

    /** Records the disconnect reasons a connection handler receives. */
    public static final class RecordingHandler implements ConnectionHandler {
        public final List<CloseReason> reasons = new ArrayList<>();

        @Override
        public void onMessage(SmbDirectConnection connection, smbdirect.api.ReceivedMessage message) {
        }

        @Override
        public synchronized void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            reasons.add(reason);
        }
    }

}
