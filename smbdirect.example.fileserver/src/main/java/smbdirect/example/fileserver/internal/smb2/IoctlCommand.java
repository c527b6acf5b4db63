package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * IOCTL ([MS-SMB2] 3.3.5.15). FSCTL_VALIDATE_NEGOTIATE_INFO (3.3.5.15.12, sent signed by cifs on
 * 3.0.2 after a TREE_CONNECT of an account, which disconnects on a wrong answer) is checked against
 * what the client sent in NEGOTIATE and answered with the server's values; a mismatch, a
 * MaxOutputResponse below 24 or the request under 3.1.1 end the connection, as the specification
 * requires. FSCTL_QUERY_NETWORK_INTERFACE_INFO: STATUS_NOT_SUPPORTED (no
 * multichannel; cifs takes -EOPNOTSUPP as "no interface list" and goes on). FSCTL_DFS_GET_REFERRALS
 * (and _EX): STATUS_FS_DRIVER_REQUIRED (no DFS, as ksmbd answers). Any other control:
 * STATUS_NOT_SUPPORTED, by design: a reference server offers no server-side copy
 * (FSCTL_SRV_REQUEST_RESUME_KEY, FSCTL_SRV_COPYCHUNK[_WRITE], FSCTL_DUPLICATE_EXTENTS_TO_FILE), sparse
 * files (FSCTL_SET_SPARSE, FSCTL_SET_ZERO_DATA, FSCTL_QUERY_ALLOCATED_RANGES) or reparse points
 * (FSCTL_GET/SET_REPARSE_POINT); Linux cifs takes the answer as EOPNOTSUPP and copies through READ and
 * WRITE, or tells the application that fallocate's hole punching is not supported. A non-FSCTL IOCTL
 * likewise. The log names the control when it is one of these.
 */
final class IoctlCommand {

    private static final Logger LOG = LoggerFactory.getLogger(IoctlCommand.class);

    static final int FSCTL_VALIDATE_NEGOTIATE_INFO = 0x00140204;
    static final int FSCTL_QUERY_NETWORK_INTERFACE_INFO = 0x001401FC;
    static final int FSCTL_DFS_GET_REFERRALS = 0x00060194;
    static final int FSCTL_DFS_GET_REFERRALS_EX = 0x000601B0;
    static final int IOCTL_IS_FSCTL = 0x00000001;
    /** The FSCTLs Linux cifs may send that this server does not offer, by name for the log ([MS-FSCC] 2.3). */
    private static final java.util.Map<Integer, String> NOT_OFFERED = java.util.Map.of(
            0x00140078, "FSCTL_SRV_REQUEST_RESUME_KEY", 0x001440F2, "FSCTL_SRV_COPYCHUNK",
            0x001480F2, "FSCTL_SRV_COPYCHUNK_WRITE", 0x00098344, "FSCTL_DUPLICATE_EXTENTS_TO_FILE",
            0x000900C4, "FSCTL_SET_SPARSE", 0x000980C8, "FSCTL_SET_ZERO_DATA",
            0x000940CF, "FSCTL_QUERY_ALLOCATED_RANGES", 0x000900A8, "FSCTL_GET_REPARSE_POINT",
            0x000900A4, "FSCTL_SET_REPARSE_POINT");
    private static final int FIXED = 48;

    private IoctlCommand() {
    }

    static CompletableFuture<Smb2Response> ioctl(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        int ctlCode = req.u32(4);
        long inputOffset = Integer.toUnsignedLong(req.u32(24));
        long inputCount = Integer.toUnsignedLong(req.u32(28));
        long maxOutput = Integer.toUnsignedLong(req.u32(44));
        int flags = req.u32(48);
        ByteBuffer input = req.region("Input", inputOffset, inputCount);
        if (inputCount + maxOutput > rc.connection.maxTransactSize()) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "InputCount=" + inputCount + " MaxOutputResponse="
                    + maxOutput + ": above MaxTransactSize " + rc.connection.maxTransactSize());
        }
        if ((flags & IOCTL_IS_FSCTL) == 0) {
            throw new SmbStatusException(NtStatus.NOT_SUPPORTED, String.format("IOCTL 0x%08X: not an FSCTL", ctlCode));
        }
        switch (ctlCode) {
            case FSCTL_VALIDATE_NEGOTIATE_INFO:
                return RequestContext.done(validateNegotiate(rc, input, maxOutput));
            case FSCTL_QUERY_NETWORK_INTERFACE_INFO:
                throw new SmbStatusException(NtStatus.NOT_SUPPORTED, "FSCTL_QUERY_NETWORK_INTERFACE_INFO: no multichannel");
            case FSCTL_DFS_GET_REFERRALS:
            case FSCTL_DFS_GET_REFERRALS_EX:
                throw new SmbStatusException(NtStatus.FS_DRIVER_REQUIRED, "FSCTL_DFS_GET_REFERRALS: no DFS");
            default:
                throw new SmbStatusException(NtStatus.NOT_SUPPORTED, NOT_OFFERED.getOrDefault(ctlCode,
                        String.format("FSCTL 0x%08X", ctlCode)) + ": not offered by this server");
        }
    }

    /** 3.3.5.15.12: "the server MUST terminate the transport connection". */
    private static void terminate(Smb2Connection c, String why) {
        c.close("FSCTL_VALIDATE_NEGOTIATE_INFO " + why + " (3.3.5.15.12)");
        throw new ConnectionGoneException("VALIDATE_NEGOTIATE_INFO refused", null);
    }

    /** FSCTL_VALIDATE_NEGOTIATE_INFO: VALIDATE_NEGOTIATE_INFO request (2.2.31.4) in, response (2.2.32.6) out. */
    private static Smb2Response validateNegotiate(RequestContext rc, ByteBuffer in, long maxOutput) throws SmbStatusException {
        Smb2Connection c = rc.connection;
        Smb2Connection.Negotiated n = c.negotiated();
        if (n.dialect() == Smb2.DIALECT_311) {
            terminate(c, "under 3.1.1, whose pre-authentication integrity replaces it");
        }
        if (maxOutput < 24) {
            terminate(c, "MaxOutputResponse=" + maxOutput + ": below the 24 bytes of the answer");
        }
        if (in.remaining() < 24 || in.remaining() < 24 + 2 * (in.getShort(22) & 0xFFFF)) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "VALIDATE_NEGOTIATE_INFO of " + in.remaining() + " bytes");
        }
        int capabilities = in.getInt(0);
        byte[] guid = new byte[16];
        in.get(4, guid);
        int securityMode = in.getShort(20) & 0xFFFF;
        int[] dialects = new int[in.getShort(22) & 0xFFFF];
        for (int i = 0; i < dialects.length; i++) {
            dialects[i] = in.getShort(24 + 2 * i) & 0xFFFF;
        }
        String mismatch = capabilities != n.clientCapabilities() ? "Capabilities"
                : !Arrays.equals(guid, n.clientGuid()) ? "Guid"
                : securityMode != n.clientSecurityMode() ? "SecurityMode"
                : !Arrays.equals(dialects, n.clientDialects()) ? "Dialects" : null;
        if (mismatch != null) {
            terminate(c, mismatch + " differs from the NEGOTIATE request");
        }
        LOG.debug("{}: negotiate validated", c);
        ByteBuffer b = Smb2Response.body(FIXED + 24);
        int out = Smb2.HEADER_SIZE + FIXED;
        b.putShort((short) 49).putShort((short) 0).putInt(FSCTL_VALIDATE_NEGOTIATE_INFO)
                .put(rc.request.region("FileId", Smb2.HEADER_SIZE + 8, 16)).putInt(out).putInt(0).putInt(out).putInt(24)
                .putInt(0).putInt(0);
        b.putInt(Negotiate.CAPABILITIES).put(c.server().serverGuid()).putShort((short) Negotiate.SECURITY_MODE)
                .putShort((short) n.dialect());
        return Smb2Response.success(b.position(0));
    }
}
