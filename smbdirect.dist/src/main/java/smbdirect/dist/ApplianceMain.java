package smbdirect.dist;

import java.io.Console;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.util.tracker.ServiceTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.dist.etc.ConsoleCredentials;
import smbdirect.dist.launch.ApplianceHome;
import smbdirect.perf.Perf;
import smbdirect.perf.PerfException;
import smbdirect.perf.PerfOptions;
import smbdirect.perf.PerfResult;
import smbdirect.perf.PerfServer;

/**
 * The launcher's main thread (bnd launcher: a {@code Callable<Integer>} service with
 * {@code main.thread=true}; its result is the process exit status).
 *
 * <ul>
 * <li>{@code java -jar smbdirect.jar}: prints the banner, opens an interactive Gogo shell when a
 * terminal is attached, and runs until the shell exits ({@code exit}, {@code exit N},
 * {@code shutdown}: {@link ShellExit}; Ctrl-D), SIGTERM or SIGINT arrives, or the framework is
 * stopped; exit status 0 ({@code N} after {@code exit N}). While a command typed at the prompt
 * runs, the console log's lines are held back and shown after its output ({@link ShellConsole}). The banner offers the shell's commands
 * only when there is a shell, and says where a generated Web Console password is, never what.
 * <li>{@code java -jar smbdirect.jar perf [options]}: runs the perf workload and exits 0 on
 * success, 1 when the run failed, 2 on bad options; {@code perf --help} prints the usage. It prints
 * its own lines only, the runtime's log with {@code -v} ({@link ApplianceHome}). SIGTERM or SIGINT during a client run ends it
 * early: nothing more is sent, the server confirms what it received, and the figures so far are
 * printed (exit status 0). {@code --provider iwarp} with no iWARP
 * configuration in {@code etc/} configures the software iWARP provider for this run only: allowed
 * to listen on the {@code --listen} address (a run in one process: on the {@code --local} address,
 * any port), connecting only otherwise.
 * </ul>
 *
 * <p>Thread-safe: {@link #call()} runs once on the launcher's main thread; deactivation may come
 * from any thread and releases it.
 */
@Component(service = Callable.class, immediate = true, property = "main.thread=true")
public class ApplianceMain implements Callable<Integer> {

    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    private static final Logger LOG = LoggerFactory.getLogger(ApplianceMain.class);
    private static final String LAUNCHER_ARGUMENTS = "launcher.arguments";
    private static final long STARTUP_WAIT_MILLIS = 15_000;
    /** The software iWARP provider: its name and configuration PID. */
    static final String IWARP = "iwarp";
    static final String IWARP_PID = "smbdirect.rdma.iwarp";

    private final AtomicReference<ShutdownSignal> running = new AtomicReference<>();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private BundleContext context;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile CommandProcessor commandProcessor;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ConsoleCredentials consoleCredentials;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ConfigurationAdmin configurationAdmin;

    @Activate
    void activate(BundleContext bundleContext) {
        this.context = bundleContext;
    }

    @Deactivate
    void deactivate() {
        ShutdownSignal signal = running.get();
        if (signal != null) {
            signal.release("runtime stopping");
        }
    }

    @Override
    public Integer call() throws Exception {
        List<String> args = Arrays.asList(launcherArguments());
        if (args.isEmpty()) {
            return serve();
        }
        switch (args.get(0)) {
            case "perf":
                return perf(args.subList(1, args.size()));
            case "help":
            case "-h":
            case "--help":
                usage(out);
                return EXIT_OK;
            default:
                err.println("unknown command '" + args.get(0) + "'");
                usage(err);
                return EXIT_USAGE;
        }
    }

    private void usage(PrintStream stream) {
        stream.println("usage: java -jar smbdirect.jar                 run the appliance runtime (Web Console, shell)");
        stream.println("       java -jar smbdirect.jar perf [options]  run the perf workload and exit: the client and");
        stream.println("                                               the server end in this process, or one of them");
        stream.println("                                               with --connect or --listen");
        stream.println("perf options:");
        stream.print(PerfOptions.usage());
        stream.println("exit status: 0 done (every byte confirmed), 1 the run failed, 2 bad options");
        stream.flush();
    }

    private int serve() throws Exception {
        try (ShutdownSignal signal = new ShutdownSignal()) {
            running.set(signal);
            awaitTransport();
            boolean interactive = terminalAttached() && commandProcessor != null;
            banner(out, interactive);
            ShellConsole console = interactive ? startShell(signal) : null;
            String cause = signal.await();
            if (console != null) {
                console.close(); // the log lines of the stop are shown as they come
            }
            LOG.info("stopping the runtime ({})", cause);
            return signal.status();
        } finally {
            running.set(null);
        }
    }

    private int perf(List<String> args) throws Exception {
        PerfOptions options;
        try {
            options = PerfOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("perf: " + e.getMessage());
            err.println("perf --help lists the options");
            return EXIT_USAGE;
        }
        if (options.help()) {
            usage(out);
            return EXIT_OK;
        }
        try (ShutdownSignal signal = new ShutdownSignal()) {
            running.set(signal);
            SmbDirectTransport transport = awaitTransport();
            if (transport == null) {
                err.println("perf failed: no SMB Direct transport service came up within "
                        + STARTUP_WAIT_MILLIS / 1000 + " s");
                return EXIT_FAILED;
            }
            ConsoleCredentials console = consoleCredentials;
            if (console != null) { // a batch run with its Web Console (-Dorg.osgi.service.http.port given)
                String base = "http://" + property("org.osgi.service.http.host", "127.0.0.1") + ":"
                        + property("org.osgi.service.http.port", "8080") + "/system/console/smbdirect";
                out.println("perf: Web Console " + base + ", " + credentials());
            }
            if (options.provider() != null) {
                awaitProvider(transport, options);
            }
            if (options.listen() != null) {
                PerfServer server = new PerfServer(line -> {
                    out.println(line); // each connection's run as it ends
                    out.flush();
                });
                SmbDirectListener listener = Perf.serve(transport, options, server);
                out.println("perf server listening on " + listener.localAddress() + " over "
                        + listener.providerName() + "; stop with SIGTERM or SIGINT");
                out.flush();
                signal.await();
                listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
                out.println(server.summary());
                return EXIT_OK;
            }
            CommandSession trace = options.trace() == null ? null : startTrace(options);
            try {
                PerfResult result = Perf.run(transport, options, signal.released());
                if (signal.cause() != null) {
                    out.println("perf: stopped early by " + signal.cause() + "; the figures cover the run until then");
                }
                out.print(result.format());
            } finally {
                if (trace != null) {
                    out.print(String.valueOf(trace.execute("smbd:trace stop")));
                    trace.close();
                }
            }
            return EXIT_OK;
        } catch (PerfException e) {
            err.println("perf failed: " + e.getMessage());
            return EXIT_FAILED;
        } finally {
            running.set(null);
        }
    }

    /**
     * Waits (bounded) until the named provider is registered; for {@code iwarp} without a
     * configuration, first configures it for this run (a batch run writes nothing to etc/).
     */
    private void awaitProvider(SmbDirectTransport transport, PerfOptions options)
            throws PerfException, InterruptedException {
        String name = options.provider();
        if (IWARP.equals(name) && !hasProvider(transport, name)) {
            configureIwarpForThisRun(options);
        }
        long deadline = System.currentTimeMillis() + STARTUP_WAIT_MILLIS;
        while (!hasProvider(transport, name)) {
            if (System.currentTimeMillis() > deadline) {
                throw new PerfException("no RDMA provider '" + name + "' is registered"
                        + (IWARP.equals(name) ? " (see the log for the iWARP configuration refused)" : ""));
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    private void configureIwarpForThisRun(PerfOptions options) throws PerfException {
        ConfigurationAdmin cm = configurationAdmin;
        if (cm == null) {
            throw new PerfException("--provider iwarp needs Config Admin, which is not running");
        }
        try {
            Configuration[] existing = cm.listConfigurations("(service.pid=" + IWARP_PID + ")");
            if (existing != null) {
                return; // etc/smbdirect.rdma.iwarp.cfg is in force; the provider is coming or refused
            }
            // --listen: that address and port; a run in one process (no --connect): its own server
            // end on the --local address, any port; --connect alone: no listener at all
            String allowed = options.listen() != null ? hostPort(options.listen())
                    : options.connect() == null && options.local() != null ? host(options.local()) : null;
            Hashtable<String, Object> props = new Hashtable<>();
            props.put("listenAddresses", allowed == null ? new String[0] : new String[] {allowed});
            cm.getConfiguration(IWARP_PID, "?").update(props);
            LOG.info("No {} configuration in etc/: the iWARP provider is configured for this run ({})", IWARP_PID,
                    allowed == null ? "connects only" : "may listen on " + allowed);
        } catch (java.io.IOException | InvalidSyntaxException e) {
            throw new PerfException("cannot configure the iWARP provider: " + e.getMessage(), e);
        }
    }

    private static String hostPort(java.net.InetSocketAddress a) {
        return bracketed(a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()) + ":"
                + a.getPort();
    }

    /** An address alone, as {@code listenAddresses} takes it (any port). */
    private static String host(java.net.InetAddress a) {
        return bracketed(a.getHostAddress());
    }

    /** An IPv6 literal in brackets, anything else as it is. */
    private static String bracketed(String host) {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    private static boolean hasProvider(SmbDirectTransport transport, String name) {
        ProviderDTO[] providers = transport.getTransportDTO().providers;
        if (providers != null) {
            for (ProviderDTO p : providers) {
                if (name.equals(p.name)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Starts {@code smbd:trace} for the run (the command owns the writer and the engine hook). */
    private CommandSession startTrace(PerfOptions options) throws PerfException {
        CommandProcessor processor = commandProcessor;
        if (processor == null) {
            throw new PerfException("--trace needs the smbd:trace command, but Gogo is not running");
        }
        CommandSession session = processor.createSession(InputStream.nullInputStream(), OutputStream.nullOutputStream(),
                OutputStream.nullOutputStream());
        try {
            session.put("smbdTraceFile", options.trace().toAbsolutePath().toString());
            session.put("smbdTraceLimit", (long) options.traceLimit());
            Object reply = session.execute("smbd:trace start $smbdTraceFile $smbdTraceLimit");
            String text = String.valueOf(reply);
            if (!text.startsWith("tracing")) {
                throw new PerfException("--trace " + options.trace() + ": " + text.trim());
            }
            return session;
        } catch (PerfException e) {
            session.close();
            throw e;
        } catch (Exception e) {
            session.close();
            throw new PerfException("--trace " + options.trace() + " could not start: " + e.getMessage(), e);
        }
    }

    /**
     * Waits until the transport is registered and has selected a provider (bounded), so a banner
     * or a perf run does not race the runtime's start.
     */
    private SmbDirectTransport awaitTransport() throws InterruptedException {
        ServiceTracker<SmbDirectTransport, SmbDirectTransport> tracker =
                new ServiceTracker<>(context, SmbDirectTransport.class, null);
        tracker.open();
        try {
            long deadline = System.currentTimeMillis() + STARTUP_WAIT_MILLIS;
            SmbDirectTransport transport = tracker.waitForService(STARTUP_WAIT_MILLIS);
            while (transport != null && System.currentTimeMillis() < deadline) {
                TransportDTO dto = transport.getTransportDTO();
                if (hasSelectedProvider(dto) && (dto.listeners == null || allSettled(dto.listeners))) {
                    return transport;
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
            return transport;
        } finally {
            tracker.close();
        }
    }

    private static boolean hasSelectedProvider(TransportDTO dto) {
        if (dto.providers == null) {
            return false;
        }
        for (ProviderDTO p : dto.providers) {
            if (p.selected) {
                return true;
            }
        }
        return false;
    }

    private static boolean allSettled(ListenerDTO[] listeners) {
        for (ListenerDTO l : listeners) {
            if ("WAITING".equals(l.state)) {
                return false;
            }
        }
        return true;
    }

    /** The start banner; the shell's commands only when this process has an interactive shell. */
    private void banner(PrintStream stream, boolean shell) {
        String host = property("org.osgi.service.http.host", "127.0.0.1");
        String port = property("org.osgi.service.http.port", "8080");
        String base = "http://" + host + ":" + port + "/system/console";
        stream.println();
        stream.println("SMB Direct runtime is up.");
        stream.println("  Home:         " + property(ApplianceHome.HOME, System.getProperty("user.dir"))
                + "   (configuration files in etc/, framework state in data/)");
        stream.println("  Web Console:  " + base + "/smbdirect   (status page; configuration under "
                + base + "/configMgr)");
        stream.println("  Credentials:  " + credentials());
        stream.println("  Listeners:    " + listeners());
        stream.println("  Monitoring:   " + base + "/smbdirect.json (JSON), JMX domain smbdirect, health check tag smbdirect");
        if (shell) {
            stream.println("  Shell:        smbd:connections, smbd:listeners, smbd:providers, smbd:perf --help, smbd:trace;"
                    + " exit (or shutdown) stops the runtime");
        } else {
            stream.println("  Stop:         SIGTERM or SIGINT (no terminal attached: no interactive shell)");
        }
        stream.println();
    }

    private String credentials() {
        ConsoleCredentials c = consoleCredentials;
        if (c == null) {
            return "not known (smbdirect.dist did not prepare etc/)";
        }
        if (c.generatedFile().isPresent() && c.generatedNow()) {
            return "user " + c.user() + ", password generated at this first start in " + c.generatedFile().get()
                    + " (readable by this user only; change it: Configuration > Apache Felix OSGi Management Console)";
        }
        return "user " + c.user() + ", password as configured (hash in " + c.file() + ")"
                + c.generatedFile().map(f -> "; the one generated at the first start is in " + f + " until changed")
                        .orElse("");
    }

    private String listeners() {
        ServiceReference<SmbDirectTransport> ref = context.getServiceReference(SmbDirectTransport.class);
        SmbDirectTransport transport = ref == null ? null : context.getService(ref);
        if (transport == null) {
            return "transport not available yet";
        }
        try {
            TransportDTO dto = transport.getTransportDTO();
            if (dto.listeners == null || dto.listeners.length == 0) {
                return "none configured (factory configuration smbdirect.listener)";
            }
            StringBuilder b = new StringBuilder();
            for (ListenerDTO l : dto.listeners) {
                if (b.length() > 0) {
                    b.append(", ");
                }
                b.append(l.name == null ? "(unnamed)" : l.name).append(' ').append(l.address).append(" on ")
                        .append(l.provider == null ? "no provider" : l.provider).append(' ').append(l.state);
            }
            return b.toString();
        } finally {
            context.ungetService(ref);
        }
    }

    /**
     * Opens the interactive shell on the terminal, with the console log held back while a command
     * runs ({@link ShellConsole}); returns that console, or {@code null} without Gogo.
     */
    private ShellConsole startShell(ShutdownSignal signal) {
        CommandProcessor processor = commandProcessor;
        if (processor == null) {
            out.println("Gogo is not available: running without the interactive shell; stop with Ctrl-C.");
            return null;
        }
        ServiceRegistration<?> exit = ShellExit.register(context, signal);
        AtomicReference<CommandSession> shellSession = new AtomicReference<>();
        ShellConsole console = ShellConsole.install(() -> {
            CommandSession s = shellSession.get();
            Object prompt = s == null ? null : s.get("prompt");
            return prompt instanceof CharSequence text ? text.toString() : null;
        });
        Thread shell = new Thread(() -> {
            try (CommandSession session = processor.createSession(
                    console.keyboard(new FileInputStream(FileDescriptor.in)),
                    console.output(new FileOutputStream(FileDescriptor.out)),
                    console.errors(new FileOutputStream(FileDescriptor.err)))) {
                shellSession.set(session);
                long deadline = System.currentTimeMillis() + STARTUP_WAIT_MILLIS;
                while (session.get("gogo:gosh") == null && System.currentTimeMillis() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(20);
                }
                session.execute("gosh --login --noshutdown");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                Throwable cause = e;
                while (cause.getCause() != null) {
                    cause = cause.getCause();
                }
                console.close();
                LOG.warn("the interactive shell ended with an error: {}", cause.toString(), e);
            } finally {
                console.close();
                signal.release("shell exited");
                try {
                    exit.unregister();
                } catch (IllegalStateException e) {
                    // already gone with the framework
                }
            }
        }, "smbdirect-shell");
        shell.setDaemon(true);
        shell.start();
        return console;
    }

    /** Whether stdin and stdout are a terminal (JDK 22+ also reports a console for pipes). */
    static boolean terminalAttached() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    private String property(String key, String fallback) {
        String value = context.getProperty(key);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    private String[] launcherArguments() throws InvalidSyntaxException {
        ServiceReference<?>[] refs = context.getServiceReferences((String) null, "(" + LAUNCHER_ARGUMENTS + "=*)");
        if (refs == null) {
            return new String[0];
        }
        Object value = refs[0].getProperty(LAUNCHER_ARGUMENTS);
        return value instanceof String[] a ? a : new String[0];
    }
}
