package smbdirect.ops.health;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.ops.monitor.TransportMonitor;
import smbdirect.impl.control.SettingsFindings;

/**
 * Evaluates a {@link TransportDTO}: CRITICAL without a selected RDMA provider or with a FAILED
 * listener; WARN for listeners waiting, connections starved of Send Credits with messages queued,
 * and negotiation failures since the previous evaluation.
 *
 * <p>Thread-safe: the only state is the negotiation failure count of the previous evaluation.
 */
public final class TransportHealth {

    /** Overall status, worst first. */
    public enum Status {
        CRITICAL, WARN, OK
    }

    /**
     * One evaluation.
     *
     * @param status the worst finding
     * @param findings one line per finding, each starting with its status
     */
    public record Report(Status status, List<String> findings) {
        public Report {
            findings = Collections.unmodifiableList(new ArrayList<>(findings));
        }
    }

    private long lastNegotiationFailures = -1;

    /** Evaluates {@code dto}; negotiation failures count as recent when they grew since the last call. */
    public synchronized Report evaluate(TransportDTO dto) {
        long failures = dto.negotiationFailures;
        long recent = lastNegotiationFailures >= 0 ? Math.max(0, failures - lastNegotiationFailures) : 0;
        lastNegotiationFailures = failures;
        return evaluate(dto, recent, "since the last check", c -> true, "");
    }

    /**
     * Evaluates {@code dto} over the {@code monitor}'s window: negotiation failures in the last five
     * minutes, connections starved of Send Credits for {@value TransportMonitor#STARVED_MILLIS} ms or
     * more (a moment without credits under full load is no starvation).
     */
    public static Report evaluate(TransportDTO dto, TransportMonitor monitor) {
        return evaluate(dto, monitor.negotiationFailuresInWindow(), "in the last "
                + TransportMonitor.SAMPLES * TransportMonitor.INTERVAL_MILLIS / 60_000 + " minutes",
                c -> monitor.starvedFor(c, TransportMonitor.STARVED_MILLIS),
                " for " + TransportMonitor.STARVED_MILLIS / 1000 + " s or more");
    }

    /**
     * {@code health} with each finding of the settings guard (refused values, unknown keys and
     * files; {@code null}: none) added as a WARN ({@code WARN settings: ...}).
     */
    public static Report withSettings(Report health, SettingsFindings guard) {
        List<String> found = guard == null ? List.of() : guard.findings();
        if (found.isEmpty()) {
            return health;
        }
        List<String> findings = new ArrayList<>(health.findings());
        for (String f : found) {
            findings.add("WARN settings: " + f);
        }
        return new Report(health.status() == Status.OK ? Status.WARN : health.status(), findings);
    }

    /**
     * Evaluates {@code dto} with {@code recentFailures} negotiation failures counted as recent (for
     * callers that know the count over a time window, {@code since} says which: "in the last 5
     * minutes"), and the connections {@code starved} selects reported as starved of Send Credits
     * ({@code starvedFor} says for how long, e.g. " for 5 s or more"; empty: now). Stateless.
     */
    public static Report evaluate(TransportDTO dto, long recentFailures, String since,
            Predicate<ConnectionDTO> starved, String starvedFor) {
        List<String> findings = new ArrayList<>();
        Status status = Status.OK;

        ProviderDTO selected = null;
        if (dto.providers != null) {
            for (ProviderDTO p : dto.providers) {
                if (p.selected) {
                    selected = p;
                }
            }
        }
        if (selected == null) {
            status = worse(status, Status.CRITICAL);
            findings.add("CRITICAL no RDMA provider selected: new connections and listeners cannot work");
        } else {
            findings.add("OK provider " + selected.name + " (" + selected.transportType + ") selected");
        }

        int open = 0;
        if (dto.listeners != null) {
            for (ListenerDTO l : dto.listeners) {
                String name = (l.name == null ? "" : l.name + " ") + l.address;
                switch (String.valueOf(l.state)) {
                    case "OPEN" -> open++;
                    case "FAILED" -> {
                        status = worse(status, Status.CRITICAL);
                        findings.add("CRITICAL listener " + name + " FAILED: " + detail(l));
                    }
                    case "WAITING" -> {
                        status = worse(status, Status.WARN);
                        findings.add("WARN listener " + name + " WAITING: " + detail(l));
                    }
                    default -> findings.add("OK listener " + name + " " + l.state);
                }
            }
        }
        int listeners = dto.listeners == null ? 0 : dto.listeners.length;
        findings.add("OK " + open + " of " + listeners + " listener(s) open");

        int starvedCount = 0;
        long stalls = 0;
        if (dto.connections != null) {
            for (ConnectionDTO c : dto.connections) {
                stalls += c.creditStalls;
                if (TransportMonitor.starvedNow(c) && starved.test(c)) {
                    starvedCount++;
                    status = worse(status, Status.WARN);
                    findings.add("WARN connection " + c.id + " to " + c.peerAddress + " has had no Send Credits"
                            + starvedFor + " with " + c.sendQueueDepth + " message(s) queued (peer grants none)");
                }
            }
        }
        findings.add("OK " + (dto.connections == null ? 0 : dto.connections.length) + " connection(s), "
                + starvedCount + " starved, " + stalls + " credit stall(s) in total");

        long failures = dto.negotiationFailures;
        if (recentFailures > 0) {
            status = worse(status, Status.WARN);
            findings.add("WARN " + recentFailures + " negotiation failure(s) " + since + "; last: "
                    + lastFailure(dto));
        } else if (failures > 0) {
            findings.add("OK " + failures + " negotiation failure(s) since start, none recent; last: "
                    + lastFailure(dto));
        }
        return new Report(status, findings);
    }

    /**
     * The newest negotiation failure as text: role, connection, peer and reason (from a producer that
     * fills only the deprecated text field: that text).
     */
    @SuppressWarnings("removal")
    private static String lastFailure(TransportDTO dto) {
        ListenerEventDTO[] events = dto.negotiationFailureEvents;
        if (events == null || events.length == 0) {
            return dto.lastNegotiationFailure;
        }
        ListenerEventDTO e = events[0];
        return e.role + " connection " + e.connectionId + " peer " + e.peerAddress + " " + e.reasonKind
                + (e.rule == null ? "" : " " + e.rule) + (e.detail == null || e.detail.isEmpty() ? "" : ": " + e.detail);
    }

    private static String detail(ListenerDTO l) {
        return l.stateDetail == null || l.stateDetail.isEmpty() ? "(no detail)" : l.stateDetail;
    }

    private static Status worse(Status a, Status b) {
        return a.ordinal() <= b.ordinal() ? a : b;
    }
}
