package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.example.fileserver.internal.auth.AuthResult;
import smbdirect.example.fileserver.internal.auth.Smb3Keys;

/**
 * SESSION_SETUP ([MS-SMB2] 3.3.5.5) and LOGOFF (3.3.5.6). A logon runs one
 * {@link smbdirect.example.fileserver.internal.auth.NtlmAuthenticator.Exchange} over the legs of
 * one session; under 3.1.1 the session's pre-authentication hash covers its SESSION_SETUP requests
 * and MORE_PROCESSING_REQUIRED responses, and the final SUCCESS response of an account (not a
 * guest) is signed with the key derived from it (3.3.5.5.3, 3.3.4.1.1). The key is kept to check
 * a request the client signs anyway (cifs signs TREE_CONNECT under 3.1.1) and to sign its
 * response; a client that requires signing of the whole session is refused with
 * STATUS_ACCESS_DENIED (as for any security requirement the server cannot meet); multichannel
 * binding with STATUS_REQUEST_NOT_ACCEPTED.
 */
final class SessionCommands {

    private static final Logger LOG = LoggerFactory.getLogger(SessionCommands.class);

    static final int SESSION_FLAG_BINDING = 0x01;
    static final int SESSION_FLAG_IS_GUEST = 0x0001;

    private SessionCommands() {
    }

    static CompletableFuture<Smb2Response> sessionSetup(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        Smb2Connection c = rc.connection;
        int flags = req.u8(2);
        int securityMode = req.u8(3);
        ByteBuffer blob = req.region("SecurityBuffer", req.u16(12), req.u16(14));
        if ((flags & SESSION_FLAG_BINDING) != 0) {
            LOG.warn("{}: SESSION_SETUP refused: binding a session to a second channel (multichannel) is not supported", c);
            throw new SmbStatusException(NtStatus.REQUEST_NOT_ACCEPTED, "SMB2_SESSION_FLAG_BINDING");
        }
        if ((securityMode & Smb2.NEGOTIATE_SIGNING_REQUIRED) != 0) {
            LOG.warn("{}: SESSION_SETUP refused: the client requires signing (SecurityMode=0x{}), which this server"
                    + " does not do", c, Integer.toHexString(securityMode));
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, "the client requires signing");
        }
        Session session;
        if (req.header().sessionId() == 0) {
            session = c.newSession();
        } else {
            session = c.session(req.header().sessionId());
            if (session == null) {
                throw new SmbStatusException(NtStatus.USER_SESSION_DELETED,
                        "SessionId=0x" + Long.toHexString(req.header().sessionId()) + ": no such session");
            }
        }
        rc.sessionId = session.id();
        boolean v311 = c.dialect() == Smb2.DIALECT_311;
        byte[] token = new byte[blob.remaining()];
        blob.get(token);
        AuthResult result;
        synchronized (session) {
            if (v311) {
                session.preauthHash(Smb3Keys.preauthHash(session.preauthHash(), req.bytes()));
            }
            result = session.exchange(c.server().authenticator()).step(token);
        }
        switch (result.outcome()) {
            case CONTINUE: {
                Smb2Response r = Smb2Response.of(NtStatus.MORE_PROCESSING_REQUIRED, body(0, result.securityBlob()));
                if (v311) {
                    r = r.withOnEncoded(bytes -> {
                        synchronized (session) {
                            session.preauthHash(Smb3Keys.preauthHash(session.preauthHash(), bytes));
                        }
                    });
                }
                return RequestContext.done(r);
            }
            case AUTHENTICATED: {
                session.loggedOn(result.user(), false);
                LOG.info("{}: {} logged on as {}, dialect {}", c, session, result.user(), Smb2.dialectName(c.dialect()));
                Smb2Response r = Smb2Response.success(body(0, result.securityBlob()));
                byte[] key = Smb3Keys.signingKey(c.dialect(), result.sessionKey(), session.preauthHash());
                session.signingKey(key);
                if (v311) {
                    r = r.withSigningKey(key);
                }
                return RequestContext.done(r);
            }
            case GUEST: {
                String who = result.user() == null || result.user().isEmpty() ? "(anonymous)" : result.user();
                session.loggedOn(who, true);
                LOG.info("{}: {} logged on as guest ({}{}), dialect {}", c, session, who,
                        result.reason() == null ? "" : ": " + result.reason(), Smb2.dialectName(c.dialect()));
                return RequestContext.done(Smb2Response.success(body(SESSION_FLAG_IS_GUEST, result.securityBlob())));
            }
            default: {
                if (session.state() != Session.State.VALID) {
                    c.removeSession(session.id());
                }
                LOG.warn("{}: logon refused{}: {}", c, result.user() == null ? "" : " for " + result.user(), result.reason());
                throw new SmbStatusException(NtStatus.LOGON_FAILURE, String.valueOf(result.reason()));
            }
        }
    }

    /** The SESSION_SETUP response body (2.2.6). */
    private static ByteBuffer body(int sessionFlags, byte[] blob) {
        byte[] token = blob == null ? new byte[0] : blob;
        ByteBuffer b = Smb2Response.body(8 + Math.max(1, token.length));
        b.putShort((short) 9).putShort((short) sessionFlags).putShort((short) (token.length == 0 ? 0 : Smb2.HEADER_SIZE + 8))
                .putShort((short) token.length).put(token);
        return b.position(0);
    }

    /** LOGOFF (3.3.5.6): closes the session's opens and ends it. */
    static CompletableFuture<Smb2Response> logoff(RequestContext rc) {
        Smb2Connection c = rc.connection;
        c.removeSession(rc.session.id());
        for (Open o : c.opens().removeAll(rc.session.id(), 0)) {
            c.closeQuietly(o);
        }
        LOG.info("{}: {} logged off", c, rc.session);
        return RequestContext.done(Smb2Response.success(Dispatcher.fixed(4)));
    }
}
