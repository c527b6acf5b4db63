package smbdirect.perf;

/** A perf run failed; the message says why in terms a user can act on. */
public final class PerfException extends Exception {

    private static final long serialVersionUID = 1L;

    public PerfException(String message) {
        super(message);
    }

    public PerfException(String message, Throwable cause) {
        super(message, cause);
    }
}
