/**
 * Logon: NTLMv2 ([MS-NLMP]) raw or in SPNEGO, guest; SMB 3.x key derivation and signing.
 *
 * <p>How the protocol layer uses it: the NEGOTIATE response carries
 * {@link smbdirect.example.fileserver.internal.auth.NtlmAuthenticator#negotiateToken()}; each new
 * session's SESSION_SETUP requests go, one security buffer at a time, to one
 * {@link smbdirect.example.fileserver.internal.auth.NtlmAuthenticator.Exchange}, whose
 * {@link smbdirect.example.fileserver.internal.auth.AuthResult} says what to answer
 * (MORE_PROCESSING_REQUIRED, SUCCESS, SUCCESS as guest, LOGON_FAILURE) and with which security
 * buffer. For a 3.1.1 session that is not guest, the layer keeps the pre-authentication hash
 * ({@link smbdirect.example.fileserver.internal.auth.Smb3Keys#preauthHash}) over every
 * SESSION_SETUP request and MORE_PROCESSING_REQUIRED response, derives the signing key from the
 * session key and that hash, and signs the final SESSION_SETUP response with it
 * ({@link smbdirect.example.fileserver.internal.auth.Smb3Keys#sign}).
 *
 * <p>Inside: {@code NtlmMessages} (the three NTLMSSP messages and AV pairs), {@code Spnego} over
 * {@code Der} (the SPNEGO tokens, DER bounds-checked), {@code NtlmSignature} (the mechListMIC),
 * {@code Crypto} (Bouncy Castle's lightweight MD4, HMAC-MD5, HMAC-SHA256, SHA-512, RC4 and
 * AES-CMAC; nothing is installed as a JCA provider). Malformed input never escapes as an
 * exception: it ends the logon as DENIED with the reason.
 */
package smbdirect.example.fileserver.internal.auth;
