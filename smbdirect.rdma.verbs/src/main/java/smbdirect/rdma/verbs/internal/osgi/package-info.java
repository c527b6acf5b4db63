/**
 * The verbs provider in OSGi: {@link smbdirect.rdma.verbs.internal.osgi.VerbsProviderComponent}
 * (configuration PID {@code smbdirect.rdma.verbs}, metatype
 * {@link smbdirect.rdma.verbs.internal.osgi.VerbsConfiguration}) runs the probe at start and
 * registers the {@code RdmaProvider} only when the native pieces and a device are there;
 * {@link smbdirect.rdma.verbs.internal.osgi.VerbsStatus} is registered in every case and says why
 * not. {@link smbdirect.rdma.verbs.internal.osgi.ProviderLifecycle} is that logic without OSGi
 * types, for the tests.
 */
package smbdirect.rdma.verbs.internal.osgi;
