/**
 * The transport's recent history, shared by the operations surfaces:
 * {@link smbdirect.ops.monitor.TransportMonitor}, a component with one sampling thread, takes
 * a snapshot of the runtime DTO every second and keeps five minutes of
 * {@link smbdirect.ops.monitor.Metric}s (throughput, message rate, credits, credit stalls) per
 * provider and per connection in {@link smbdirect.ops.monitor.Series} rings. The Web Console
 * page draws them, the health check and the JMX MBeans read the newest snapshot, so that no poller
 * builds a DTO of every connection per read.
 */
package smbdirect.ops.monitor;
