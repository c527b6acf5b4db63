/**
 * The perf workload: a client and a server end that measure throughput, message rate, credit
 * stalls and latency over any {@link smbdirect.api.SmbDirectTransport}. Pure API code, used by
 * the {@code smbd:perf} command and by the runtime's batch mode.
 */
package smbdirect.impl.perf;
