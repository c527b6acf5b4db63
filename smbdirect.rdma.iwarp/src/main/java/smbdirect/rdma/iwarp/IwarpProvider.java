package smbdirect.rdma.iwarp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.regex.Pattern;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;
import smbdirect.rdma.iwarp.internal.IwarpDevice;
import smbdirect.rdma.iwarp.internal.Words;

/**
 * A software iWARP RDMA provider: RDMAP (RFC 5040), DDP (RFC 5041) and MPA (RFC 5044, RFC 6581)
 * over plain TCP sockets, wire-compatible with Linux soft-iWARP ({@code siw}) and iWARP RNICs. Use it
 * as the {@link RdmaProvider} of an SMB Direct transport outside OSGi:
 *
 * <pre>{@code
 * try (IwarpProvider provider = IwarpProvider.open(IwarpSettings.builder()
 *         .listenAddresses("10.0.0.5:5445").build())) {
 *     try (StandaloneTransport transport = StandaloneTransport.builder(provider).build()) {
 *         transport.listen(new InetSocketAddress("10.0.0.5", 5445), acceptHandler);
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} ends every connection of the provider with
 * {@code PROVIDER_SHUTDOWN} and every listener with {@code onListenerFailed(PROVIDER_SHUTDOWN)},
 * then stops its I/O threads; afterwards every operation throws {@link RdmaException}.
 */
public final class IwarpProvider implements RdmaProvider, AutoCloseable {

    /** The provider name, the value of the {@value RdmaProvider#PROVIDER_NAME} service property. */
    public static final String NAME = "iwarp";

    private static final Pattern INSTANCE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final long CLOSE_MILLIS = 10_000;

    private final IwarpDevice impl;

    private IwarpProvider(IwarpDevice impl) {
        this.impl = impl;
    }

    /** Opens a provider whose I/O threads are named {@code smbdirect-iwarp-iwarp-io-<n>}. */
    public static IwarpProvider open(IwarpSettings settings) throws RdmaException {
        return open(NAME, settings);
    }

    /**
     * Opens a provider; {@code instanceName} (letters, digits, {@code . _ -}) names its I/O threads
     * {@code smbdirect-iwarp-<instanceName>-io-<n>}, so that several providers in one JVM can be told
     * apart.
     *
     * @throws RdmaException when the I/O threads' selectors cannot be opened
     */
    public static IwarpProvider open(String instanceName, IwarpSettings settings) throws RdmaException {
        Objects.requireNonNull(instanceName, "instanceName");
        Objects.requireNonNull(settings, "settings");
        if (!INSTANCE_NAME.matcher(instanceName).matches()) {
            throw new IllegalArgumentException("instanceName " + instanceName
                    + " must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        try {
            return new IwarpProvider(IwarpDevice.open(instanceName, settings));
        } catch (IOException e) {
            throw new RdmaException("opening the iWARP provider failed: " + e.getMessage(), e);
        }
    }

    /** The settings the provider runs with. */
    public IwarpSettings settings() {
        return impl.settings();
    }

    /** The name given to {@link #open(String, IwarpSettings)}. */
    public String instanceName() {
        return impl.instanceName();
    }

    /** False once {@link #close()} was called. */
    public boolean isOpen() {
        return !impl.isShutdown();
    }

    /** A snapshot of the provider's counters. */
    public IwarpStatistics statistics() {
        return new IwarpStatistics(impl.openListeners(), impl.openEndpoints(), impl.openConnections(),
                impl.pendingRequests(), impl.registrations(), impl.terminatesSent(), impl.terminatesReceived(),
                impl.internalErrors());
    }

    /** The settings in words ("may listen on 127.0.0.1:5445; MPA revision 2, CRC32C asked for; ..."). */
    @Override
    public String describeSettings() {
        return Words.settings(impl.settings());
    }

    /** The counters in words ("TCP connections 3 of at most 1,024 (...), 0 refused at the cap; ..."). */
    @Override
    public String describeStatistics() {
        return Words.statistics(statistics(), impl.settings().maxConnections(), impl.refusedAtCap());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public TransportType transportType() {
        return TransportType.IWARP;
    }

    @Override
    public RdmaCapabilities capabilities() {
        return impl.capabilities();
    }

    /**
     * Listens on {@code bindAddress}, which {@link IwarpSettings#listenAddresses()} must allow.
     *
     * @throws RdmaException when the address is not allowed, is taken, or the provider is closed
     */
    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException {
        return impl.listen(bindAddress, handler);
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        return impl.createEndpoint(config, handler);
    }

    /** Ends every connection and listener (PROVIDER_SHUTDOWN) and stops the I/O threads. Idempotent. */
    @Override
    public void close() {
        impl.shutdown(CLOSE_MILLIS);
    }

    @Override
    public String toString() {
        return impl.toString();
    }
}
