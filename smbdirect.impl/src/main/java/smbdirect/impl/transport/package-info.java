/**
 * The transport over any number of RDMA providers: one engine per provider, and the routing of new
 * connections and listeners to the provider selected among them. No component runtime: the OSGi
 * component {@code smbdirect.impl.osgi.SmbDirectTransportComponent} feeds it the providers and the
 * configuration it receives, a test feeds it fakes.
 *
 * <h2>The classes</h2>
 * <ul>
 * <li>{@link smbdirect.impl.transport.MultiProviderTransport}: the {@code SmbDirectTransport}
 * over all providers; the providers best ranked first, the selection, the listeners, and the rules of
 * what moves and what stays when a provider comes, goes or is deselected (its class comment).</li>
 * <li>{@code ProviderEntry}: one provider, what its service properties say (name, ranking, service
 * id) and its engine. {@link smbdirect.impl.transport.ProviderFilter}: the LDAP filter that selects
 * providers ({@code provider.target}).</li>
 * <li>{@link smbdirect.impl.transport.ProviderEngine}: the engine over one provider as the
 * transport sees it; {@link smbdirect.impl.transport.EngineFactory} makes the real one (a
 * {@code SmbDirectEngine}), tests make fakes.</li>
 * <li>{@link smbdirect.impl.transport.ForwardingTransport}: the one place where the calls of
 * {@code SmbDirectTransport} are handed to another transport; the OSGi component (to the
 * {@code MultiProviderTransport}), {@code StandaloneTransport} and {@code EngineFactory}'s engine (to
 * one {@code SmbDirectEngine}) extend it.</li>
 * <li>{@link smbdirect.impl.transport.RelocatingListener}: a listener that keeps its address and
 * port while the provider under it changes (states OPEN, WAITING, FAILED, CLOSED); its counters add
 * up over every provider it was bound on.</li>
 * <li>{@code PinnedProvider}: the view {@code onProvider(name)} returns; {@code ProviderBoundHandler}:
 * wraps a connection's handler so that a connection ended by its provider leaving (or the transport
 * stopping) is reported with that reason whatever it noticed first.</li>
 * <li>{@code TransportDTOs}: the runtime DTO over every engine; {@code RetiredEngines}: what the
 * engines of providers that left keep showing in it (closed connections, negotiation failures).
 * {@link smbdirect.impl.transport.CapabilitiesText}: a provider's capabilities in words.</li>
 * </ul>
 *
 * <h2>How a connect travels</h2>
 * {@code MultiProviderTransport.connect} picks the selected provider under the lock → the
 * provider's {@code ProviderEngine.connect}, with the caller's handler wrapped in a
 * {@code ProviderBoundHandler} → the connection lives on that engine until it closes or the provider
 * leaves ({@code removeProvider} → {@code retire} → the engine's {@code drain} with
 * {@code PROVIDER_REPLACED}, or {@code SHUTDOWN} when the runtime stops; {@code shutdown} drains
 * every engine with {@code SHUTDOWN}).
 *
 * <h2>How a listener follows the selection</h2>
 * Every change of providers, configuration or accept handler, and a check every second while there
 * are listeners, runs {@code reconcileListeners}: each {@code RelocatingListener} is told the provider
 * it belongs on and closes its endpoint on the old one and binds the same address on the new one
 * (or waits, or retries a failed bind).
 *
 * <p>Locking: one lock, the transport's, guards the providers, the listeners, the settings and the
 * retired engines' state; listeners change state under it too. Engines are created and
 * reconfigured, and listener endpoints opened and closed, under it; connects, closing a connection
 * and the DTO's engine snapshots run outside it.
 */
package smbdirect.impl.transport;
