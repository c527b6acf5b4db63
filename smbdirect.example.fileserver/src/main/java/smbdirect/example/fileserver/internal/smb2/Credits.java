package smbdirect.example.fileserver.internal.smb2;

/**
 * The CreditCharge a request needs under LARGE_MTU ([MS-SMB2] 3.3.5.2.5): one credit per 64 KiB
 * started of the larger of what it sends and what it may get back. Static.
 */
final class Credits {

    private static final int UNIT = 65536;

    private Credits() {
    }

    /** The payload size the charge is counted from, per command's body fields. */
    static long payloadSize(Smb2Request req) throws SmbStatusException {
        return switch (req.command()) {
            case Smb2.READ -> Integer.toUnsignedLong(req.u32(4));
            case Smb2.WRITE -> Math.max(Integer.toUnsignedLong(req.u32(4)), isRdma(req.u32(WriteCommand.CHANNEL))
                    ? Integer.toUnsignedLong(req.u32(WriteCommand.REMAINING_BYTES)) : 0);
            case Smb2.IOCTL -> Math.max(Integer.toUnsignedLong(req.u32(28)) + Integer.toUnsignedLong(req.u32(40)),
                    Integer.toUnsignedLong(req.u32(32)) + Integer.toUnsignedLong(req.u32(44)));
            case Smb2.QUERY_DIRECTORY -> Integer.toUnsignedLong(req.u32(28));
            case Smb2.QUERY_INFO -> Math.max(Integer.toUnsignedLong(req.u32(12)), Integer.toUnsignedLong(req.u32(4)));
            case Smb2.SET_INFO -> Integer.toUnsignedLong(req.u32(4));
            case Smb2.CHANGE_NOTIFY -> Integer.toUnsignedLong(req.u32(4));
            default -> req.bodyLength();
        };
    }

    static boolean isRdma(int channel) {
        return channel == Smb2.CHANNEL_RDMA_V1 || channel == Smb2.CHANNEL_RDMA_V1_INVALIDATE;
    }

    /** The credits a payload of {@code size} bytes is charged: ceil(size / 65536), at least one. */
    static long required(long size) {
        return Math.max(1, (size + UNIT - 1) / UNIT);
    }

    /** STATUS_INVALID_PARAMETER when the request's CreditCharge (0 counting as 1) is too small. */
    static void checkCharge(Smb2Request req) throws SmbStatusException {
        long size = payloadSize(req);
        long needed = required(size);
        int charge = Math.max(1, req.header().creditCharge());
        if (charge < needed) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "CreditCharge=" + req.header().creditCharge()
                    + ": a payload of " + size + " bytes needs " + needed + " (3.3.5.2.5)");
        }
    }
}
