package smbdirect.interop.rping;

import java.util.List;

import smbdirect.api.rdma.DisconnectCause;

/**
 * How one side's rping run ended without an error.
 *
 * @param iterations complete ping/pong iterations (the server counts RDMA Writes that completed)
 * @param lines what rping prints with {@code -v}: {@code "ping data: ..."} (client) or
 *     {@code "server ping data: ..."} (server), one per iteration
 * @param cause how the connection ended ({@code LOCAL} for the side that disconnected)
 * @param detail the provider's text for the disconnect
 */
public record RpingReport(int iterations, List<String> lines, DisconnectCause cause, String detail) {

    public RpingReport {
        lines = List.copyOf(lines);
    }
}
