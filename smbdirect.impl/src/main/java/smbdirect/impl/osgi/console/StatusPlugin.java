package smbdirect.impl.osgi.console;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.servlet.Servlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.osgi.ConnectionControl;
import smbdirect.impl.osgi.health.TransportHealth;
import smbdirect.impl.osgi.shell.DtoText;
import smbdirect.impl.osgi.shell.TestConnections;

/**
 * Web Console page "SMB Direct" (label {@value #LABEL}): health, providers, listeners, live and
 * recently closed connections with role, state, negotiated sizes, credits both ways, counters and
 * close reasons, and the settings in force. Two actions, both POST with a per-instance token:
 * open a test connection to the first open listener, close any live connection (its upper layer
 * is told LOCAL_CLOSE "closed by operator (Web Console)").
 *
 * <p>Thread-safe: requests are served concurrently; the only state is the immutable token and
 * the health evaluator (synchronized). A delayed component: its class (and javax.servlet) is only
 * loaded once a Web Console asks for the plugin.
 */
@Component(service = Servlet.class, property = {
        "felix.webconsole.label=" + StatusPlugin.LABEL,
        "felix.webconsole.title=SMB Direct",
        "felix.webconsole.category=Status"
})
public class StatusPlugin extends HttpServlet {

    static final String LABEL = "smbdirect";

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(StatusPlugin.class);
    private static final long WAIT_SECONDS = 35;

    /** The reason the upper layer of a connection closed on this page is told. */
    static final CloseReason OPERATOR_CLOSE = CloseReason.of(CloseReason.Kind.LOCAL_CLOSE,
            "closed by operator (Web Console)");

    private final String token = newToken();
    private final transient TransportHealth health = new TransportHealth();

    @Reference
    private transient SmbDirectTransport transport;

    @Reference
    private transient TestConnections testConnections;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile ConnectionControl connectionControl;

    private static String newToken() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/html");
        response.setCharacterEncoding("UTF-8");
        PrintWriter w = response.getWriter();
        TransportDTO dto = transport.getTransportDTO();
        String message = request.getParameter("message");
        if (message != null && !message.isEmpty()) {
            w.append("<p id='smbd-message' class='statline ui-state-highlight'>").append(esc(message)).append("</p>");
        }
        health(w, dto);
        actions(w);
        providers(w, dto);
        listeners(w, dto);
        connections(w, dto);
        closed(w, dto);
        settings(w, dto.settings);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!sameOrigin(request) || !tokenMatches(request.getParameter("token"))) {
            response.sendError(HttpServletResponse.SC_FORBIDDEN, "missing or wrong form token");
            return;
        }
        String action = String.valueOf(request.getParameter("action"));
        String message;
        try {
            message = switch (action) {
                case "connect" -> connect();
                case "close" -> close(Long.parseLong(String.valueOf(request.getParameter("id"))),
                        request.getParameter("provider"));
                default -> "unknown action " + action;
            };
        } catch (NumberFormatException e) {
            message = "close needs a connection id, not " + request.getParameter("id");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            message = "interrupted";
        }
        response.sendRedirect(request.getRequestURI() + "?message=" + URLEncoder.encode(message, StandardCharsets.UTF_8));
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
        ConnectionControl control = connectionControl;
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

    private static boolean sameOrigin(HttpServletRequest request) {
        String origin = request.getHeader("Origin");
        if (origin == null || origin.equals("null")) {
            return true;
        }
        String host = request.getHeader("Host");
        return host != null && (origin.equals("http://" + host) || origin.equals("https://" + host));
    }

    private void health(PrintWriter w, TransportDTO dto) {
        TransportHealth.Report r = health.evaluate(dto);
        section(w, "Health: " + r.status());
        w.append("<table class='nicetable' id='smbd-health'><tbody>");
        for (String f : r.findings()) {
            w.append("<tr><td>").append(esc(f)).append("</td></tr>");
        }
        w.append("</tbody></table>");
    }

    private void actions(PrintWriter w) {
        w.append("<form method='post' id='smbd-connect-form' style='margin:1em 0'>")
                .append("<input type='hidden' name='token' value='").append(token).append("'>")
                .append("<input type='hidden' name='action' value='connect'>")
                .append("<button type='submit' id='smbd-connect'>Open test connection</button>")
                .append(" <span>connects to the first open listener with the settings in force; the connection")
                .append(" stays open until closed here</span></form>");
    }

    private void providers(PrintWriter w, TransportDTO dto) {
        section(w, "Providers");
        w.append("<table class='nicetable' id='smbd-providers'><thead><tr>");
        head(w, "Name", "Type", "Ranking", "Selected", "Connections", "Listeners", "Capabilities");
        w.append("</tr></thead><tbody>");
        for (ProviderDTO p : DtoText.list(dto.providers)) {
            w.append("<tr>");
            cells(w, p.name, p.transportType, p.ranking, p.selected ? "yes" : "no", p.connections, p.listeners,
                    p.capabilities);
            w.append("</tr>");
        }
        w.append("</tbody></table>");
    }

    private void listeners(PrintWriter w, TransportDTO dto) {
        section(w, "Listeners");
        w.append("<table class='nicetable' id='smbd-listeners'><thead><tr>");
        head(w, "Name", "Address", "Provider", "State", "Detail", "Requests", "Accepted", "Refused",
                "Negotiation failures", "Negotiating", "Connections");
        w.append("</tr></thead><tbody>");
        for (ListenerDTO l : DtoText.list(dto.listeners)) {
            w.append("<tr>");
            cells(w, l.name, l.address, l.provider, l.state, l.stateDetail, l.connectRequests, l.accepted, l.refused,
                    l.negotiationFailures, l.negotiating, l.connections);
            w.append("</tr>");
        }
        w.append("</tbody></table>");
    }

    private void connections(PrintWriter w, TransportDTO dto) {
        section(w, "Connections");
        w.append("<table class='nicetable' id='smbd-connections'><thead><tr>");
        head(w, "Id", "Role", "State", "Provider", "Local", "Peer", "maxSendSize", "maxReceiveSize",
                "maxFragmentedSendSize", "maxFragmentedRecvSize", "maxReadWriteSize", "sendCredits",
                "sendCreditTarget", "receiveCredits", "peerCredits", "receiveCreditTarget", "receiveCreditMax",
                "Messages out/in", "Bytes out/in", "Fragments out/in", "Keepalives out/in", "Credit stalls", "");
        w.append("</tr></thead><tbody>");
        for (ConnectionDTO c : DtoText.list(dto.connections)) {
            w.append("<tr data-connection-id='").append(Long.toString(c.id)).append("'>");
            cells(w, c.id, c.role, c.state, c.provider, c.localAddress, c.peerAddress, c.maxSendSize, c.maxReceiveSize,
                    c.maxFragmentedSendSize, c.maxFragmentedRecvSize, c.maxReadWriteSize, c.sendCredits,
                    c.sendCreditTarget, c.receiveCredits, c.peerCredits, c.receiveCreditTarget);
            w.append("<td class='receiveCreditMax'>").append(Integer.toString(c.receiveCreditMax)).append("</td>");
            cells(w, c.messagesSent + " / " + c.messagesReceived, c.bytesSent + " / " + c.bytesReceived,
                    c.fragmentsSent + " / " + c.fragmentsReceived, c.keepalivesSent + " / " + c.keepalivesReceived,
                    c.creditStalls);
            w.append("<td>");
            if (connectionControl != null || testConnections.owns(c.id)) {
                w.append("<form method='post' style='display:inline'>")
                        .append("<input type='hidden' name='token' value='").append(token).append("'>")
                        .append("<input type='hidden' name='action' value='close'>")
                        .append("<input type='hidden' name='id' value='").append(Long.toString(c.id)).append("'>")
                        .append("<input type='hidden' name='provider' value='").append(esc(String.valueOf(c.provider)))
                        .append("'>")
                        .append("<button type='submit' class='smbd-close'>Close</button></form>");
            }
            w.append("</td></tr>");
        }
        w.append("</tbody></table>");
    }

    private void closed(PrintWriter w, TransportDTO dto) {
        section(w, "Recently closed");
        w.append("<table class='nicetable' id='smbd-closed'><thead><tr>");
        head(w, "Id", "Role", "Peer", "Closed", "Close reason", "Messages out/in", "Credit stalls");
        w.append("</tr></thead><tbody>");
        for (ConnectionDTO c : DtoText.list(dto.recentlyClosed)) {
            w.append("<tr>");
            cells(w, c.id, c.role, c.peerAddress, c.closedMillis == 0 ? "" : Instant.ofEpochMilli(c.closedMillis),
                    c.closeReason, c.messagesSent + " / " + c.messagesReceived, c.creditStalls);
            w.append("</tr>");
        }
        w.append("</tbody></table>");
        w.append("<p>Negotiation failures since start: ").append(Long.toString(dto.negotiationFailures));
        if (dto.lastNegotiationFailure != null) {
            w.append(", last: ").append(esc(dto.lastNegotiationFailure));
        }
        w.append("</p>");
    }

    private void settings(PrintWriter w, SettingsDTO s) {
        section(w, "Settings in force (configuration smbdirect.transport)");
        if (s == null) {
            w.append("<p>(not reported)</p>");
            return;
        }
        w.append("<table class='nicetable' id='smbd-settings'><tbody>");
        setting(w, "receiveCreditMax", s.receiveCreditMax);
        setting(w, "sendCreditTarget", s.sendCreditTarget);
        setting(w, "maxSendSize", s.maxSendSize);
        setting(w, "maxReceiveSize", s.maxReceiveSize);
        setting(w, "maxFragmentedRecvSize", s.maxFragmentedRecvSize);
        setting(w, "maxReadWriteSize", s.maxReadWriteSize);
        setting(w, "keepaliveInterval (ms)", s.keepaliveIntervalMillis);
        setting(w, "keepaliveResponseTimeout (ms)", s.keepaliveResponseTimeoutMillis);
        setting(w, "activeNegotiationTimeout (ms)", s.activeNegotiationTimeoutMillis);
        setting(w, "passiveNegotiationTimeout (ms)", s.passiveNegotiationTimeoutMillis);
        setting(w, "creditGrantTimeout (ms)", s.creditGrantTimeoutMillis);
        setting(w, "creditRefillFraction", s.creditRefillFraction);
        w.append("</tbody></table>");
    }

    private static void setting(PrintWriter w, String name, Object value) {
        w.append("<tr><td>").append(esc(name)).append("</td><td class='").append(name.split(" ")[0]).append("'>")
                .append(esc(String.valueOf(value))).append("</td></tr>");
    }

    private static void section(PrintWriter w, String title) {
        w.append("<h2 style='margin-top:1em'>").append(esc(title)).append("</h2>");
    }

    private static void head(PrintWriter w, String... names) {
        for (String n : names) {
            w.append("<th>").append(esc(n)).append("</th>");
        }
    }

    private static void cells(PrintWriter w, Object... values) {
        for (Object v : values) {
            w.append("<td>").append(esc(v == null ? "" : String.valueOf(v))).append("</td>");
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
