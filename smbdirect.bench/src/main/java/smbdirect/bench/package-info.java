/**
 * JMH benchmarks of the engine over the mock fabric and of the software iWARP provider, each next to
 * a floor measured in the same run (how to run them and the current results: {@code BENCHMARKS.md}; the dated
 * runs: {@code docs/benchmarks/}).
 *
 * <ul>
 * <li>The groups: {@link smbdirect.bench.SmallBench} (small messages one way and ping-pong),
 * {@link smbdirect.bench.BulkBench} (fragmented messages), {@link smbdirect.bench.RdmaBench} (RDMA
 * Read and Write), {@link smbdirect.bench.IwarpBench} (the iWARP provider and the engine over it
 * against plain TCP); {@link smbdirect.bench.IwarpBulkPhases} prints the credit flow of one
 * workload over time.</li>
 * <li>What they run on: {@code EnginePair}, two {@code StandaloneTransport}s and one negotiated
 * connection (the public way in, nothing else of the engine); {@code RawPair}, two mock endpoints
 * through the provider SPI with no protocol (the mock's floor; the contract suite's
 * {@code smbdirect.rdma.tck.EchoPair} over one fabric); {@code Receiver}, a counting (or
 * echoing) handler; {@code Spin}, allocation-free waiting; {@code Buffers}, the test patterns.</li>
 * <li>{@link smbdirect.bench.CpuProfiler}: CPU time of the whole JVM per operation, beside JMH's
 * wall-clock figures.</li>
 * </ul>
 */
package smbdirect.bench;
