package smbdirect.impl.transport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

import smbdirect.api.AcceptHandler;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.impl.engine.Scheduler;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.trace.TraceSink;

/**
 * The protocol engine over one RDMA provider, as {@link MultiProviderTransport} uses it. Implementations are
 * thread-safe.
 */
public interface ProviderEngine {

    /** Opens a listener on this engine's provider; {@code events} (may be null) is told of its events. */
    SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler, ListenerEventHandler events)
            throws SmbDirectException;

    /** Connects over this engine's provider. */
    CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout, ConnectionHandler handler);

    /** A snapshot of this engine's state. */
    TransportDTO getTransportDTO();

    /** New connections negotiate with {@code settings}; timers of live connections follow them. */
    void updateSettings(TransportSettings settings);

    /**
     * The counters that only go up of this engine's connections, also after its provider left
     * (it is not asked); engines that keep none (test doubles) answer those of their DTO.
     */
    default CountersDTO counters() {
        TransportDTO d = getTransportDTO();
        return d.providers == null || d.providers.length == 0 ? null : d.providers[0].counters;
    }

    /**
     * Installs the sink told of every message of this engine's connections. Engines without
     * tracing (test doubles) ignore it.
     */
    default void setTraceSink(TraceSink sink) {
        // an engine without tracing has nothing to install
    }

    /**
     * Installs the handler told of the events of every listener of this engine. Engines without
     * listener events (test doubles) ignore it.
     */
    default void setListenerEventHandler(ListenerEventHandler handler) {
        // an engine without listener events has nothing to install
    }

    /**
     * Closes the live connection {@code id} of this engine with {@code reason}.
     *
     * @return completes when it is released, or {@code null} when this engine has no live
     *     connection with that id
     */
    CompletionStage<Void> closeConnection(long id, CloseReason reason);

    /** Closes every connection and listener of the engine with {@code reason}. */
    CompletionStage<Void> shutdown(CloseReason reason);

    /**
     * Closes every listener and refuses new connections at once; lets each established connection
     * finish what is in flight for up to {@code timeout}, closing it with {@code reason} as soon as
     * it has nothing in flight, then closes the rest with {@code reason} ({@link Duration#ZERO}: all
     * at once). Engines without connections of their own (test doubles) shut down at once.
     *
     * @return completes when every connection is released
     */
    default CompletionStage<Void> drain(CloseReason reason, Duration timeout) {
        return shutdown(reason);
    }

    /** Creates the engine for one provider. */
    @FunctionalInterface
    interface Factory {
        ProviderEngine create(RdmaProvider provider, TransportSettings settings, Scheduler scheduler);
    }
}
