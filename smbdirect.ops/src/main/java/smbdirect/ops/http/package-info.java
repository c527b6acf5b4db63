/**
 * What a monitoring system reads over HTTP without credentials, on the Web Console's port (the HTTP
 * Whiteboard): the liveness and readiness probes on Felix Health Checks ({@link ProbeServlet}) and
 * the Prometheus text exposition ({@link MetricsServlet}, {@link PrometheusMetrics}).
 */
package smbdirect.ops.http;
