/**
 * The software iWARP RDMA provider for plain Java use: {@link smbdirect.rdma.iwarp.IwarpProvider}
 * opens and closes a provider configured by {@link smbdirect.rdma.iwarp.IwarpSettings}. In OSGi the
 * bundle registers the provider itself (configuration PID {@code smbdirect.rdma.iwarp}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package smbdirect.rdma.iwarp;
