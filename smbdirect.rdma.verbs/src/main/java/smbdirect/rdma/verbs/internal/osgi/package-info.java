/**
 * The verbs provider as a Declarative Services component: its configuration (PID
 * {@code smbdirect.rdma.verbs}, described by Metatype for the Web Console and kept in {@code etc/}),
 * the probe at activation, and the services it registers: the {@code RdmaProvider} only where a
 * backend and a device are usable, a {@code VerbsStatus} always,
 * naming what is missing when the provider cannot run. The OSGi-free part is
 * {@code VerbsProviderLifecycle}. {@code VerbsConfigurationCheck}, the bundle's activator, registers the
 * component's conversion as the {@code ConfigurationCheck} the runtime's settings guard consults.
 * Private to the bundle.
 */
package smbdirect.rdma.verbs.internal.osgi;
