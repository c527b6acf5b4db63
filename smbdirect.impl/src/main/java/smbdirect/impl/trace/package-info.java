/**
 * Wireshark traces of SMB Direct traffic: {@link smbdirect.impl.trace.TraceSink} (what the
 * engine calls, {@code TraceSink.NONE} when off) and {@link smbdirect.impl.trace.PcapTraceWriter}
 * (a pcap file tshark decodes as SMB Direct).
 */
package smbdirect.impl.trace;
