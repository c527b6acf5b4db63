package smbdirect.perf;

import java.util.List;
import java.util.Locale;

/**
 * The outcome of one perf run. Immutable.
 *
 * @param workload the options' one-line description
 * @param provider the RDMA provider the connection ran on
 * @param providerDetail what the provider says of the connection on the wire (for software iWARP
 *     the FPDU size and CRC), or {@code null}
 * @param local local address as text
 * @param peer peer address as text
 * @param messages upper-layer messages (or RDMA operations) moved
 * @param unit what {@code messages} counts: "messages", or "RDMA writes" / "RDMA reads"
 * @param bytes payload bytes moved
 * @param elapsedNanos from the first message to the peer's confirmation
 * @param creditStalls times the client's sending stopped for lack of Send Credits
 * @param p50Nanos median latency (send completion, or round trip for pingpong), -1 when not measured
 * @param p99Nanos 99th percentile latency, -1 when not measured
 * @param latencyKind what the latency measures
 * @param confirmation what the other end confirmed
 * @param cpu what this process's Java threads used while the figures were taken, in cores, and its
 *     busiest thread's share (user and system), or {@code null} where the JVM does not measure it
 * @param streams with {@code --connections N} above 1, each connection's own result (this one is then
 *     their sum: messages, bytes and credit stalls added, over the longest connection's time, the
 *     latencies of all in one histogram); empty for one connection
 */
public record PerfResult(String workload, String provider, String providerDetail, String local, String peer,
        long messages, String unit, long bytes,
        long elapsedNanos, long creditStalls, long p50Nanos, long p99Nanos, String latencyKind, String confirmation,
        String cpu, List<PerfResult> streams) {

    /** Copies {@code streams}. */
    public PerfResult {
        streams = List.copyOf(streams);
    }

    /** The result of one connection. */
    public PerfResult(String workload, String provider, String providerDetail, String local, String peer,
            long messages, String unit, long bytes, long elapsedNanos, long creditStalls, long p50Nanos, long p99Nanos,
            String latencyKind, String confirmation, String cpu) {
        this(workload, provider, providerDetail, local, peer, messages, unit, bytes, elapsedNanos, creditStalls,
                p50Nanos, p99Nanos, latencyKind, confirmation, cpu, List.of());
    }

    /** A result without a CPU report (as before the report existed). */
    public PerfResult(String workload, String provider, String providerDetail, String local, String peer,
            long messages, String unit, long bytes, long elapsedNanos, long creditStalls, long p50Nanos, long p99Nanos,
            String latencyKind, String confirmation) {
        this(workload, provider, providerDetail, local, peer, messages, unit, bytes, elapsedNanos, creditStalls,
                p50Nanos, p99Nanos, latencyKind, confirmation, null);
    }

    /** Megabytes (10^6 bytes) per second. */
    public double megabytesPerSecond() {
        return elapsedNanos <= 0 ? 0 : bytes / (elapsedNanos / 1e9) / 1e6;
    }

    /** Messages per second. */
    public double messagesPerSecond() {
        return elapsedNanos <= 0 ? 0 : messages / (elapsedNanos / 1e9);
    }

    /**
     * The report printed by the command and the batch mode. With several connections, one line per
     * connection ({@code [  1]}, ...) and one of their sum ({@code [SUM]}) come first, as iperf3 -P
     * prints them; the lines after them are the sum's.
     */
    public String format() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "perf: %s over %s, %s -> %s%n", workload, provider, local, peer));
        if (providerDetail != null) {
            b.append("  ").append(provider).append(": ").append(providerDetail).append('\n');
        }
        for (int i = 0; i < streams.size(); i++) {
            b.append(streams.get(i).line(String.format(Locale.ROOT, "[%3d]", i + 1)));
        }
        if (!streams.isEmpty()) {
            b.append(line("[SUM]"));
        }
        b.append(String.format(Locale.ROOT, "  %d %s, %d bytes in %.3f s%n", messages, unit, bytes, elapsedNanos / 1e9));
        b.append(String.format(Locale.ROOT, "  throughput %.1f MB/s, %.0f %s/s%n", megabytesPerSecond(),
                messagesPerSecond(), unit));
        b.append(String.format(Locale.ROOT, "  credit stalls %d%n", creditStalls));
        if (p50Nanos >= 0) {
            b.append(String.format(Locale.ROOT, "  %s latency p50 %s, p99 %s (HdrHistogram, %d significant digits)%n",
                    latencyKind, LatencyHistogram.format(p50Nanos), LatencyHistogram.format(p99Nanos),
                    LatencyHistogram.DIGITS));
        } else {
            b.append("  latency not measured for this direction (use --direction pingpong)\n");
        }
        if (cpu != null) {
            b.append("  cpu: ").append(cpu).append('\n');
        }
        b.append("  ").append(confirmation).append('\n');
        return b.toString();
    }

    /** One line of the per-connection table: {@code tag}, the local address, time, rate, stalls and latency. */
    private String line(String tag) {
        return String.format(Locale.ROOT, "  %s %-21s %8.3f s %10.1f MB/s %12.0f %s/s  stalls %d%s%n", tag,
                streams.isEmpty() ? local : "", elapsedNanos / 1e9, megabytesPerSecond(), messagesPerSecond(), unit, creditStalls,
                p50Nanos >= 0 ? "  p50 " + LatencyHistogram.format(p50Nanos) + " p99 " + LatencyHistogram.format(p99Nanos)
                        : "");
    }
}
