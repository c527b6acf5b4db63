/**
 * The operations surfaces of the transport, one sub-package each, all reading the same
 * {@code SmbDirectTransport} service and its DTOs: {@code shell} (Gogo {@code smbd:*}, with
 * {@code smbd:perf} from the bundle {@code smbdirect.perf}), {@code console} (the Web Console status
 * page), {@code health} (Felix Health Checks), {@code http} (the liveness and readiness probes and
 * the Prometheus endpoint, HTTP Whiteboard servlets), {@code jmx} (MBeans), {@code monitor} (the
 * sampled history the page, the metrics and JMX share). What they change goes through the services
 * of {@code smbdirect.impl.control} (close a connection, start and stop a trace, the refused
 * settings); none of them reaches into the engine. {@link smbdirect.ops.DtoFieldNames} is the one
 * rule by which they all name a DTO's fields. Nothing here is exported.
 */
package smbdirect.ops;
