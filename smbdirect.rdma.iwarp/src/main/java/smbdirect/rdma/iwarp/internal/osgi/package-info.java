/**
 * The software iWARP provider in OSGi: {@link smbdirect.rdma.iwarp.internal.osgi.IwarpProviderComponent}
 * (configuration PID {@code smbdirect.rdma.iwarp}, required) registers the {@code RdmaProvider}
 * service itself, so that a configuration change is validated first and applied by re-registering;
 * {@code IwarpProviderLifecycle} is what it does without OSGi types (settings from a configuration, a
 * refused change keeps the running provider, a good one replaces it), and {@code IwarpConfiguration}
 * its Metatype. {@code IwarpConfigurationCheck}, the bundle's activator, registers the same
 * conversion as the {@code ConfigurationCheck} the runtime's settings guard consults. Not exported.
 */
package smbdirect.rdma.iwarp.internal.osgi;
