import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Locale;

/**
 * The round trip of Java's own NIO over TCP, no protocol on top: each end one thread with a selector
 * over a non-blocking socket (TCP_NODELAY), as the software iWARP provider's I/O threads are, and one
 * message of SIZE bytes outstanding, echoed by the server. It is the floor of any transport built on
 * a Java selector: what {@code perf --direction pingpong} adds above it is the protocol (SMB Direct
 * over iWARP), what it adds above {@code sockperf ping-pong} (a blocking {@code recvfrom}) is the
 * selector's. Run from source (JDK 11 or later), by {@code tools/small-bench.sh}:
 *
 * <pre>
 *   java tools/NioPingPong.java server ADDRESS PORT
 *   java tools/NioPingPong.java client ADDRESS PORT SECONDS WARMUP_SECONDS SIZE
 * </pre>
 *
 * The server echoes one connection after another until killed. The client prints one line:
 * {@code nio round trip p50 16.1 us, p99 35.6 us, mean 17.0 us, 462150 round trips}: every round trip
 * after the warm-up kept (up to 50 million, in an array that grows as needed), the percentiles exact (the sorted values, nearest rank).
 */
public final class NioPingPong {

    private static final int MAX_KEPT = 50_000_000;

    private NioPingPong() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 3 && args[0].equals("server")) {
            serve(new InetSocketAddress(args[1], Integer.parseInt(args[2])));
        } else if (args.length == 6 && args[0].equals("client")) {
            ping(new InetSocketAddress(args[1], Integer.parseInt(args[2])), Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]), Integer.parseInt(args[5]));
        } else {
            System.err.println("usage: NioPingPong server ADDRESS PORT | client ADDRESS PORT SECONDS WARMUP_SECONDS SIZE");
            System.exit(2);
        }
    }

    private static void serve(InetSocketAddress address) throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(address);
            System.out.println("nio server listening on " + address);
            for (;;) {
                try (SocketChannel c = listener.accept(); Selector selector = Selector.open()) {
                    ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
                    SelectionKey key = open(c, selector);
                    while (selector.select() >= 0) {
                        selector.selectedKeys().clear();
                        buf.clear();
                        int n = c.read(buf);
                        if (n < 0) {
                            break;
                        }
                        buf.flip();
                        writeAll(c, buf);
                    }
                    key.cancel();
                } catch (IOException e) {
                    System.out.println("nio server: connection ended: " + e);
                }
            }
        }
    }

    private static void ping(InetSocketAddress address, int seconds, int warmup, int size) throws IOException {
        if (size < 8 || size > 64 * 1024) {
            throw new IllegalArgumentException("SIZE from 8 to 65536 bytes, not " + size);
        }
        long[] kept = new long[1 << 20];
        int count = 0;
        try (SocketChannel c = SocketChannel.open(address); Selector selector = Selector.open()) {
            open(c, selector);
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            long start = System.nanoTime();
            long measureFrom = start + warmup * 1_000_000_000L;
            long end = measureFrom + seconds * 1_000_000_000L;
            for (;;) {
                long sent = System.nanoTime();
                if (sent - end >= 0) {
                    break;
                }
                buf.clear();
                buf.putLong(0, sent);
                writeAll(c, buf);
                buf.clear();
                while (buf.hasRemaining()) {
                    selector.select();
                    selector.selectedKeys().clear();
                    if (c.read(buf) < 0) {
                        throw new IOException("the server closed the connection");
                    }
                }
                long now = System.nanoTime();
                if (buf.getLong(0) != sent) {
                    throw new IOException("the echo is not the message sent");
                }
                if (sent - measureFrom >= 0 && count < MAX_KEPT) {
                    if (count == kept.length) {
                        // grown between round trips: the next one's clock starts after the copy
                        kept = Arrays.copyOf(kept, Math.min(MAX_KEPT, 2 * count));
                    }
                    kept[count++] = now - sent;
                }
            }
        }
        if (count == 0) {
            throw new IOException("no round trip measured");
        }
        Arrays.sort(kept, 0, count);
        double sum = 0;
        for (int i = 0; i < count; i++) {
            sum += kept[i];
        }
        System.out.printf(Locale.ROOT, "nio round trip p50 %.1f us, p99 %.1f us, mean %.1f us, %d round trips%n",
                rank(kept, count, 0.50) / 1e3, rank(kept, count, 0.99) / 1e3, sum / count / 1e3, count);
    }

    /** The nearest-rank percentile of the first {@code count} sorted values. */
    private static long rank(long[] sorted, int count, double q) {
        int r = (int) Math.ceil(q * count);
        return sorted[Math.max(0, Math.min(count - 1, r - 1))];
    }

    private static SelectionKey open(SocketChannel c, Selector selector) throws IOException {
        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
        c.configureBlocking(false);
        return c.register(selector, SelectionKey.OP_READ);
    }

    private static void writeAll(SocketChannel c, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            c.write(buf);
        }
    }
}
