package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.example.fileserver.internal.auth.Smb3Keys;
import smbdirect.example.fileserver.internal.share.Fscc;

/**
 * NEGOTIATE ([MS-SMB2] 3.3.5.4): dialect 3.1.1 or 3.0.2, the highest both sides know; for 3.1.1
 * the PREAUTH_INTEGRITY_CAPABILITIES context (SHA-512, a 32-byte salt) and the connection's
 * pre-authentication hash over the request and the response; every other context (encryption,
 * compression, signing, RDMA transform, netname) is left unanswered, so none is in effect.
 * SecurityMode SIGNING_ENABLED, Capabilities LARGE_MTU only. Also the SMB2 answer to an SMB1
 * multi-protocol NEGOTIATE offering "SMB 2.???" (3.3.5.3.1): DialectRevision 0x02FF.
 */
final class Negotiate {

    private static final Logger LOG = LoggerFactory.getLogger(Negotiate.class);

    static final int PREAUTH_INTEGRITY_CAPABILITIES = 0x0001;
    static final int HASH_SHA512 = 0x0001;
    static final int SECURITY_MODE = Smb2.NEGOTIATE_SIGNING_ENABLED;
    static final int CAPABILITIES = Smb2.GLOBAL_CAP_LARGE_MTU;
    private static final int FIXED = 64;

    private Negotiate() {
    }

    static CompletableFuture<Smb2Response> negotiate(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        Smb2Connection c = rc.connection;
        int count = req.u16(2);
        if (count == 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "DialectCount=0");
        }
        int[] dialects = new int[count];
        int chosen = 0;
        for (int i = 0; i < count; i++) {
            dialects[i] = req.u16(36 + 2 * i);
            if ((dialects[i] == Smb2.DIALECT_311 || dialects[i] == Smb2.DIALECT_302) && dialects[i] > chosen) {
                chosen = dialects[i];
            }
        }
        if (chosen == 0) {
            LOG.warn("{}: refused: the client offers none of the dialects 3.0.2 and 3.1.1", c);
            throw new SmbStatusException(NtStatus.NOT_SUPPORTED, "no common dialect");
        }
        byte[] clientGuid = new byte[16];
        req.region("ClientGuid", Smb2.HEADER_SIZE + 12, 16).get(clientGuid);
        ByteBuffer contexts = null;
        if (chosen == Smb2.DIALECT_311) {
            checkPreauthContext(req);
            contexts = preauthContext();
        }
        c.negotiated(new Smb2Connection.Negotiated(chosen, req.u32(8), clientGuid, req.u16(4), dialects));
        LOG.debug("{}: dialect {}", c, Smb2.dialectName(chosen));
        Smb2Response response = Smb2Response.success(body(c, chosen, contexts));
        if (chosen == Smb2.DIALECT_311) {
            byte[] afterRequest = Smb3Keys.preauthHash(new byte[64], req.bytes());
            response = response.withOnEncoded(bytes -> c.preauthHash(Smb3Keys.preauthHash(afterRequest, bytes)));
        }
        return RequestContext.done(response);
    }

    /** The request's negotiate contexts (2.2.3.1) must hold exactly one PREAUTH_INTEGRITY_CAPABILITIES offering SHA-512. */
    private static void checkPreauthContext(Smb2Request req) throws SmbStatusException {
        long offset = Integer.toUnsignedLong(req.u32(28));
        int count = req.u16(32);
        if (count == 0 || offset % 8 != 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "3.1.1 offered with NegotiateContextOffset="
                    + offset + " NegotiateContextCount=" + count + " (3.3.5.4: a preauth context is required)");
        }
        int preauth = 0;
        boolean sha512 = false;
        long at = offset;
        for (int i = 0; i < count; i++) {
            ByteBuffer head = req.region("NegotiateContext", at, 8);
            int type = head.getShort(0) & 0xFFFF;
            int length = head.getShort(2) & 0xFFFF;
            ByteBuffer data = req.region("NegotiateContext data", at + 8, length);
            if (type == PREAUTH_INTEGRITY_CAPABILITIES) {
                preauth++;
                if (length < 6) {
                    throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "PREAUTH_INTEGRITY_CAPABILITIES DataLength=" + length);
                }
                int algorithms = data.getShort(0) & 0xFFFF;
                ByteBuffer list = req.region("HashAlgorithms", at + 12, 2L * algorithms);
                for (int k = 0; k < algorithms; k++) {
                    sha512 |= (list.getShort(2 * k) & 0xFFFF) == HASH_SHA512;
                }
            }
            at = (at + 8 + length + 7) & ~7L;
        }
        if (preauth != 1) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, preauth + " PREAUTH_INTEGRITY_CAPABILITIES contexts, not 1");
        }
        if (!sha512) {
            throw new SmbStatusException(NtStatus.NO_PREAUTH_INTEGRITY_HASH_OVERLAP, "SHA-512 not offered");
        }
    }

    /** PREAUTH_INTEGRITY_CAPABILITIES (2.2.4.1.1): SHA-512 and a fresh 32-byte salt. */
    private static ByteBuffer preauthContext() {
        byte[] salt = new byte[32];
        new SecureRandom().nextBytes(salt);
        ByteBuffer b = Smb2Response.body(8 + 6 + 32);
        b.putShort((short) PREAUTH_INTEGRITY_CAPABILITIES).putShort((short) 38).putInt(0)
                .putShort((short) 1).putShort((short) 32).putShort((short) HASH_SHA512).put(salt);
        return b.flip();
    }

    /** The NEGOTIATE response body (2.2.4). */
    static ByteBuffer body(Smb2Connection c, int dialect, ByteBuffer contexts) {
        byte[] token = c.server().authenticator().negotiateToken();
        int securityOffset = Smb2.HEADER_SIZE + FIXED;
        int contextOffset = Dispatcher.align8(securityOffset + token.length);
        int size = contexts == null ? FIXED + token.length : contextOffset - Smb2.HEADER_SIZE + contexts.remaining();
        ByteBuffer b = Smb2Response.body(size);
        int rw = c.maxReadWriteSize();
        b.putShort((short) 65).putShort((short) SECURITY_MODE).putShort((short) dialect)
                .putShort((short) (contexts == null ? 0 : 1)).put(c.server().serverGuid()).putInt(CAPABILITIES)
                .putInt(c.maxTransactSize()).putInt(rw).putInt(rw).putLong(Fscc.filetime(FileTime.from(Instant.now()))).putLong(0)
                .putShort((short) securityOffset).putShort((short) token.length)
                .putInt(contexts == null ? 0 : contextOffset).put(token);
        if (contexts != null) {
            b.position(contextOffset - Smb2.HEADER_SIZE);
            b.put(contexts.duplicate());
        }
        return b.position(0);
    }

    /**
     * An SMB1 NEGOTIATE (3.3.5.3): offering "SMB 2.???" it is answered with an SMB2 NEGOTIATE
     * response of DialectRevision 0x02FF, after which the client sends an SMB2 NEGOTIATE; without it
     * the connection ends, since this server speaks no SMB1 and no 2.0.2.
     */
    static void smb1(Smb2Connection c, ByteBuffer m) {
        if (!offersSmb2Wildcard(m)) {
            c.close("an SMB1 NEGOTIATE without \"SMB 2.???\" (this server speaks only SMB 3.0.2 and 3.1.1)");
            return;
        }
        ByteBuffer body = body(c, Smb2.DIALECT_WILDCARD, null);
        ByteBuffer out = ByteBuffer.allocate(Smb2.HEADER_SIZE + body.limit()).order(ByteOrder.LITTLE_ENDIAN);
        new Smb2Header(0, NtStatus.SUCCESS, Smb2.NEGOTIATE, c.credits().grant(1), Smb2.FLAGS_SERVER_TO_REDIR, 0, 0, 0, 0,
                0, 0).encode(out);
        out.put(body).flip();
        LOG.debug("{}: SMB1 NEGOTIATE answered with dialect 0x02FF", c);
        c.send(out, false, 0);
    }

    /** Whether the SMB1 NEGOTIATE's dialect strings (after a 32-byte header, WordCount, ByteCount) include "SMB 2.???". */
    static boolean offersSmb2Wildcard(ByteBuffer m) {
        if (m.limit() < 35 || (m.get(4) & 0xFF) != 0x72) {
            return false;
        }
        int end = Math.min(m.limit(), 35 + (m.getShort(33) & 0xFFFF));
        int at = 35;
        while (at < end) {
            if (m.get(at) != 0x02) {
                return false;
            }
            int zero = at + 1;
            while (zero < end && m.get(zero) != 0) {
                zero++;
            }
            byte[] name = new byte[zero - at - 1];
            m.get(at + 1, name);
            if ("SMB 2.???".equals(new String(name, StandardCharsets.US_ASCII))) {
                return true;
            }
            at = zero + 1;
        }
        return false;
    }
}
