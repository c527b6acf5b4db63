/**
 * A reference SMB2 file server over SMB Direct: {@link smbdirect.example.fileserver.FileServer}
 * serves one directory as one share on any {@link smbdirect.api.SmbDirectTransport} (the OSGi
 * service, or {@code smbdirect.standalone.StandaloneTransport} outside OSGi), configured by
 * {@link smbdirect.example.fileserver.FileServerSettings}. In OSGi the bundle starts a server per
 * configuration (PID {@code smbdirect.example.fileserver}) and opens nothing until configured.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package smbdirect.example.fileserver;
