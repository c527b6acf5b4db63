package smbdirect.ops.console;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.control.ConnectionControl;
import smbdirect.ops.health.TransportHealth;
import smbdirect.ops.monitor.TransportMonitor;
import smbdirect.impl.control.SettingsFindings;
import smbdirect.ops.shell.TestConnections;

/**
 * Web Console page "SMB Direct" (label {@value #LABEL}) an operator keeps open: health, providers
 * with their capabilities and live charts, listeners, live connections (a compact row each, every
 * variable and counter and per-connection charts on demand), recently closed connections with their
 * close reasons, and the settings in force, with units. The page draws itself from
 * {@code /system/console/smbdirect.json} (also for monitoring scripts: the runtime DTO, the health
 * evaluation and the {@link TransportMonitor}'s history) and refreshes in place every few seconds;
 * its script, style sheet and Chart.js (from the WebJar, MIT licence) are served under
 * {@code /system/console/smbdirect/res/}. Two actions, both POST with a per-instance token: open a
 * test connection to the first open listener, close any live connection (its upper layer is told
 * LOCAL_CLOSE "closed by operator (Web Console)").
 *
 * <p>Independent of the servlet API: {@link JakartaStatusPlugin} (the Felix Web Console 5) and
 * {@link StatusPlugin} (javax, Karaf's Web Console) hand it their requests as {@link Exchange}s
 * ({@link ServletExchange}: the request's and response's methods, nothing else);
 * {@link StatusPlugins} registers the one the console in the framework takes.
 *
 * <p>Thread-safe: requests are served concurrently; the only state is the immutable token.
 */
public final class StatusPage {

    /** A request and its response, whichever servlet API carries them. */
    public interface Exchange {
        /** The path after the console's root ({@code /smbdirect}, {@code /smbdirect.json}, ...), or null. */
        String pathInfo();

        String parameter(String name);

        String[] parameters(String name);

        String header(String name);

        Object attribute(String name);

        /** The context path followed by the servlet path (the console's root when no attribute says it). */
        String servletRoot();

        String requestUri();

        void contentType(String type, String encoding);

        void header(String name, String value);

        PrintWriter writer() throws IOException;

        OutputStream output() throws IOException;

        void sendError(int status, String message) throws IOException;

        void sendRedirect(String location) throws IOException;
    }

    /** A getter of a servlet API that may throw {@link IOException}. */
    @FunctionalInterface
    public interface IoGetter<T> {
        T get() throws IOException;
    }

    /** {@code sendError(int, String)} of a servlet API. */
    @FunctionalInterface
    public interface ErrorSender {
        void send(int status, String message) throws IOException;
    }

    /** {@code sendRedirect(String)} of a servlet API. */
    @FunctionalInterface
    public interface Redirector {
        void redirect(String location) throws IOException;
    }

    /**
     * An {@link Exchange} made of the methods of a servlet request and response, whichever API
     * (javax or Jakarta) they come from: all a servlet adapter of the page hands over.
     */
    public record ServletExchange(Supplier<String> pathInfoOf, UnaryOperator<String> parameterOf,
            Function<String, String[]> parametersOf, UnaryOperator<String> headerOf, Function<String, Object> attributeOf,
            Supplier<String> contextPath, Supplier<String> servletPath, Supplier<String> requestUriOf,
            Consumer<String> setContentType, Consumer<String> setCharacterEncoding, BiConsumer<String, String> setHeader,
            IoGetter<PrintWriter> writerOf, IoGetter<OutputStream> outputOf, ErrorSender error, Redirector redirector)
            implements Exchange {

        @Override
        public String pathInfo() {
            return pathInfoOf.get();
        }

        @Override
        public String parameter(String name) {
            return parameterOf.apply(name);
        }

        @Override
        public String[] parameters(String name) {
            return parametersOf.apply(name);
        }

        @Override
        public String header(String name) {
            return headerOf.apply(name);
        }

        @Override
        public Object attribute(String name) {
            return attributeOf.apply(name);
        }

        @Override
        public String servletRoot() {
            return contextPath.get() + servletPath.get();
        }

        @Override
        public String requestUri() {
            return requestUriOf.get();
        }

        @Override
        public void contentType(String type, String encoding) {
            setContentType.accept(type);
            setCharacterEncoding.accept(encoding);
        }

        @Override
        public void header(String name, String value) {
            setHeader.accept(name, value);
        }

        @Override
        public PrintWriter writer() throws IOException {
            return writerOf.get();
        }

        @Override
        public OutputStream output() throws IOException {
            return outputOf.get();
        }

        @Override
        public void sendError(int status, String message) throws IOException {
            error.send(status, message);
        }

        @Override
        public void sendRedirect(String location) throws IOException {
            redirector.redirect(location);
        }
    }

    static final int SC_FORBIDDEN = 403;
    static final int SC_NOT_FOUND = 404;

    static final String LABEL = "smbdirect";
    /** Chart.js in this bundle, at its WebJar path (org.webjars.npm:chart.js). */
    static final String CHART_JS = "/META-INF/resources/webjars/chart.js/4.4.1/";
    /** The resources the page serves under res/ (nothing else), by their paths in this bundle. */
    static final Map<String, String> SERVED = Map.of(
            "status.js", "/smbdirect-console/status.js",
            "status.css", "/smbdirect-console/status.css",
            "chart.umd.js", CHART_JS + "dist/chart.umd.js",
            "chart.js-LICENSE.md", CHART_JS + "LICENSE.md");
    /** Refresh period of the page. */
    static final int REFRESH_MILLIS = 2000;

    private static final Logger LOG = LoggerFactory.getLogger(StatusPage.class);
    private static final long WAIT_SECONDS = 35;

    /** The reason the upper layer of a connection closed on this page is told. */
    static final CloseReason OPERATOR_CLOSE = CloseReason.of(CloseReason.Kind.LOCAL_CLOSE,
            "closed by operator (Web Console)");

    private final String token = newToken();

    private final SmbDirectTransport transport;
    private final TestConnections testConnections;
    private final TransportMonitor monitor;
    private final Supplier<ConnectionControl> connectionControl;
    private final Supplier<SettingsFindings> settings;

    /** {@code settings}: the settings guard's findings (refused values, typos), shown as WARN findings of the health. */
    public StatusPage(SmbDirectTransport transport, TestConnections testConnections, TransportMonitor monitor,
            Supplier<ConnectionControl> connectionControl, Supplier<SettingsFindings> settings) {
        this.transport = transport;
        this.testConnections = testConnections;
        this.monitor = monitor;
        this.connectionControl = connectionControl;
        this.settings = settings;
    }

    private static String newToken() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * The page's static resources, found by the Web Console ({@code getResource(String)} of a plugin):
     * {@code /smbdirect/res/NAME} for the names in {@link #SERVED}.
     */
    public URL getResource(String path) {
        String prefix = "/" + LABEL + "/res/";
        if (path == null || !path.startsWith(prefix)) {
            return null;
        }
        String resource = SERVED.get(path.substring(prefix.length()));
        return resource == null ? null : StatusPage.class.getResource(resource);
    }

    /**
     * GET: the page, its JSON ({@code .json}) or one of its resources ({@code res/NAME}, served here
     * where a console does not ask {@link #getResource(String)} first).
     */
    public void get(Exchange exchange) throws IOException {
        String path = exchange.pathInfo() == null ? "" : exchange.pathInfo();
        if (path.startsWith("/" + LABEL + "/res/")) {
            resource(exchange, path);
            return;
        }
        if (path.endsWith(".json")) {
            json(exchange);
            return;
        }
        exchange.contentType("text/html", "UTF-8");
        page(exchange, exchange.writer());
    }

    private void resource(Exchange exchange, String path) throws IOException {
        URL url = getResource(path);
        if (url == null) {
            exchange.sendError(SC_NOT_FOUND, "no such resource");
            return;
        }
        String type = path.endsWith(".js") ? "text/javascript" : path.endsWith(".css") ? "text/css" : "text/markdown";
        exchange.contentType(type, "UTF-8");
        try (InputStream in = url.openStream()) {
            in.transferTo(exchange.output());
        }
    }

    private void json(Exchange exchange) throws IOException {
        exchange.contentType("application/json", "UTF-8");
        exchange.header("Cache-Control", "no-store");
        String[] asked = exchange.parameters("connection");
        StringWriter out = new StringWriter();
        writeJson(out, asked == null ? List.of() : Arrays.asList(asked));
        exchange.writer().write(out.toString());
    }

    /** The JSON of the page and of smbdirect.json, with the histories of the connections {@code keys}. */
    void writeJson(Writer out, List<String> keys) throws IOException {
        TransportDTO dto = transport.getTransportDTO(); // fresh: what was just done shows at once
        TransportHealth.Report health = TransportHealth.withSettings(TransportHealth.evaluate(dto, monitor),
                settings.get());
        StatusJson.write(out, System.currentTimeMillis(), dto, health, monitor.latestOfConnections(),
                monitor.providerHistory(), monitor.connectionHistory(keys));
    }

    private void page(Exchange request, PrintWriter w) throws IOException {
        Object root = request.attribute("felix.webconsole.appRoot");
        String app = root instanceof String s ? s : request.servletRoot();
        String self = app + "/" + LABEL;
        String message = request.parameter("message");
        w.append("<link rel='stylesheet' href='").append(esc(self)).append("/res/status.css'>");
        w.append("<div id='smbd' data-json='").append(esc(self)).append(".json' data-action='").append(esc(self))
                .append("' data-token='").append(token).append("' data-refresh='").append(Integer.toString(REFRESH_MILLIS))
                .append("' data-window='").append(Long.toString(TransportMonitor.SAMPLES * TransportMonitor.INTERVAL_MILLIS / 1000))
                .append("'>");
        if (message != null && !message.isEmpty()) {
            w.append("<p id='smbd-message' class='smbd-message'>").append(esc(message)).append("</p>");
        }
        // the health once: its status and its findings (which count the providers, listeners and connections)
        w.append("<div class='smbd-bar'><span id='smbd-status' class='smbd-badge'>…</span>")
                .append("<ul id='smbd-health' class='smbd-health'></ul>")
                .append("<span class='smbd-spacer'></span>")
                .append("<label class='smbd-live'><input type='checkbox' id='smbd-live' checked> refresh every ")
                .append(Integer.toString(REFRESH_MILLIS / 1000)).append(" s</label>")
                .append("<span id='smbd-updated' class='smbd-updated'></span>")
                .append("<form method='post' id='smbd-connect-form' action='").append(esc(self)).append("'>")
                .append("<input type='hidden' name='token' value='").append(token).append("'>")
                .append("<input type='hidden' name='action' value='connect'>")
                .append("<button type='submit' id='smbd-connect' title='connects to the first open listener with the"
                        + " settings in force; the connection stays open until closed here'>Open test connection</button>")
                .append("</form></div>");
        w.append("<h2 class='smbd-h'>Providers</h2><div id='smbd-providers' class='smbd-providers'></div>");
        w.append("<h2 class='smbd-h'>Listeners</h2><table id='smbd-listeners' class='smbd-table'><thead><tr>");
        head(w, "Name", "Address", "Provider", "State", "Requests", "Accepted", "Declined", "Refused",
                "Negotiation failures", "Negotiating", "Live", "Detail");
        w.append("</tr></thead><tbody></tbody></table>");
        w.append("<h2 class='smbd-h'>Listener events <span class='smbd-count'>the last 16 per listener</span></h2>")
                .append("<table id='smbd-listener-events' class='smbd-table'><thead><tr>");
        head(w, "Time", "Listener", "Event", "Peer", "Provider", "Connection", "Reason", "Rule", "Detail");
        w.append("</tr></thead><tbody></tbody></table>");
        w.append("<h2 class='smbd-h'>Connections <span id='smbd-connection-count' class='smbd-count'></span></h2>")
                .append("<table id='smbd-connections' class='smbd-table'><thead><tr>");
        head(w, "", "Id", "Role", "State", "Provider", "Peer", "Out", "In", "Messages out / in", "Credits held / granted",
                "Credit stalls", "");
        w.append("</tr></thead><tbody></tbody></table>");
        w.append("<h2 class='smbd-h'>Recently closed</h2><table id='smbd-closed' class='smbd-table'><thead><tr>");
        head(w, "Id", "Role", "Provider", "Peer", "Closed", "Close reason", "Messages out / in", "Credit stalls");
        w.append("</tr></thead><tbody></tbody></table><p id='smbd-failures' class='smbd-note'></p>");
        // the Web Console's form returns to its referer after Save: here, where the health says what was refused
        String form = app + "/configMgr/smbdirect.transport?referer=" + URLEncoder.encode(self, StandardCharsets.UTF_8);
        w.append("<h2 class='smbd-h'>Settings in force <span class='smbd-count'>configuration smbdirect.transport</span>")
                .append(" <a id='smbd-edit-settings' class='smbd-count' href='").append(esc(form))
                .append("' title='the configuration form; after Save it comes back here, where a refused value is named'>")
                .append("edit</a></h2><table id='smbd-settings' class='smbd-table smbd-settings'><tbody></tbody></table>");
        w.append("<p class='smbd-note'>The same data for scripts: <a href='").append(esc(self)).append(".json'>")
                .append(esc(self)).append(".json</a> (the runtime DTO, health and the last ")
                .append(Long.toString(TransportMonitor.SAMPLES * TransportMonitor.INTERVAL_MILLIS / 60_000))
                .append(" minutes per provider; add <code>?connection=PROVIDER/ID</code> for a connection's).")
                .append(" Charts: Chart.js 4.4.1 (<a href='").append(esc(self)).append("/res/chart.js-LICENSE.md'>MIT</a>).</p>");
        w.append("<noscript><p>This page draws itself with JavaScript; the same data: smbdirect.json</p></noscript>");
        w.append("</div>");
        StringWriter json = new StringWriter();
        writeJson(json, List.of());
        // inside a script element: no "</script" can occur once every '<' is escaped (JSON allows \u003c)
        w.append("<script type='application/json' id='smbd-initial'>")
                .append(json.toString().replace("<", "\\u003c")).append("</script>");
        w.append("<script src='").append(esc(self)).append("/res/chart.umd.js'></script>");
        w.append("<script src='").append(esc(self)).append("/res/status.js'></script>");
    }

    /** POST: the page's actions (a test connection, closing a connection), then back to the page. */
    public void post(Exchange request) throws IOException {
        if (!sameOrigin(request) || !tokenMatches(request.parameter("token"))) {
            request.sendError(SC_FORBIDDEN, "missing or wrong form token");
            return;
        }
        String action = String.valueOf(request.parameter("action"));
        String message;
        try {
            message = switch (action) {
                case "connect" -> connect();
                case "close" -> close(Long.parseLong(String.valueOf(request.parameter("id"))),
                        request.parameter("provider"));
                default -> "unknown action " + action;
            };
        } catch (NumberFormatException e) {
            message = "close needs a connection id, not " + request.parameter("id");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            message = "interrupted";
        }
        request.sendRedirect(request.requestUri() + "?message=" + URLEncoder.encode(message, StandardCharsets.UTF_8));
    }

    private String connect() throws InterruptedException {
        try {
            SmbDirectConnection c = testConnections.open(null).toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            return "Test connection " + c.id() + " established to " + c.peerAddress();
        } catch (IllegalStateException e) {
            return "Cannot open a test connection: " + e.getMessage();
        } catch (ExecutionException e) {
            return "Test connection failed: " + e.getCause().getMessage();
        } catch (TimeoutException e) {
            return "Test connection did not complete within " + WAIT_SECONDS + " s";
        }
    }

    private String close(long id, String provider) throws InterruptedException {
        String on = provider == null || provider.isEmpty() ? null : provider;
        ConnectionControl control = connectionControl.get();
        CompletionStage<Void> closing;
        if (control != null) {
            try {
                closing = control.closeConnection(id, on, OPERATOR_CLOSE);
            } catch (IllegalArgumentException e) {
                return "Connection " + id + " not closed: " + e.getMessage();
            }
        } else {
            closing = testConnections.close(id);
        }
        if (closing == null) {
            return "Connection " + id + (on == null ? "" : " on provider " + on) + " is no live connection"
                    + (control == null ? " opened here" : "");
        }
        try {
            closing.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            return "Connection " + id + " closed";
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("closing test connection {} failed", id, e);
            return "Closing connection " + id + " did not complete: " + e.getMessage();
        }
    }

    private boolean tokenMatches(String given) {
        return given != null && MessageDigest.isEqual(token.getBytes(StandardCharsets.US_ASCII),
                given.getBytes(StandardCharsets.US_ASCII));
    }

    private static boolean sameOrigin(Exchange request) {
        String origin = request.header("Origin");
        if (origin == null || origin.equals("null")) {
            return true;
        }
        String host = request.header("Host");
        return host != null && (origin.equals("http://" + host) || origin.equals("https://" + host));
    }

    private static void head(PrintWriter w, String... names) {
        for (String n : names) {
            w.append("<th>").append(esc(n)).append("</th>");
        }
    }

    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
