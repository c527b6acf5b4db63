/**
 * JMX MBeans of the transport (domain {@code smbdirect}): {@link smbdirect.ops.jmx.JmxExporter},
 * a component fed by every snapshot of the {@code monitor}, registers and unregisters one MBean per
 * transport, provider, listener and connection as they come and go; {@code DtoMBean} serves the
 * scalar fields of a runtime DTO under their DTO names, as open types any JMX client reads, plus a
 * connection's {@code close} operation. No JMX dependency beyond the JDK's: the MBean server is the
 * one registered as an OSGi service (Karaf's), else the platform one.
 */
package smbdirect.ops.jmx;
