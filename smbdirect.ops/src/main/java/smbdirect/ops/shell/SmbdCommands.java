package smbdirect.ops.shell;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.impl.control.ConnectionControl;
import smbdirect.impl.control.TraceControl;
import smbdirect.impl.trace.PcapTraceWriter;
import smbdirect.impl.trace.TraceSink;
import smbdirect.perf.Perf;
import smbdirect.perf.PerfException;
import smbdirect.perf.PerfOptions;
import smbdirect.perf.PerfServer;

/**
 * Gogo commands of scope {@code smbd} (plain Gogo: {@code osgi.command.scope} /
 * {@code osgi.command.function} service properties, so they work in the Felix shell and in
 * Karaf's console alike). Each command returns its output as text.
 *
 * <p>Thread-safe: commands may run concurrently from several shell sessions.
 */
@Component(service = SmbdCommands.class, immediate = true, property = {
        "osgi.command.scope=smbd",
        "osgi.command.function=providers",
        "osgi.command.function=listeners",
        "osgi.command.function=connections",
        "osgi.command.function=connection",
        "osgi.command.function=connect",
        "osgi.command.function=close",
        "osgi.command.function=perf",
        "osgi.command.function=trace",
        "osgi.command.function=settings"
})
public class SmbdCommands {

    private static final long WAIT_SECONDS = 35;

    /** The reason the upper layer of a connection closed with {@code smbd:close} is told. */
    public static final CloseReason OPERATOR_CLOSE = CloseReason.of(CloseReason.Kind.LOCAL_CLOSE,
            "closed by operator (smbd:close)");

    /** A server end started by {@code smbd:perf --listen}: its listener and what its runs moved. */
    private record PerfServerEnd(SmbDirectListener listener, PerfServer server) {
    }

    private final List<PerfServerEnd> perfServers = new CopyOnWriteArrayList<>();

    @Reference
    private SmbDirectTransport transport;

    @Reference
    private TestConnections testConnections;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile TraceControl traceControl;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ConnectionControl connectionControl;

    private final AtomicReference<TraceRun> trace = new AtomicReference<>();

    /** For Declarative Services. */
    public SmbdCommands() {
    }

    /** With its references given (tests). */
    SmbdCommands(SmbDirectTransport transport, TestConnections testConnections, ConnectionControl connectionControl) {
        this.transport = transport;
        this.testConnections = testConnections;
        this.connectionControl = connectionControl;
    }

    /** A running trace: its file and writer. */
    private record TraceRun(Path path, PcapTraceWriter writer) {
    }

    @Descriptor("show the transport settings in force under their configuration names, and what was refused or"
            + " misspelt in the configurations")
    public String settings() {
        StringBuilder b = new StringBuilder();
        smbdirect.api.dto.SettingsDTO s = transport.getTransportDTO().settings;
        if (s != null) {
            for (java.lang.reflect.Field f : smbdirect.api.dto.SettingsDTO.class.getFields()) {
                if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                try {
                    b.append(String.format(java.util.Locale.ROOT, "%-34s %s%n",
                            smbdirect.ops.DtoFieldNames.shown(f), f.get(s)));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        smbdirect.impl.control.SettingsFindings guard = settingsGuard;
        List<String> findings = guard == null ? List.of() : guard.findings();
        if (findings.isEmpty()) {
            b.append("No setting refused, no unknown key or configuration file.").append(System.lineSeparator());
        }
        for (String f : findings) {
            b.append("WARN ").append(f).append(System.lineSeparator());
        }
        return b.toString();
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile smbdirect.impl.control.SettingsFindings settingsGuard;

    @Descriptor("list the RDMA providers the transport knows (the selected one serves new connections)")
    public String providers() {
        return DtoText.providers(transport.getTransportDTO());
    }

    @Descriptor("list the listening endpoints with their state and counters")
    public String listeners() {
        return DtoText.listeners(transport.getTransportDTO());
    }

    @Descriptor("list live connections (role, state, negotiated sizes, credits, counters) and recently closed ones")
    public String connections() {
        return DtoText.connections(transport.getTransportDTO());
    }

    @Descriptor("show every variable and counter of one connection")
    public String connection(@Descriptor("connection id") long id) {
        ConnectionDTO c = DtoText.find(transport.getTransportDTO(), id);
        return c == null ? "no connection " + id + " (see smbd:connections)\n" : DtoText.connection(c);
    }

    @Descriptor("open a test connection to the first open listener")
    public String connect() throws InterruptedException {
        return connect(null);
    }

    @Descriptor("open a test connection to host:port (it stays open until smbd:close)")
    public String connect(@Descriptor("host:port") String peer) throws InterruptedException {
        InetSocketAddress target;
        try {
            target = peer == null ? testConnections.defaultTarget() : TestConnections.toAddress(peer);
        } catch (RuntimeException e) {
            return "connect: " + e.getMessage() + "\n";
        }
        try {
            SmbDirectConnection c = testConnections.open(target).toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            return "connection " + c.id() + " established to " + target + "\n"
                    + DtoText.connection(c.getConnectionDTO());
        } catch (ExecutionException e) {
            return "connect to " + target + " failed: " + e.getCause().getMessage() + "\n";
        } catch (TimeoutException e) {
            return "connect to " + target + " did not finish within " + WAIT_SECONDS + " s\n";
        }
    }

    @Descriptor("close any live connection by id (its upper layer sees LOCAL_CLOSE 'closed by operator (smbd:close)')")
    public String close(@Descriptor("connection id") long id) throws InterruptedException {
        return close(id, null);
    }

    @Descriptor("close live connection ID of PROVIDER (ids are numbered per provider)")
    public String close(@Descriptor("connection id") long id, @Descriptor("provider name") String provider)
            throws InterruptedException {
        ConnectionControl control = connectionControl;
        CompletionStage<Void> closing;
        if (control != null) {
            try {
                closing = control.closeConnection(id, provider, OPERATOR_CLOSE);
            } catch (IllegalArgumentException e) {
                return "close: " + e.getMessage() + " (smbd:close " + id + " PROVIDER)\n";
            }
        } else {
            // a transport without operator close: only the test connections opened here
            closing = provider == null ? testConnections.close(id) : null;
        }
        if (closing == null) {
            return "no live connection " + id + (provider == null ? "" : " on provider " + provider)
                    + (control == null ? " opened with smbd:connect" : "") + " (see smbd:connections)\n";
        }
        try {
            closing.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            return "connection " + id + " closed\n";
        } catch (ExecutionException | TimeoutException e) {
            return "closing connection " + id + " did not complete: " + e + "\n";
        }
    }

    @Descriptor("measure throughput, message rate, credit stalls and latency; 'smbd:perf --help' lists the options")
    public String perf(@Descriptor("options") String... args) throws InterruptedException {
        List<String> list = new ArrayList<>(Arrays.asList(args));
        if (list.contains("--help") || list.contains("-h")) {
            return PERF_HELP;
        }
        if (!list.isEmpty() && list.get(0).equals("stop")) {
            return closePerfServers();
        }
        PerfOptions options;
        try {
            options = PerfOptions.parse(list);
        } catch (IllegalArgumentException e) {
            return "perf: " + e.getMessage() + "\n" + PERF_HELP;
        }
        if (options.trace() != null) {
            return "perf: --trace is an option of the runtime's batch mode (java -jar smbdirect.jar perf --trace FILE)\n";
        }
        try {
            if (options.listen() != null) {
                PerfServer server = new PerfServer();
                SmbDirectListener l = Perf.serve(transport, options, server);
                perfServers.add(new PerfServerEnd(l, server));
                return "perf server listening on " + l.localAddress() + " over " + l.providerName()
                        + " (stop with 'smbd:perf stop')\n";
            }
            return Perf.run(transport, options).format();
        } catch (PerfException e) {
            return "perf failed: " + e.getMessage() + "\n";
        }
    }

    @Descriptor("Wireshark traces of every SMB Direct message: 'trace start FILE [LIMIT]', 'trace stop'")
    public String trace() {
        TraceRun run = trace.get();
        return (run == null ? "no trace running\n" : "tracing to " + run.path() + "\n") + TRACE_HELP;
    }

    @Descriptor("'trace stop' ends the Wireshark trace and reports what it holds")
    public String trace(@Descriptor("stop") String action) throws IOException {
        if (!action.equals("stop")) {
            return TRACE_HELP;
        }
        TraceRun run = trace.getAndSet(null);
        if (run == null) {
            return "no trace running\n";
        }
        TraceControl control = traceControl;
        if (control != null) {
            control.setTraceSink(TraceSink.NONE);
        }
        run.writer().close();
        return traceSummary(run.path(), run.writer());
    }

    @Descriptor("'trace start FILE' writes every SMB Direct message to FILE (pcap for Wireshark/tshark), at most 100000")
    public String trace(@Descriptor("start") String action, @Descriptor("pcap file") String file) throws IOException {
        return trace(action, file, PcapTraceWriter.DEFAULT_MAX_MESSAGES);
    }

    @Descriptor("'trace start FILE LIMIT' writes at most LIMIT messages to FILE")
    public String trace(@Descriptor("start") String action, @Descriptor("pcap file") String file,
            @Descriptor("message limit") long limit) throws IOException {
        if (!action.equals("start")) {
            return TRACE_HELP;
        }
        TraceControl control = traceControl;
        if (control == null) {
            return "trace: this transport offers no tracing\n";
        }
        if (limit < 1) {
            return "trace: the message limit must be at least 1, not " + limit + "\n";
        }
        Path path = Path.of(file).toAbsolutePath();
        PcapTraceWriter writer = PcapTraceWriter.open(path, limit);
        if (!trace.compareAndSet(null, new TraceRun(path, writer))) {
            writer.close();
            return "trace: a trace is already running; 'smbd:trace stop' first\n";
        }
        control.setTraceSink(writer);
        return "tracing every SMB Direct message to " + path + " (at most " + limit + "); stop with 'smbd:trace stop'\n";
    }

    static String traceSummary(Path path, PcapTraceWriter writer) {
        StringBuilder b = new StringBuilder();
        b.append("trace ").append(path).append(": ").append(writer.written()).append(" messages written, ").append(writer.dropped())
                .append(" dropped (limit ").append(writer.maxMessages()).append(")\n");
        if (writer.failure() != null) {
            b.append("trace: writing failed: ").append(writer.failure().getMessage()).append('\n');
        }
        return b.toString();
    }

    private static final String TRACE_HELP = """
            smbd:trace start FILE [LIMIT]   trace every SMB Direct message to FILE (pcap; default limit 100000)
            smbd:trace stop                 stop and report; open FILE with Wireshark or
                                            tshark --disable-heuristic smcr_infiniband -r FILE
            """;

    private static final String PERF_HELP = """
            smbd:perf [options]            client and server end here, over the selected provider
            smbd:perf --connect host:port  client end against a remote 'perf --listen'
            smbd:perf --listen host:port   server end only (stop with 'smbd:perf stop')
            """ + PerfOptions.usage();

    @Deactivate
    void deactivate() throws IOException {
        closePerfServers();
        if (trace.get() != null) {
            trace("stop");
        }
    }

    /** Closes the server ends of {@code smbd:perf --listen}; returns how many, each with its summary. */
    private String closePerfServers() {
        StringBuilder summaries = new StringBuilder();
        int n = 0;
        for (PerfServerEnd end : perfServers) {
            if (perfServers.remove(end)) {
                try {
                    end.listener().close().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    summaries.append("closing ").append(end.listener().localAddress()).append(" did not complete: ")
                            .append(e).append('\n');
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                summaries.append(end.listener().localAddress()).append(": ").append(end.server().summary()).append('\n');
                n++;
            }
        }
        return n + " perf server(s) stopped\n" + summaries;
    }
}
