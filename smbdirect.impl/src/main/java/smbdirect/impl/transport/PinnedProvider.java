package smbdirect.impl.transport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
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
 * The transport with new listeners and connections on the provider named {@code name}
 * ({@link SmbDirectTransport#onProvider}): such a listener stays on a provider of that name (it
 * waits while there is none), a connection runs there until it closes or the provider leaves.
 * Immutable; thread-safe.
 */
final class PinnedProvider implements SmbDirectTransport {
    private final MultiProviderTransport transport;
    private final String name;
    final ProviderFilter filter;

    PinnedProvider(MultiProviderTransport transport, String name) {
        this.transport = transport;
        this.name = Objects.requireNonNull(name, "providerName");
        this.filter = ProviderFilter.named(name);
    }

    /** Why no provider matches, naming the ones there are. */
    String missing(List<ProviderEntry> providers) {
        return "no RDMA provider named '" + name + "' (providers: "
                + (providers.isEmpty() ? "none" : providers.stream().map(e -> e.name).toList()) + ")";
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler)
            throws SmbDirectException {
        return transport.listen(bindAddress, acceptHandler, this, null);
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
            ListenerEventHandler events) throws SmbDirectException {
        return transport.listen(bindAddress, acceptHandler, this, events);
    }

    @Override
    public CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout,
            ConnectionHandler handler) {
        return transport.connect(peer, timeout, handler, this);
    }

    @Override
    public TransportDTO getTransportDTO() {
        return transport.getTransportDTO();
    }

    @Override
    public SmbDirectTransport onProvider(String providerName) {
        return transport.onProvider(providerName);
    }

    @Override
    public String toString() {
        return "SMB Direct transport on RDMA provider " + name;
    }
}
