package smbdirect.example.fileserver.internal.auth;

/** A security buffer that does not parse: the message says what and where, for the logon's reason. */
final class BadTokenException extends Exception {

    private static final long serialVersionUID = 1L;

    BadTokenException(String why) {
        super(why, null, false, false);
    }
}
