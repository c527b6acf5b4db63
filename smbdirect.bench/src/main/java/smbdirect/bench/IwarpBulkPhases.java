package smbdirect.bench;

import java.util.Locale;
import java.util.Map;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.impl.config.TransportConfiguration;

/**
 * Diagnostic companion of {@link IwarpBench#engineBulk}: runs the same workload (1 MiB messages in
 * 8192-byte fragments, {@link IwarpBench#DEPTH} outstanding, two iWARP providers on loopback) for a
 * while and prints, every 250 ms, the message rate and the credit flow from both connections' DTOs:
 * how often the sender ran out of credits and how many grants the receiver sent. JMH gives one
 * figure per iteration; this shows the phases within it.
 *
 * <pre>
 * java -cp smbdirect.bench/target/benchmarks.jar smbdirect.bench.IwarpBulkPhases [maxFpduSize [crc [seconds [creditRefillFraction]]]]
 * </pre>
 *
 * Defaults: 0 (the path's MSS), true, 15, the transport's default refill fraction.
 */
public final class IwarpBulkPhases {

    private IwarpBulkPhases() {
    }

    public static void main(String[] args) throws Exception {
        IwarpBench.Size size = new IwarpBench.Size();
        size.size = 1 << 20;
        IwarpBench.Wire wire = new IwarpBench.Wire();
        wire.maxFpduSize = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        wire.crc = args.length <= 1 || Boolean.parseBoolean(args[1]);
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 15;
        double refill = args.length > 3 ? Double.parseDouble(args[3])
                : TransportConfiguration.CREDIT_REFILL_FRACTION_DEFAULT;
        IwarpBench bench = new IwarpBench();
        IwarpBench.BulkEngine e = new IwarpBench.BulkEngine();
        e.sendSize = 8192;
        e.open(size, wire, Map.of("maxSendSize", 8192, "maxReceiveSize", 8192, "creditRefillFraction", refill));
        System.out.printf(Locale.ROOT, "engineBulk 1 MiB, 8192-byte fragments, maxFpduSize %d, CRC %s, creditRefillFraction %s%n",
                wire.maxFpduSize, wire.crc ? "on" : "off", refill);
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        long lastTime = start;
        long lastSent = 0;
        ConnectionDTO c0 = e.client.getConnectionDTO();
        ConnectionDTO s0 = e.server.getConnectionDTO();
        while (System.nanoTime() < end) {
            for (int i = 0; i < 8; i++) {
                bench.engineBulk(e);
            }
            long now = System.nanoTime();
            if (now - lastTime >= 250_000_000L) {
                ConnectionDTO c = e.client.getConnectionDTO();
                ConnectionDTO s = e.server.getConnectionDTO();
                long stalls = c.creditStalls - c0.creditStalls;
                long fragments = c.fragmentsSent - c0.fragmentsSent;
                System.out.printf(Locale.ROOT, "%6.0f msg/s  fragments %7d  sender credit stalls %5d  grants from the receiver %5d  fragments per stall %s%n",
                        (e.sent - lastSent) * 1e9 / (now - lastTime), fragments, stalls,
                        s.creditGrantsSent - s0.creditGrantsSent, stalls == 0 ? "-" : String.valueOf(fragments / stalls));
                c0 = c;
                s0 = s;
                lastTime = now;
                lastSent = e.sent;
            }
        }
        System.out.printf(Locale.ROOT, "overall %.0f msg/s%n", e.sent * 1e9 / (System.nanoTime() - start));
        e.tearDown();
    }
}
