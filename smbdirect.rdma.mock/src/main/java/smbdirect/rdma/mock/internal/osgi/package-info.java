/**
 * Mock RDMA providers as OSGi services, each on a THREADED fabric of its own: the default one
 * ({@code DefaultMockProviderComponent}: name {@code mock}, InfiniBand, ranking -100, always
 * present while the bundle is active) and one per factory configuration of PID
 * {@code smbdirect.rdma.mock} ({@code ConfiguredMockProviderComponent}, configured by
 * {@code MockProviderConfiguration}); both extend {@code AbstractMockProviderComponent}, which delegates
 * to the device of their fabric. {@code MockConfigurationCheck}, the bundle's activator, registers
 * the configured component's conversion as the {@code ConfigurationCheck} the runtime's settings
 * guard consults. Not exported.
 */
package smbdirect.rdma.mock.internal.osgi;
