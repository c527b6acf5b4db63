package smbdirect.impl.transport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

import smbdirect.api.AcceptHandler;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.TransportDTO;

/**
 * An {@link SmbDirectTransport} that hands every call of the interface to another one: the one place
 * where that delegation is written. The OSGi component (over the transport over every provider), the
 * standalone transport and {@link EngineFactory}'s engine (over one {@code SmbDirectEngine}) extend it
 * and add only what they are for; one of them that answers a call otherwise overrides it
 * ({@code onProvider} of the standalone transport). Thread-safe as its delegate is.
 */
public abstract class ForwardingTransport implements SmbDirectTransport {

    private final SmbDirectTransport delegate;

    /** Forwards every call of {@link SmbDirectTransport} to {@code delegate}. */
    protected ForwardingTransport(SmbDirectTransport delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler)
            throws SmbDirectException {
        return delegate.listen(bindAddress, acceptHandler);
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
            ListenerEventHandler events) throws SmbDirectException {
        return delegate.listen(bindAddress, acceptHandler, events);
    }

    @Override
    public CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout,
            ConnectionHandler handler) {
        return delegate.connect(peer, timeout, handler);
    }

    @Override
    public TransportDTO getTransportDTO() {
        return delegate.getTransportDTO();
    }

    @Override
    public SmbDirectTransport onProvider(String providerName) {
        return delegate.onProvider(providerName);
    }
}
