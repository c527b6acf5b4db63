package smbdirect.impl.wire;

import java.util.Objects;

/**
 * A received message broke a receive check of [MS-SMBD]: which rule, what to do about it, which
 * field and which value. Immutable and thread-safe; only built on the failure path.
 *
 * @param rule the requirement ID, e.g. {@code R-3.1.5.8-03}
 * @param action what the receiver does: terminate, or answer with a failure Negotiate Response
 * @param field the offending field name as in the spec ({@code DataOffset}), or {@code length}
 * @param value the offending value (unsigned values as non-negative longs)
 * @param detail a short phrase completing {@code field=value}, e.g. "is not a multiple of 8"
 * @param statusCode the NTSTATUS to send for {@link Action#FAIL_RESPONSE}, 0 for
 *        {@link Action#TERMINATE}
 */
public record Violation(String rule, Action action, String field, long value, String detail, int statusCode) {

    /** What a receiver does when a check fails. */
    public enum Action {
        /** Terminate the connection without a response. */
        TERMINATE,
        /** Send a failure Negotiate Response carrying {@link #status()}, then close. */
        FAIL_RESPONSE
    }

    /**
     * Validates the combination of action and status code.
     *
     * @throws IllegalArgumentException when a TERMINATE carries a status or a FAIL_RESPONSE
     *         carries a status that is not of error severity
     */
    public Violation {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(detail, "detail");
        if (action == Action.TERMINATE && statusCode != 0) {
            throw new IllegalArgumentException("TERMINATE carries no status, got " + SmbdWire.statusToString(statusCode));
        }
        if (action == Action.FAIL_RESPONSE && !SmbdWire.isErrorStatus(statusCode)) {
            throw new IllegalArgumentException("FAIL_RESPONSE needs an error-severity NTSTATUS, got "
                    + SmbdWire.statusToString(statusCode));
        }
    }

    /**
     * A violation with the default status for its action: STATUS_NOT_SUPPORTED for
     * {@link Action#FAIL_RESPONSE} (the version check, R-3.1.5.6-04), 0 for
     * {@link Action#TERMINATE}.
     */
    public Violation(String rule, Action action, String field, long value, String detail) {
        this(rule, action, field, value, detail, action == Action.FAIL_RESPONSE ? SmbdWire.STATUS_NOT_SUPPORTED : 0);
    }

    static Violation terminate(String rule, String field, long value, String detail) {
        return new Violation(rule, Action.TERMINATE, field, value, detail, 0);
    }

    /** The NTSTATUS to send for {@link Action#FAIL_RESPONSE}; 0 for {@link Action#TERMINATE}. */
    public int status() {
        return statusCode;
    }

    /** True when the receiver terminates the connection without a response. */
    public boolean terminates() {
        return action == Action.TERMINATE;
    }

    /** E.g. {@code R-3.1.5.8-03: DataOffset=23 is not a multiple of 8}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(96).append(rule).append(": ").append(field).append('=');
        if (field.endsWith("Version") || field.equals("Status")) {
            sb.append(String.format(field.equals("Status") ? "0x%08X" : "0x%04X", value));
        } else {
            sb.append(value);
        }
        sb.append(' ').append(detail);
        if (action == Action.FAIL_RESPONSE) {
            sb.append(" (answer with a failure Negotiate Response, Status=").append(SmbdWire.statusToString(statusCode))
                    .append(')');
        }
        return sb.toString();
    }
}
