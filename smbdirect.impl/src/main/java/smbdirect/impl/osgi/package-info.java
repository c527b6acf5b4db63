/**
 * The OSGi face of the transport, and only that: the Declarative Services components, the
 * bundle-internal services between them, and (in the sub-packages) the operations surfaces.
 *
 * <ul>
 * <li>{@link smbdirect.impl.osgi.SmbDirectTransportComponent}: the {@code SmbDirectTransport}
 * service (PID {@code smbdirect.transport}); binds every {@code RdmaProvider} service and hands
 * providers and configuration to a {@code smbdirect.impl.transport.MultiProviderTransport}, which
 * does the routing; owns the timer thread; the single validate-then-apply path of its
 * configuration ({@code smbdirect.impl.config}).</li>
 * <li>{@link smbdirect.impl.osgi.SmbDirectListenerComponent}: one configured listener (factory
 * PID {@code smbdirect.listener}), handing connections to the whiteboard {@code AcceptHandler}.</li>
 * <li>{@link smbdirect.impl.osgi.ListenerHost}, {@link smbdirect.impl.osgi.ConnectionControl},
 * {@link smbdirect.impl.osgi.TraceControl}: services the transport component offers to the
 * listener component and the operations surfaces of this bundle (not exported).</li>
 * <li>{@code ListenerEventWhiteboard}: tells every {@code ListenerEventHandler} service of every
 * listener event.</li>
 * </ul>
 *
 * <p>The operations surfaces: {@code shell} (Gogo {@code smbd:*}), {@code console} (the Web
 * Console status page), {@code health} (Felix Health Checks), {@code http} (the probes and the
 * Prometheus endpoint, HTTP Whiteboard servlets), {@code jmx} (MBeans), {@code monitor} (the sampled
 * history they share); {@code settings} keeps the last good configurations and reports refused
 * values and typos to them. Nothing outside this package and its
 * sub-packages imports it.
 */
package smbdirect.impl.osgi;
