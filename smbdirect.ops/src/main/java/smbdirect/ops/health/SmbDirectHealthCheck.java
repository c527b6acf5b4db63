package smbdirect.ops.health;

import org.apache.felix.hc.api.FormattingResultLog;
import org.apache.felix.hc.api.HealthCheck;
import org.apache.felix.hc.api.Result;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import smbdirect.api.SmbDirectTransport;
import smbdirect.ops.monitor.TransportMonitor;
import smbdirect.impl.control.SettingsFindings;

/**
 * The Felix Health Check "SMB Direct transport" (tag {@code smbdirect}): provider presence,
 * listener state, credit starvation (sustained for 5 s) and negotiation failures in the last five
 * minutes, from the transport's runtime DTO and its {@link TransportMonitor}; and, as WARN, each
 * refused setting, unknown key and unknown configuration file the {@link SettingsFindings} reports. Only active where the
 * Health Check API is installed (optional import).
 *
 * <p>Thread-safe.
 */
@Component(service = HealthCheck.class, property = {
        HealthCheck.NAME + "=SMB Direct transport",
        HealthCheck.TAGS + "=smbdirect"
})
public class SmbDirectHealthCheck implements HealthCheck {

    @Reference
    private SmbDirectTransport transport;

    @Reference
    private TransportMonitor monitor;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile SettingsFindings settings;

    @Override
    public Result execute() {
        TransportHealth.Report report = TransportHealth.withSettings(
                TransportHealth.evaluate(transport.getTransportDTO(), monitor), settings);
        FormattingResultLog log = new FormattingResultLog();
        for (String finding : report.findings()) {
            if (finding.startsWith("CRITICAL ")) {
                log.critical(finding.substring(9));
            } else if (finding.startsWith("WARN ")) {
                log.warn(finding.substring(5));
            } else {
                log.info(finding.startsWith("OK ") ? finding.substring(3) : finding);
            }
        }
        return new Result(log);
    }
}
