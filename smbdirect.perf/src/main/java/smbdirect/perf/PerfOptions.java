package smbdirect.perf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The options of one perf run, parsed from command-line style arguments ({@link #usage()} lists
 * them). Immutable.
 */
public final class PerfOptions {

    /** The smallest message: the perf header plus room. */
    public static final int MIN_SIZE = 64;
    /** The most connections of one run ({@code --connections}). */
    public static final int MAX_CONNECTIONS = 256;
    /** Default trace message limit. */
    public static final int DEFAULT_TRACE_LIMIT = 100_000;

    /**
     * The options, one per line (see {@link #usage()}; a method, so that a caller's copy is never a
     * constant compiled into it).
     */
    private static final String HELP = """
              --size N[k|m]        message or RDMA transfer size in bytes (default 8192, at least 64)
              --count N            messages or RDMA operations (default 10000)
              --duration N[ms|s|m] run for a time instead of a count
              --warmup N[ms|s|m]   with --duration: run this long first, not counted (as iperf3 -O)
              --depth N            messages or RDMA operations in flight (default 16)
              --connections N      N connections in this process, each its own stream (default 1, at most
                                   256); the figures per connection and summed, as iperf3 -P
              --direction D        send: the client streams messages to the server (default)
                                   receive: the server streams messages to the client
                                   pingpong: the server echoes each message (round-trip latency)
                                   write: the client RDMA Writes a registered buffer into the server's
                                   read: the client RDMA Reads the server's registered buffer
              --connect host:port  client end only, against a remote 'perf --listen'
              --listen host:port   server end only; runs until stopped
              --provider NAME      the RDMA provider to run over (mock, verbs, iwarp, ...; default: the
                                   selected one, or for an in-process run the provider of the first open
                                   listener)
              --local IP           the device address of the in-process ends (default: the first open
                                   listener's)
              --timeout N[ms|s|m]  give up after this long (default: 60 s plus the duration)
              --trace FILE         write a Wireshark trace of the run (the runtime's batch mode)
              --trace-limit N      at most N messages in the trace (default 100000)
              -v, --verbose        the runtime's log too (the batch mode prints only perf's lines)
              -h, --help           this text
            """;

    private final int size;
    private final long count;
    private final Duration duration;
    private final int depth;
    private final PerfDirection direction;
    private final InetSocketAddress connect;
    private final InetSocketAddress listen;
    private final InetAddress local;
    private final String provider;
    private final Path trace;
    private final int traceLimit;
    private final Duration timeout;
    private final Duration warmup;
    private final boolean help;
    private final boolean verbose;
    private final int connections;

    private PerfOptions(int size, long count, Duration duration, int depth, PerfDirection direction,
            InetSocketAddress connect, InetSocketAddress listen, InetAddress local, String provider, Path trace,
            int traceLimit, Duration timeout, Duration warmup, boolean help, boolean verbose, int connections) {
        this.size = size;
        this.count = count;
        this.duration = duration;
        this.depth = depth;
        this.direction = direction;
        this.connect = connect;
        this.listen = listen;
        this.local = local;
        this.provider = provider;
        this.trace = trace;
        this.traceLimit = traceLimit;
        this.timeout = timeout;
        this.warmup = warmup;
        this.help = help;
        this.verbose = verbose;
        this.connections = connections;
    }

    /** The defaults: a short send run on the local fabric. */
    public static PerfOptions defaults() {
        return parse(List.of());
    }

    /**
     * Parses options.
     *
     * @throws IllegalArgumentException naming the option and the bad value
     */
    public static PerfOptions parse(List<String> args) {
        int size = 8192;
        long count = 10_000;
        Duration duration = null;
        int depth = 16;
        PerfDirection direction = PerfDirection.SEND;
        InetSocketAddress connect = null;
        InetSocketAddress listen = null;
        InetAddress local = null;
        String provider = null;
        Path trace = null;
        int traceLimit = DEFAULT_TRACE_LIMIT;
        Duration timeout = null;
        Duration warmup = Duration.ZERO;
        boolean countGiven = false;
        boolean verbose = false;
        long connections = 1;
        if (args.contains("--help") || args.contains("-h")) {
            return new PerfOptions(size, count, duration, depth, direction, connect, listen, local, provider, trace,
                    traceLimit, Duration.ofSeconds(60), Duration.ZERO, true,
                    args.contains("--verbose") || args.contains("-v"), 1);
        }
        for (int i = 0; i < args.size(); i++) {
            String option = args.get(i);
            if (option.equals("--verbose") || option.equals("-v")) {
                verbose = true;
                continue;
            }
            String value;
            int eq = option.indexOf('=');
            if (option.startsWith("--") && eq > 0) {
                value = option.substring(eq + 1);
                option = option.substring(0, eq);
            } else if (!WITH_VALUE.contains(option)) {
                throw unknown(option);
            } else {
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException("option " + option + " needs a value");
                }
                value = args.get(++i);
            }
            switch (option) {
                case "--size", "-s" -> size = (int) Math.min(Integer.MAX_VALUE, parseSize(option, value));
                case "--count", "-n" -> {
                    count = parseLong(option, value);
                    countGiven = true;
                }
                case "--duration", "-d" -> duration = parseDuration(option, value);
                case "--depth", "-q" -> depth = (int) parseLong(option, value);
                case "--direction" -> direction = PerfDirection.parse(value);
                case "--connect" -> connect = parseAddress(option, value);
                case "--listen" -> listen = parseAddress(option, value);
                case "--local" -> local = parseIp(option, value);
                case "--provider", "-p" -> provider = parseProvider(option, value);
                case "--trace" -> trace = Path.of(value);
                case "--trace-limit" -> traceLimit = (int) Math.min(Integer.MAX_VALUE, parseLong(option, value));
                case "--timeout" -> timeout = parseDuration(option, value);
                case "--warmup" -> warmup = parseDuration(option, value);
                case "--connections", "-P" -> connections = parseLong(option, value);
                default -> throw unknown(option);
            }
        }
        if (size < MIN_SIZE) {
            throw new IllegalArgumentException("--size must be at least " + MIN_SIZE + " bytes, not " + size);
        }
        if (count < 1) {
            throw new IllegalArgumentException("--count must be at least 1, not " + count);
        }
        if (depth < 1 || depth > 4096) {
            throw new IllegalArgumentException("--depth must be between 1 and 4096, not " + depth);
        }
        if (connections < 1 || connections > MAX_CONNECTIONS) {
            throw new IllegalArgumentException("--connections must be between 1 and " + MAX_CONNECTIONS + ", not "
                    + connections);
        }
        if (connections > 1 && listen != null) {
            throw new IllegalArgumentException("--connections is an option of the client end; a --listen end accepts "
                    + "any number of connections");
        }
        if (traceLimit < 1) {
            throw new IllegalArgumentException("--trace-limit must be at least 1, not " + traceLimit);
        }
        if (connect != null && listen != null) {
            throw new IllegalArgumentException("--connect and --listen exclude each other");
        }
        if (duration != null && countGiven) {
            throw new IllegalArgumentException("--count and --duration exclude each other");
        }
        if (!warmup.isZero() && duration == null) {
            throw new IllegalArgumentException("--warmup needs --duration (the measured time after it)");
        }
        if (duration != null) {
            count = Long.MAX_VALUE;
        }
        if (timeout == null) {
            timeout = Duration.ofSeconds(60).plus(duration == null ? Duration.ZERO : duration).plus(warmup);
        }
        return new PerfOptions(size, count, duration, depth, direction, connect, listen, local, provider, trace,
                traceLimit, timeout, warmup, false, verbose, (int) connections);
    }

    /** The options, one per line, as the shell command and the runtime's batch mode print them. */
    public static String usage() {
        return HELP;
    }

    /** The options that take a value. */
    private static final java.util.Set<String> WITH_VALUE = java.util.Set.of("--size", "-s", "--count", "-n",
            "--duration", "-d", "--depth", "-q", "--direction", "--connect", "--listen", "--local", "--provider", "-p",
            "--trace", "--trace-limit", "--timeout", "--warmup", "--connections", "-P");

    private static IllegalArgumentException unknown(String option) {
        return new IllegalArgumentException("unknown perf option '" + option + "'; known: --size --count --duration "
                + "--depth --direction --connect --listen --provider --local --trace --trace-limit --timeout "
                + "--warmup --connections --verbose --help");
    }

    /** A provider name: what {@code smbdirect.provider} service properties hold (letters, digits, {@code . _ -}). */
    static String parseProvider(String option, String value) {
        String v = value.trim();
        if (!v.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("option " + option + " needs a provider name (mock, verbs, iwarp, ...), "
                    + "not '" + value + "'");
        }
        return v;
    }

    /**
     * These options with {@code local} as the in-process device address (a runtime that knows the
     * right address for a provider it opened, such as 127.0.0.1 for a software iWARP provider).
     */
    public PerfOptions withLocal(InetAddress local) {
        return new PerfOptions(size, count, duration, depth, direction, connect, listen, local, provider, trace,
                traceLimit, timeout, warmup, help, verbose, connections);
    }

    static long parseSize(String option, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        long factor = 1;
        if (v.endsWith("k")) {
            factor = 1024;
            v = v.substring(0, v.length() - 1);
        } else if (v.endsWith("m")) {
            factor = 1024 * 1024;
            v = v.substring(0, v.length() - 1);
        }
        return Math.multiplyExact(parseLong(option, v), factor);
    }

    static long parseLong(String option, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + option + " needs a number, not '" + value + "'", e);
        }
    }

    static Duration parseDuration(String option, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Duration d;
        if (v.endsWith("ms")) {
            d = Duration.ofMillis(parseLong(option, v.substring(0, v.length() - 2)));
        } else if (v.endsWith("s")) {
            d = Duration.ofSeconds(parseLong(option, v.substring(0, v.length() - 1)));
        } else if (v.endsWith("m")) {
            d = Duration.ofMinutes(parseLong(option, v.substring(0, v.length() - 1)));
        } else {
            d = Duration.ofSeconds(parseLong(option, v));
        }
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("option " + option + " needs a positive duration, not '" + value + "'");
        }
        return d;
    }

    static InetAddress parseIp(String option, String value) {
        try {
            return InetAddress.getByName(value.trim());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("option " + option + " needs an IP address, not '" + value + "'", e);
        }
    }

    static InetSocketAddress parseAddress(String option, String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new IllegalArgumentException("option " + option + " needs host:port, not '" + value + "'");
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        long port = parseLong(option, value.substring(colon + 1));
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("option " + option + " has port " + port + " outside 0..65535");
        }
        return new InetSocketAddress(host, (int) port);
    }

    /** Message size in bytes. */
    public int size() {
        return size;
    }

    /** Messages to move; {@link Long#MAX_VALUE} when {@link #duration()} is set. */
    public long count() {
        return count;
    }

    /** The run time, or {@code null} for a count-bounded run. */
    public Duration duration() {
        return duration;
    }

    /** Messages in flight. */
    public int depth() {
        return depth;
    }

    /** What is measured. */
    public PerfDirection direction() {
        return direction;
    }

    /** The remote server to connect to, or {@code null} to run both ends here. */
    public InetSocketAddress connect() {
        return connect;
    }

    /** Run only the server end on this address, or {@code null}. */
    public InetSocketAddress listen() {
        return listen;
    }

    /** The local fabric address for an in-process run, or {@code null} to take the first open listener's. */
    public InetAddress local() {
        return local;
    }

    /** The RDMA provider to run over by name, or {@code null} for the transport's choice. */
    public String provider() {
        return provider;
    }

    /** Where to write a Wireshark trace, or {@code null}. */
    public Path trace() {
        return trace;
    }

    /** The most messages written to the trace. */
    public int traceLimit() {
        return traceLimit;
    }

    /** Overall bound of the run. */
    public Duration timeout() {
        return timeout;
    }

    /** The time run before the measured {@link #duration()}, not counted; zero without {@code --warmup}. */
    public Duration warmup() {
        return warmup;
    }

    /** {@code --help} or {@code -h} was given: print {@link #usage()} and run nothing. */
    public boolean help() {
        return help;
    }

    /** {@code --verbose} or {@code -v} was given: the runtime's log is wanted too. */
    public boolean verbose() {
        return verbose;
    }

    /** Connections of the run, each with its own stream of this workload ({@code --connections}; 1 by default). */
    public int connections() {
        return connections;
    }

    /** A one-line account of the workload. */
    public String describe() {
        String amount = duration != null ? "for " + duration.toMillis() + " ms"
                + (warmup.isZero() ? "" : " after " + warmup.toMillis() + " ms of warm-up")
                : count + (direction.isRdma() ? " RDMA operations" : " messages");
        return direction.label() + " " + amount + " of " + size + " B, depth " + depth
                + (connections > 1 ? ", on each of " + connections + " connections" : "");
    }
}
