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
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.trace.TraceSink;

/** The production {@link ProviderEngine.Factory}: one {@link SmbDirectEngine} per provider. */
public final class EngineFactory {

    private EngineFactory() {
    }

    public static ProviderEngine create(RdmaProvider provider, TransportSettings settings, Scheduler scheduler) {
        return new Adapter(new SmbDirectEngine(provider, settings, scheduler));
    }

    /** Thread-safe as the engine is. */
    private record Adapter(SmbDirectEngine engine) implements ProviderEngine {

        @Override
        public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
                ListenerEventHandler events) throws SmbDirectException {
            return engine.listen(bindAddress, acceptHandler, events);
        }

        @Override
        public void setListenerEventHandler(ListenerEventHandler handler) {
            engine.setListenerEventHandler(handler);
        }

        @Override
        public CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout,
                ConnectionHandler handler) {
            return engine.connect(peer, timeout, handler);
        }

        @Override
        public CountersDTO counters() {
            return engine.counters();
        }

        @Override
        public TransportDTO getTransportDTO() {
            return engine.getTransportDTO();
        }

        @Override
        public void updateSettings(TransportSettings settings) {
            engine.updateSettings(settings);
        }

        @Override
        public void setTraceSink(TraceSink sink) {
            engine.setTraceSink(sink);
        }

        @Override
        public CompletionStage<Void> closeConnection(long id, CloseReason reason) {
            return engine.closeConnection(id, reason);
        }

        @Override
        public CompletionStage<Void> shutdown(CloseReason reason) {
            return engine.shutdown(reason);
        }

        @Override
        public CompletionStage<Void> drain(CloseReason reason, java.time.Duration timeout) {
            return engine.drain(reason, timeout);
        }
    }
}
