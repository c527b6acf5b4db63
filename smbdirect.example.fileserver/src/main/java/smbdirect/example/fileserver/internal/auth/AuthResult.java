package smbdirect.example.fileserver.internal.auth;

/**
 * The outcome of one SESSION_SETUP leg.
 *
 * @param outcome what the server answers
 * @param securityBlob the response's security buffer (an NTLMSSP CHALLENGE, a SPNEGO token, or empty)
 * @param sessionKey the 16-byte session key once {@link Outcome#AUTHENTICATED}, else {@code null}
 * @param user the user name that logged on ({@code null} before), for the log
 * @param reason why a logon was refused or taken as guest, for the log (never a password or hash)
 */
public record AuthResult(Outcome outcome, byte[] securityBlob, byte[] sessionKey, String user, String reason) {

    public enum Outcome {
        /** STATUS_MORE_PROCESSING_REQUIRED with {@link #securityBlob()}. */
        CONTINUE,
        /** STATUS_SUCCESS: the account logged on. */
        AUTHENTICATED,
        /** STATUS_SUCCESS with SMB2_SESSION_FLAG_IS_GUEST. */
        GUEST,
        /** STATUS_LOGON_FAILURE. */
        DENIED
    }
}
