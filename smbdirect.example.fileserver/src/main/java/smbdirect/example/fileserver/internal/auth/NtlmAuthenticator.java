package smbdirect.example.fileserver.internal.auth;

/**
 * The server's side of NTLMv2 logon ([MS-NLMP]) inside SESSION_SETUP ([MS-SMB2] 3.3.5.5): raw
 * NTLMSSP (as Linux cifs sends it) or wrapped in SPNEGO ([RFC 4178], as Windows sends it), for one
 * configured account, and guest where configured. Thread-safe; one {@link Exchange} per session
 * setup.
 */
public final class NtlmAuthenticator {

    /**
     * @param user the account's user name (compared without regard to case), or {@code null}
     * @param password the account's password, or {@code null}
     * @param guest whether an unknown user or an anonymous logon is taken as guest
     */
    public NtlmAuthenticator(String user, String password, boolean guest) {
        throw new UnsupportedOperationException("not yet");
    }

    /** The security buffer of the NEGOTIATE response: a SPNEGO NegTokenInit offering NTLMSSP. */
    public byte[] negotiateToken() {
        throw new UnsupportedOperationException("not yet");
    }

    /** A new logon (the first SESSION_SETUP of a session). */
    public Exchange newExchange() {
        throw new UnsupportedOperationException("not yet");
    }

    /** One logon's legs: NEGOTIATE_MESSAGE, then AUTHENTICATE_MESSAGE. Not thread-safe. */
    public interface Exchange {
        /** Takes one request's security buffer and says what to answer. Malformed input: DENIED with the reason. */
        AuthResult step(byte[] securityBuffer);
    }
}
