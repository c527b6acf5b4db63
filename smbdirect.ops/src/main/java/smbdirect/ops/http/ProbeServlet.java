package smbdirect.ops.http;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

import javax.servlet.Servlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import org.apache.felix.hc.api.Result;
import org.apache.felix.hc.api.ResultLog;
import org.apache.felix.hc.api.execution.HealthCheckExecutionResult;
import org.apache.felix.hc.api.execution.HealthCheckExecutor;
import org.apache.felix.hc.api.execution.HealthCheckSelector;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import smbdirect.ops.health.LivenessHealthCheck;

/**
 * The probes a service manager or an orchestrator polls, without credentials, on the HTTP port of
 * the Web Console: {@code GET /system/health/live} (liveness: the Felix Health Checks tagged
 * {@value LivenessHealthCheck#TAG}) and {@code GET /system/health/ready} (readiness: those tagged
 * {@value #READY_TAG}, the transport's). The answer is 200 when the worst result is OK or WARN, 503
 * when it is CRITICAL, TEMPORARILY_UNAVAILABLE or HEALTH_CHECK_ERROR, or when no check of the tag is
 * there; the body, plain text, is the status on the first line and every finding that is not OK on
 * the lines below ({@code CRITICAL listener default 10.0.0.1:4455 FAILED: ...}). Registered through
 * the HTTP Whiteboard (javax servlet), so it needs no Web Console and no login; without a Felix
 * Health Check executor both probes answer 503 saying so.
 *
 * <p>Thread-safe: stateless.
 */
@Component(service = Servlet.class, property = {
        "osgi.http.whiteboard.servlet.pattern=" + ProbeServlet.PATH + "/*",
        "osgi.http.whiteboard.servlet.name=smbdirect-probes"
})
public class ProbeServlet extends HttpServlet {

    /** Where the probes are. */
    public static final String PATH = "/system/health";

    /** The tag of the checks readiness runs. */
    public static final String READY_TAG = "smbdirect";

    private static final long serialVersionUID = 1L;

    // optional: without Felix Health Checks the probes answer 503 and say why
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile HealthCheckExecutor executor;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String probe = req.getPathInfo() == null ? "" : req.getPathInfo();
        String tag = switch (probe) {
            case "/live" -> LivenessHealthCheck.TAG;
            case "/ready" -> READY_TAG;
            default -> null;
        };
        resp.setContentType("text/plain;charset=utf-8");
        resp.setHeader("Cache-Control", "no-store");
        if (tag == null) {
            resp.setStatus(HttpServletResponse.SC_NOT_FOUND);
            resp.getWriter().println("no such probe: " + PATH + probe + " (probes: " + PATH + "/live, " + PATH + "/ready)");
            return;
        }
        HealthCheckExecutor hc = executor;
        Answer a = hc == null
                ? new Answer(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "CRITICAL\nno Felix Health Check executor\n")
                : answer(hc.execute(HealthCheckSelector.tags(tag)), tag);
        resp.setStatus(a.code());
        PrintWriter w = resp.getWriter();
        w.print(a.body());
        w.flush();
    }

    /** The HTTP status and body for {@code results}, the checks of {@code tag}. */
    static Answer answer(List<HealthCheckExecutionResult> results, String tag) {
        if (results == null || results.isEmpty()) {
            return new Answer(HttpServletResponse.SC_SERVICE_UNAVAILABLE,
                    "CRITICAL\nno health check tagged " + tag + " is running\n");
        }
        Result.Status worst = Result.Status.OK;
        List<String> findings = new ArrayList<>();
        for (HealthCheckExecutionResult r : results) {
            Result result = r.getHealthCheckResult();
            if (result.getStatus().ordinal() > worst.ordinal()) {
                worst = result.getStatus();
            }
            for (ResultLog.Entry e : result) {
                if (e.getStatus().ordinal() > Result.Status.OK.ordinal()) {
                    findings.add(e.getStatus() + " " + e.getMessage());
                }
            }
            if (result.getStatus().ordinal() > Result.Status.WARN.ordinal() && findings.isEmpty()) {
                findings.add(result.getStatus() + " " + r.getHealthCheckMetadata().getName());
            }
        }
        StringBuilder body = new StringBuilder(worst.name()).append('\n');
        findings.forEach(f -> body.append(f).append('\n'));
        boolean ok = worst == Result.Status.OK || worst == Result.Status.WARN;
        return new Answer(ok ? HttpServletResponse.SC_OK : HttpServletResponse.SC_SERVICE_UNAVAILABLE, body.toString());
    }

    /** An HTTP status and its plain-text body. */
    record Answer(int code, String body) {
    }
}
