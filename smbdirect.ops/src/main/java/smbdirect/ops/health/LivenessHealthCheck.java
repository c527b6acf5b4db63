package smbdirect.ops.health;

import org.apache.felix.hc.api.FormattingResultLog;
import org.apache.felix.hc.api.HealthCheck;
import org.apache.felix.hc.api.Result;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import smbdirect.ops.monitor.TransportMonitor;

/**
 * The Felix Health Check "SMB Direct runtime liveness" (tag {@value #TAG}): CRITICAL when the
 * transport has not answered the monitor's sampling for {@value #STALE_MILLIS} ms (a transport whose
 * lock is held forever, a stuck sampler), OK otherwise. The liveness probe
 * ({@code /system/health/live}) runs it; a restart is the cure for what it finds, so it finds
 * nothing else. Only active where the Health Check API is installed.
 *
 * <p>Thread-safe: stateless.
 */
@Component(service = HealthCheck.class, property = {
        HealthCheck.NAME + "=SMB Direct runtime liveness",
        HealthCheck.TAGS + "=" + LivenessHealthCheck.TAG
})
public class LivenessHealthCheck implements HealthCheck {

    /** The tag of the liveness check. */
    public static final String TAG = "smbdirect-live";

    /** How old the monitor's newest sample may be. */
    public static final long STALE_MILLIS = 10_000;

    @Reference
    private TransportMonitor monitor;

    @Override
    public Result execute() {
        FormattingResultLog log = new FormattingResultLog();
        TransportMonitor.Snapshot latest = monitor.latest();
        long now = System.currentTimeMillis();
        if (latest == null) {
            log.info("transport not sampled yet");
        } else if (now - latest.timeMillis() > STALE_MILLIS) {
            log.critical("transport not sampled for {} ms: it does not answer", now - latest.timeMillis());
        } else {
            log.info("transport sampled {} ms ago", now - latest.timeMillis());
        }
        return new Result(log);
    }
}
