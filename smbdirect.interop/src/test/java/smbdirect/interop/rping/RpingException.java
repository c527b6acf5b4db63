package smbdirect.interop.rping;

/** An rping run failed; the message is what rping would print on stderr, plus the detail. */
public final class RpingException extends Exception {

    private static final long serialVersionUID = 1L;

    public RpingException(String message) {
        super(message);
    }

    public RpingException(String message, Throwable cause) {
        super(message, cause);
    }
}
