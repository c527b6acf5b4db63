package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.example.fileserver.internal.auth.Smb3Keys;

/**
 * The check of a request the client signed ([MS-SMB2] 3.3.5.2.4). This server does not sign a
 * session's traffic, but Linux cifs signs its TREE_CONNECT under 3.1.1 (3.2.4.1.1) even then: such
 * a request is verified with the session's signing key and its response signed (3.3.4.1.1). A
 * signed request in a session without a key (a guest's) or with a wrong signature is refused with
 * STATUS_ACCESS_DENIED. Static.
 */
final class RequestSignature {

    private static final Logger LOG = LoggerFactory.getLogger(RequestSignature.class);
    private static final int SIGNATURE_AT = 48;

    private RequestSignature() {
    }

    /** The session's signing key when the request's signature is right. */
    static byte[] verify(RequestContext rc) throws SmbStatusException {
        Session session = rc.session != null ? rc.session : rc.connection.session(rc.sessionId);
        byte[] key = session == null ? null : session.signingKey();
        if (key == null) {
            LOG.warn("{}: {} refused: signed, but its session has no signing key (guest, or not logged on)",
                    rc.connection, rc.request);
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, "a signed request without a signing key");
        }
        ByteBuffer original = rc.request.bytes().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer copy = ByteBuffer.allocate(original.remaining()).order(ByteOrder.LITTLE_ENDIAN);
        copy.put(original.duplicate()).flip();
        Smb3Keys.sign(key, copy.duplicate().order(ByteOrder.LITTLE_ENDIAN));
        byte[] expected = new byte[16];
        byte[] given = new byte[16];
        copy.get(SIGNATURE_AT, expected);
        original.get(SIGNATURE_AT, given);
        if (!MessageDigest.isEqual(expected, given)) {
            LOG.warn("{}: {} refused: its signature does not verify", rc.connection, rc.request);
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, "bad signature");
        }
        return key;
    }
}
