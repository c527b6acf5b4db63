package smbdirect.bench;

import java.lang.management.ManagementFactory;
import java.util.List;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time of the whole benchmark JVM per operation ({@code cpu.ns/op}): what an operation costs
 * on all threads together (the benchmark thread, and in THREADED mode the fabric's completion
 * threads), independent of how much of the machine other processes take. Wall-clock throughput
 * on a shared machine measures the share of the CPU the benchmark got; this measures the work.
 * Compiler and GC threads are included (settled after warm-up). Use with
 * {@code -prof smbdirect.bench.CpuProfiler}.
 */
public final class CpuProfiler implements InternalProfiler {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long cpuBefore;

    @Override
    public String getDescription() {
        return "process CPU time per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        cpuBefore = os.getProcessCpuTime();
    }

    @Override
    public List<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        long cpu = os.getProcessCpuTime() - cpuBefore;
        long ops = result.getMetadata().getAllOps();
        double perOp = ops == 0 ? Double.NaN : (double) cpu / ops;
        return List.of(new ScalarResult("cpu.ns/op", perOp, "ns/op", AggregationPolicy.AVG));
    }
}
