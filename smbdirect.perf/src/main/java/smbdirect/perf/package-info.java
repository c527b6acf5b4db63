/**
 * The perf workload: a client and a server end that measure throughput, message rate, credit
 * stalls and latency over any {@link smbdirect.api.SmbDirectTransport}. Pure API code, used by
 * the {@code smbd:perf} command of this bundle and by the appliance runtime's batch mode
 * ({@code smbdirect.dist}), which imports it.
 *
 * <p>{@link smbdirect.perf.Perf} runs a client end ({@code run}) or serves ({@code serve}) with
 * {@link smbdirect.perf.PerfOptions} (parsed from the command line's words, each refused by name);
 * {@link smbdirect.perf.PerfServer} is the accept handler of the server end;
 * {@link smbdirect.perf.PerfResult} is what a run measured, {@code format()} the line the
 * command prints. Every message starts with a 32-byte {@code PerfHeader} (an operation: data to
 * count, data to echo, start, stream to me, stop, end of run; and its arguments), the whole
 * protocol between the two ends. {@code --connections N} runs N clients, each on its own
 * connection, and sums their results (1.3.0). The server end counts what moved in each direction,
 * messages and RDMA bytes, for its summary ({@code PerfServer.summary()}, 1.4.0).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package smbdirect.perf;
