/**
 * The OSGi face of the transport, and only that: the Declarative Services components, the
 * bundle-internal services between them, and (in {@code settings}) the guard of their configurations.
 *
 * <ul>
 * <li>{@link smbdirect.impl.osgi.SmbDirectTransportComponent}: the {@code SmbDirectTransport}
 * service (PID {@code smbdirect.transport}); binds every {@code RdmaProvider} service and hands
 * providers and configuration to a {@code smbdirect.impl.transport.MultiProviderTransport}, which
 * does the routing; owns the timer thread; the single validate-then-apply path of its
 * configuration ({@code smbdirect.impl.config}).</li>
 * <li>{@link smbdirect.impl.osgi.SmbDirectListenerComponent}: one configured listener (factory
 * PID {@code smbdirect.listener}), handing connections to the whiteboard {@code AcceptHandler}.</li>
 * <li>{@link smbdirect.impl.osgi.ListenerHost}: the service the transport component offers to the
 * listener component (not exported). It also offers {@link smbdirect.impl.control.ConnectionControl}
 * and {@link smbdirect.impl.control.TraceControl}, the exported services the operations surfaces
 * (the bundle {@code smbdirect.ops}) use.</li>
 * <li>{@code ListenerEventWhiteboard}: tells every {@code ListenerEventHandler} service of every
 * listener event.</li>
 * </ul>
 *
 * <p>{@code settings} keeps the last good configurations and reports refused values and typos
 * ({@link smbdirect.impl.control.SettingsFindings}) to the operations surfaces. Nothing outside
 * this package and its sub-packages imports it.
 */
package smbdirect.impl.osgi;
