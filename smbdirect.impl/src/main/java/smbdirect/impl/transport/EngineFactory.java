package smbdirect.impl.transport;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import smbdirect.api.CloseReason;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.dto.CountersDTO;
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

    /**
     * The engine as a {@link ProviderEngine}: its {@code SmbDirectTransport} calls are forwarded, the
     * rest handed on here. Thread-safe as the engine is.
     */
    private static final class Adapter extends ForwardingTransport implements ProviderEngine {

        private final SmbDirectEngine engine;

        Adapter(SmbDirectEngine engine) {
            super(engine);
            this.engine = engine;
        }

        @Override
        public void setListenerEventHandler(ListenerEventHandler handler) {
            engine.setListenerEventHandler(handler);
        }

        @Override
        public CountersDTO counters() {
            return engine.counters();
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
        public CompletionStage<Void> drain(CloseReason reason, Duration timeout) {
            return engine.drain(reason, timeout);
        }
    }
}
