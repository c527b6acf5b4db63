package smbdirect.rdma.mock;

import java.net.InetSocketAddress;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;

/**
 * An {@link RdmaProvider} that forwards to a {@link MockProvider} while attached and refuses every
 * call with {@link IllegalStateException} once detached, as a provider service does after its
 * component was deactivated: the mock's OSGi providers are such a provider, and a test can hand
 * one to the transport to check that nothing asks a provider that has left.
 *
 * <p>Thread-safe: attaching and detaching are seen by every thread at once (volatile).
 */
public class DetachableProvider implements RdmaProvider {

    private volatile MockProvider delegate;

    /** Attached to {@code delegate}. */
    public DetachableProvider(MockProvider delegate) {
        this.delegate = delegate;
    }

    /** Detached until {@link #attach(MockProvider)}. */
    protected DetachableProvider() {
    }

    /** Forwards to {@code provider} from now on. */
    protected final void attach(MockProvider provider) {
        delegate = provider;
    }

    /** Refuses every call from now on; returns the provider it forwarded to (null if none). */
    public final MockProvider detach() {
        MockProvider p = delegate;
        delegate = null;
        return p;
    }

    /** The provider calls go to, or null while detached. */
    protected final MockProvider attached() {
        return delegate;
    }

    /** The provider calls go to. @throws IllegalStateException when detached */
    protected final MockProvider delegate() {
        MockProvider p = delegate;
        if (p == null) {
            throw new IllegalStateException("provider is not active");
        }
        return p;
    }

    @Override
    public String name() {
        return delegate().name();
    }

    @Override
    public TransportType transportType() {
        return delegate().transportType();
    }

    @Override
    public RdmaCapabilities capabilities() {
        return delegate().capabilities();
    }

    @Override
    public RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException {
        return delegate().listen(bindAddress, handler);
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        return delegate().createEndpoint(config, handler);
    }
}
