package smbdirect.example.fileserver.internal.auth;

import static smbdirect.example.fileserver.internal.auth.NtlmMessages.*;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.example.fileserver.internal.auth.AuthResult.Outcome;

/**
 * The server's side of NTLMv2 logon ([MS-NLMP]) inside SESSION_SETUP ([MS-SMB2] 3.3.5.5): raw
 * NTLMSSP (as Linux cifs sends it) or wrapped in SPNEGO ([RFC 4178], as Windows sends it), for one
 * configured account, and guest where configured. Thread-safe; one {@link Exchange} per session
 * setup.
 *
 * <p>A logon is two legs. The NEGOTIATE_MESSAGE is answered with a CHALLENGE_MESSAGE (a fresh
 * random server challenge, the flags below, TargetInfo naming this server). The
 * AUTHENTICATE_MESSAGE is then judged in this order:
 * <ol>
 * <li>an empty user name is an anonymous logon: guest when guest is on, else refused;</li>
 * <li>a named user with an NT response that is not NTLMv2 (24 bytes: NTLMv1; none: LM only) is refused;</li>
 * <li>a user other than the account (compared without regard to case): guest when guest is on, else refused;</li>
 * <li>the account: NTProofStr must match ([MS-NLMP] 3.3.2) with the domain the client sent, or
 *     with an empty domain; a wrong password is refused even when guest is on;</li>
 * <li>the exported session key is the key exchanged under KEY_EXCH (RC4 with the session base key),
 *     else the session base key; when the client's MsvAvFlags says a MIC is present, it must match;</li>
 * <li>in SPNEGO, when the client's last NegTokenResp carries a mechListMIC (Windows sends one), it
 *     must match, and the answer carries the server's mechListMIC over the same MechTypeList.</li>
 * </ol>
 *
 * <p>Each leg is answered in the form it came in: a raw NTLMSSP message, or a SPNEGO NegTokenResp
 * (accept-incomplete with supportedMech NTLMSSP and the CHALLENGE, then accept-completed).
 *
 * <p>Flags of the CHALLENGE_MESSAGE: always UNICODE, NTLM, TARGET_INFO, TARGET_TYPE_SERVER and
 * REQUEST_TARGET (a TargetName is sent); REQUEST_TARGET, SIGN, SEAL, ALWAYS_SIGN,
 * EXTENDED_SESSIONSECURITY, VERSION, 128, 56 and KEY_EXCH each when the client asked for it. SIGN
 * and SEAL concern NTLM's own message security, which SMB does not use; they are echoed because
 * clients that ask for them (Linux cifs does) expect them back with 128 or 56.
 */
public final class NtlmAuthenticator {

    private static final Logger LOG = LoggerFactory.getLogger(NtlmAuthenticator.class);

    /** The NetBIOS name this server gives in its CHALLENGE_MESSAGE unless told another. */
    public static final String DEFAULT_SERVER_NAME = "SMBDIRECT";

    /** Flags echoed when the client's NEGOTIATE_MESSAGE has them. */
    private static final int ECHOED = REQUEST_TARGET | NEGOTIATE_SIGN | NEGOTIATE_SEAL | NEGOTIATE_ALWAYS_SIGN
            | NEGOTIATE_EXTENDED_SESSIONSECURITY | NEGOTIATE_VERSION | NEGOTIATE_128 | NEGOTIATE_56 | NEGOTIATE_KEY_EXCH;
    /** Flags always set. */
    private static final int ALWAYS = NEGOTIATE_UNICODE | REQUEST_TARGET | NEGOTIATE_NTLM | NEGOTIATE_TARGET_INFO
            | TARGET_TYPE_SERVER;

    /** FILETIME of 1970-01-01 (100 ns units since 1601-01-01). */
    private static final long FILETIME_EPOCH_MILLIS = 11_644_473_600_000L;

    private static final byte[] EMPTY = new byte[0];

    private final String user;
    private final String password;
    private final boolean guest;
    private final String serverName;
    private final Consumer<byte[]> challengeSource;

    /**
     * @param user the account's user name (compared without regard to case), or {@code null}
     * @param password the account's password, or {@code null}
     * @param guest whether an unknown user or an anonymous logon is taken as guest
     */
    public NtlmAuthenticator(String user, String password, boolean guest) {
        this(user, password, guest, DEFAULT_SERVER_NAME);
    }

    /**
     * @param serverName the NetBIOS name given as TargetName and in TargetInfo (also as the
     *     domain: the server is a workgroup of one); its lower case as the DNS names
     */
    public NtlmAuthenticator(String user, String password, boolean guest, String serverName) {
        this(user, password, guest, serverName, new SecureRandom()::nextBytes);
    }

    /** @param challengeSource fills each server challenge (a {@link SecureRandom} but in tests that replay published examples) */
    NtlmAuthenticator(String user, String password, boolean guest, String serverName, Consumer<byte[]> challengeSource) {
        if ((user == null) != (password == null)) {
            throw new IllegalArgumentException("user and password: give both or neither");
        }
        if (user != null && user.isEmpty()) {
            throw new IllegalArgumentException("user: empty");
        }
        if (serverName == null || serverName.isEmpty() || serverName.length() > 255) {
            throw new IllegalArgumentException("serverName: 1 to 255 characters");
        }
        this.user = user;
        this.password = password;
        this.guest = guest;
        this.serverName = serverName;
        this.challengeSource = challengeSource;
    }

    /** The security buffer of the NEGOTIATE response: a SPNEGO NegTokenInit offering NTLMSSP. */
    public byte[] negotiateToken() {
        return Spnego.serverNegTokenInit();
    }

    /** A new logon (the first SESSION_SETUP of a session). */
    public Exchange newExchange() {
        return new NtlmExchange();
    }

    /** One logon's legs: NEGOTIATE_MESSAGE, then AUTHENTICATE_MESSAGE. Not thread-safe. */
    public interface Exchange {
        /** Takes one request's security buffer and says what to answer. Malformed input: DENIED with the reason. */
        AuthResult step(byte[] securityBuffer);
    }

    /** TargetInfo ([MS-NLMP] 2.2.1.2): the names of this server and the time now. */
    byte[] targetInfo(long filetime) {
        byte[] time = new byte[8];
        putU64(time, 0, filetime);
        String dns = serverName.toLowerCase(Locale.ROOT);
        return new AvPairs()
                .add(AV_NB_DOMAIN_NAME, serverName)
                .add(AV_NB_COMPUTER_NAME, serverName)
                .add(AV_DNS_DOMAIN_NAME, dns)
                .add(AV_DNS_COMPUTER_NAME, dns)
                .add(AV_TIMESTAMP, time)
                .end();
    }

    /** Flags of the CHALLENGE_MESSAGE answering a NEGOTIATE_MESSAGE's flags (see the class comment). */
    static int challengeFlags(int clientFlags) {
        return ALWAYS | (clientFlags & ECHOED);
    }

    private enum State { INITIAL, CHALLENGED, DONE }

    /** The two legs of one logon. */
    private final class NtlmExchange implements Exchange {
        private State state = State.INITIAL;
        private byte[] negotiateMessage;
        private byte[] challengeMessage;
        private byte[] serverChallenge;
        private int flags;
        /** The client's MechTypeList as it sent it, when it spoke SPNEGO: what the mechListMICs sign. */
        private byte[] mechTypes;

        @Override
        public AuthResult step(byte[] securityBuffer) {
            byte[] blob = securityBuffer == null ? EMPTY : securityBuffer;
            try {
                AuthResult result = leg(blob);
                if (result.outcome() != Outcome.CONTINUE) {
                    state = State.DONE;
                }
                return result;
            } catch (BadTokenException e) {
                state = State.DONE;
                return denied(null, "malformed security buffer (" + blob.length + " bytes): " + e.getMessage());
            } catch (RuntimeException e) {
                state = State.DONE;
                LOG.warn("logon: unexpected failure on a security buffer of {} bytes", blob.length, e);
                return denied(null, "internal error: " + e);
            }
        }

        private AuthResult leg(byte[] blob) throws BadTokenException {
            if (state == State.DONE) {
                return denied(null, "this logon has already ended");
            }
            if (blob.length == 0) {
                if (state == State.INITIAL) {
                    // [MS-SMB2] 3.3.5.5.3: no token yet; offer the mechanism as NEGOTIATE did
                    return new AuthResult(Outcome.CONTINUE, negotiateToken(), null, null, null);
                }
                throw new BadTokenException("empty, expected an AUTHENTICATE_MESSAGE");
            }
            boolean spnego;
            byte[] ntlm;
            byte[] clientMechListMic = null;
            if (hasSignature(blob)) {
                spnego = false;
                ntlm = blob;
            } else {
                int first = blob[0] & 0xFF;
                if (first != Spnego.INIT_TAG && first != Spnego.RESP_TAG) {
                    throw new BadTokenException(String.format("neither NTLMSSP nor SPNEGO (first byte 0x%02X)", first));
                }
                spnego = true;
                Spnego.ClientToken token = Spnego.parseClient(blob);
                if (token.init()) {
                    if (state != State.INITIAL) {
                        throw new BadTokenException("NegTokenInit where the AUTHENTICATE_MESSAGE was due");
                    }
                    mechTypes = token.mechTypesEncoding();
                    if (!token.offersNtlmssp()) {
                        return denied(null, "the client's SPNEGO mechTypes do not include NTLMSSP, the only mechanism here");
                    }
                    if (!token.ntlmsspFirst() || token.mechToken() == null) {
                        // the optimistic token (if any) is for another mechanism: select NTLMSSP, ask for its first token
                        return new AuthResult(Outcome.CONTINUE,
                                Spnego.serverNegTokenResp(Spnego.ACCEPT_INCOMPLETE, true, null), null, null, null);
                    }
                }
                if (token.mechToken() == null) {
                    throw new BadTokenException("SPNEGO token without an NTLMSSP token");
                }
                ntlm = token.mechToken();
                clientMechListMic = token.mechListMic();
            }
            return state == State.INITIAL ? negotiate(ntlm, spnego) : authenticate(ntlm, spnego, clientMechListMic);
        }

        private AuthResult negotiate(byte[] message, boolean spnego) throws BadTokenException {
            int clientFlags = negotiateFlags(message);
            if ((clientFlags & NEGOTIATE_UNICODE) == 0) {
                return denied(null, "the client does not offer Unicode (NTLMSSP_NEGOTIATE_UNICODE); OEM strings are not supported");
            }
            flags = challengeFlags(clientFlags);
            serverChallenge = new byte[8];
            challengeSource.accept(serverChallenge);
            long now = (System.currentTimeMillis() + FILETIME_EPOCH_MILLIS) * 10_000L;
            negotiateMessage = message.clone();
            challengeMessage = challenge(flags, serverChallenge, serverName, targetInfo(now));
            state = State.CHALLENGED;
            LOG.debug("logon: NEGOTIATE flags 0x{}, CHALLENGE flags 0x{}", Integer.toHexString(clientFlags), Integer.toHexString(flags));
            byte[] out = spnego
                    ? Spnego.serverNegTokenResp(Spnego.ACCEPT_INCOMPLETE, true, challengeMessage)
                    : challengeMessage;
            return new AuthResult(Outcome.CONTINUE, out, null, null, null);
        }

        private AuthResult authenticate(byte[] message, boolean spnego, byte[] clientMechListMic) throws BadTokenException {
            Authenticate a = parseAuthenticate(message);
            byte[] done = spnego ? Spnego.serverNegTokenResp(Spnego.ACCEPT_COMPLETED, false, null) : EMPTY;
            String name = a.user().isEmpty() ? null : a.user();
            String who = displayName(a);
            if (name == null) {
                return guestOr(done, null, "anonymous logon");
            }
            byte[] nt = a.ntResponse();
            if (nt.length == 24 || nt.length == 0) {
                return denied(name, "NTLMv1 refused (" + (nt.length == 0 ? "LM response only" : "24-byte NTLMv1 NT response")
                        + "; this server accepts NTLMv2 only)");
            }
            if (nt.length < 16 + 28 + 4) {
                throw new BadTokenException("NTLMv2 response of " + nt.length + " bytes, shorter than the 48 its fixed part and MsvAvEOL take");
            }
            if (nt[16] != 1 || nt[17] != 1) {
                throw new BadTokenException("NTLMv2 response: RespType " + nt[16] + ", HiRespType " + nt[17] + ", expected 1 and 1");
            }
            int avFlags = avFlags(nt, 16 + 28);
            if (user == null || !user.equalsIgnoreCase(a.user())) {
                return guestOr(done, name, "unknown user " + who);
            }
            byte[] proof = Arrays.copyOfRange(nt, 0, 16);
            byte[] temp = Arrays.copyOfRange(nt, 16, nt.length);
            byte[] responseKeyNt = null;
            for (String domain : a.domain().isEmpty() ? new String[] {""} : new String[] {a.domain(), ""}) {
                byte[] key = Crypto.ntowfv2(password, a.user(), domain);
                if (MessageDigest.isEqual(proof, Crypto.hmacMd5(key, serverChallenge, temp))) {
                    responseKeyNt = key;
                    break;
                }
            }
            if (responseKeyNt == null) {
                return denied(name, "wrong password for " + who + " (NTProofStr does not match)");
            }
            byte[] sessionBaseKey = Crypto.hmacMd5(responseKeyNt, proof);
            // [MS-NLMP] 3.4.5.1 KXKEY: with NTLMv2 the key exchange key is the session base key
            byte[] exported = sessionBaseKey;
            byte[] encrypted = a.encryptedRandomSessionKey();
            int negotiated = flags & a.flags();
            if ((negotiated & NEGOTIATE_KEY_EXCH) != 0 && encrypted.length != 0) {
                if (encrypted.length != 16) {
                    throw new BadTokenException("EncryptedRandomSessionKey of " + encrypted.length + " bytes, expected 16");
                }
                exported = Crypto.rc4(sessionBaseKey, encrypted);
            }
            if ((avFlags & AV_FLAG_MIC_PRESENT) != 0) {
                if (message.length < MIC_OFFSET + MIC_LENGTH) {
                    throw new BadTokenException("MsvAvFlags says a MIC is present, but the AUTHENTICATE_MESSAGE has only " + message.length + " bytes");
                }
                byte[] mic = Arrays.copyOfRange(message, MIC_OFFSET, MIC_OFFSET + MIC_LENGTH);
                byte[] zeroed = message.clone();
                Arrays.fill(zeroed, MIC_OFFSET, MIC_OFFSET + MIC_LENGTH, (byte) 0);
                if (!MessageDigest.isEqual(mic, Crypto.hmacMd5(exported, negotiateMessage, challengeMessage, zeroed))) {
                    return denied(name, "MIC of the AUTHENTICATE_MESSAGE does not match (messages altered or wrong key)");
                }
            }
            if (spnego && clientMechListMic != null) {
                // [RFC 4178] 5, [MS-SPNG] 3.3.5.1: the client signed its MechTypeList; check it, sign it back
                if (mechTypes == null || (negotiated & NEGOTIATE_EXTENDED_SESSIONSECURITY) == 0) {
                    LOG.debug("logon: SPNEGO mechListMIC not checked ({})", mechTypes == null
                            ? "no NegTokenInit in this logon" : "no extended session security");
                } else {
                    byte[] expected = NtlmSignature.first(exported, negotiated, false, mechTypes);
                    if (!MessageDigest.isEqual(expected, clientMechListMic)) {
                        return denied(name, "SPNEGO mechListMIC does not match (the mechanism list was altered, or wrong key)");
                    }
                    done = Spnego.serverNegTokenResp(Spnego.ACCEPT_COMPLETED, false, null,
                            NtlmSignature.first(exported, negotiated, true, mechTypes));
                }
            }
            LOG.debug("logon: {} authenticated with NTLMv2{}", who, (avFlags & AV_FLAG_MIC_PRESENT) != 0 ? " and MIC" : "");
            return new AuthResult(Outcome.AUTHENTICATED, done, exported, a.user(), null);
        }

        private AuthResult guestOr(byte[] done, String name, String why) {
            if (guest) {
                return new AuthResult(Outcome.GUEST, done, null, name, why + ": logged on as guest");
            }
            return denied(name, why + ", and guest logon is off");
        }
    }

    private static String displayName(Authenticate a) {
        return "'" + (a.domain().isEmpty() ? "" : a.domain() + "\\") + a.user() + "'";
    }

    private static AuthResult denied(String name, String why) {
        return new AuthResult(Outcome.DENIED, EMPTY, null, name, why);
    }
}
