/**
 * The file server in OSGi: {@link smbdirect.example.fileserver.internal.osgi.FileServerComponent}
 * (configuration PID {@code smbdirect.example.fileserver}, required) runs one file server per
 * configuration over the {@code SmbDirectTransport} service; {@code ServerLifecycle} is what it does
 * without OSGi types (settings from a configuration, a refused change keeps the running server, a
 * good one restarts it, a named provider that is not there yet is waited for), and
 * {@code FileServerConfiguration} its Metatype. {@code FileServerConfigurationCheck}, the bundle's
 * activator, registers the same conversion as the {@code ConfigurationCheck} the runtime's settings
 * guard consults. Not exported.
 */
package smbdirect.example.fileserver.internal.osgi;
