/**
 * The SMB Direct transport without OSGi: {@link smbdirect.standalone.StandaloneTransport} builds an
 * {@link smbdirect.api.SmbDirectTransport} over one {@link smbdirect.api.rdma.RdmaProvider} in a
 * plain Java application, a Spring-style container (a bean whose destroy method is
 * {@code close}) or a test.
 *
 * <p>The settings are those of the {@code smbdirect.transport} configuration of the OSGi component:
 * the same attribute names, defaults and validation (one definition serves both). The engine behind
 * the transport stays private.
 *
 * <h2>Class path</h2>
 * The jars this needs at run time are the Maven runtime dependencies of {@code smbdirect.impl}:
 * {@code smbdirect.api}, {@code org.osgi:org.osgi.dto} (the runtime DTOs extend
 * {@code org.osgi.dto.DTO}), {@code slf4j-api}, plus the jar of an RDMA provider (the mock fabric,
 * the software iWARP provider or the verbs provider). No OSGi framework is needed.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package smbdirect.standalone;
