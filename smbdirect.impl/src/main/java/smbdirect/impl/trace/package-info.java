/**
 * Wireshark traces of SMB Direct traffic: {@link smbdirect.impl.trace.TraceSink} (what the
 * engine calls, {@code TraceSink.NONE} when off) and {@link smbdirect.impl.trace.PcapTraceWriter}
 * (a pcap file tshark decodes as SMB Direct). Exported for the operations surfaces
 * ({@code smbdirect.ops}: the shell's {@code smbd:trace}), which hand a writer to
 * {@code smbdirect.impl.control.TraceControl}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package smbdirect.impl.trace;
