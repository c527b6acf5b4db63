/**
 * What the transport's components offer the operations surfaces (the bundle {@code smbdirect.ops}:
 * shell, status page, health, probes, metrics, JMX), as OSGi services of this bundle:
 * {@link smbdirect.impl.control.ConnectionControl} closes a live connection by id,
 * {@link smbdirect.impl.control.TraceControl} turns the Wireshark trace ({@code smbdirect.impl.trace})
 * on and off, {@link smbdirect.impl.control.SettingsFindings} names the configuration values that
 * were refused or not understood. An operator's tool, not the API an SMB server or client uses
 * ({@code smbdirect.api}); exported so that the operations bundle can be installed, updated and
 * removed on its own.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package smbdirect.impl.control;
