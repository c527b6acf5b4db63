package smbdirect.ops.http;

import java.io.IOException;
import java.io.OutputStream;

import javax.servlet.Servlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.TransportDTO;
import smbdirect.ops.health.TransportHealth;
import smbdirect.ops.monitor.TransportMonitor;

/**
 * {@code GET /metrics}: the transport's counters, gauges and health in the Prometheus text format
 * ({@link PrometheusMetrics}), for a Prometheus server to scrape without credentials on the HTTP
 * port of the Web Console. Each scrape takes a new snapshot of the transport. Registered through
 * the HTTP Whiteboard (javax servlet).
 *
 * <p>Thread-safe: stateless.
 */
@Component(service = Servlet.class, property = {
        "osgi.http.whiteboard.servlet.pattern=" + MetricsServlet.PATH,
        "osgi.http.whiteboard.servlet.name=smbdirect-metrics"
})
public class MetricsServlet extends HttpServlet {

    /** Where the metrics are. */
    public static final String PATH = "/metrics";

    private static final long serialVersionUID = 1L;

    @Reference
    private transient SmbDirectTransport transport;

    @Reference
    private transient TransportMonitor monitor;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        TransportDTO dto = transport.getTransportDTO();
        TransportHealth.Report health = TransportHealth.evaluate(dto, monitor);
        resp.setStatus(HttpServletResponse.SC_OK);
        resp.setContentType(PrometheusMetrics.CONTENT_TYPE);
        resp.setHeader("Cache-Control", "no-store");
        try (OutputStream out = resp.getOutputStream()) {
            PrometheusMetrics.write(out, dto, health);
        }
    }
}
