/**
 * Runtime DTOs of the transport: snapshots of providers, listeners and connections for
 * management surfaces (Web Console, Gogo, health checks) and tests. Plain data following the OSGi
 * DTO rules: public fields, no behaviour, not thread-safe, a new snapshot per call. Collections
 * are arrays, never {@code null} in a snapshot the transport made: iterate them
 * ({@code for (ListenerEventDTO e : listener.events)}) or wrap them ({@code List.of(dto.listeners)}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.5.0")
package smbdirect.api.dto;
