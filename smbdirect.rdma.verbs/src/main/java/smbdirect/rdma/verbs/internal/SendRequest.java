package smbdirect.rdma.verbs.internal;

/**
 * The fields of one single-SGE {@code ibv_send_wr}, filled by the endpoint and read by
 * {@link VerbsBackend#postSend} during the call. One instance per endpoint, reused for every post
 * (no allocation); guarded by the endpoint's post lock.
 */
public final class SendRequest {

    /** {@code ibv_wr_opcode}: {@link VerbsConstants#WR_SEND}, {@link VerbsConstants#WR_SEND_WITH_INV} ... */
    public int opcode;
    public long wrId;
    /** {@code send_flags} ({@link VerbsConstants#SEND_SIGNALED}). */
    public int sendFlags;
    public long sgeAddress;
    public int sgeLength;
    public int sgeLocalKey;
    /** RDMA Read/Write only. */
    public long remoteAddress;
    /** RDMA Read/Write only. */
    public int remoteKey;
    /** The {@code imm_data}/{@code invalidate_rkey} union: the rkey to invalidate for SEND_WITH_INV. */
    public int invalidateKey;
    /** BIND_MW only ({@code bind_mw}): the window, its new rkey and the range of a registration it opens. */
    public VerbsBackend.MemoryWindow bindWindow;
    public int bindKey;
    public VerbsBackend.RegisteredMemory bindRegion;
    public long bindAddress;
    public long bindLength;
    /** {@code mw_access_flags}: {@link VerbsConstants#ACCESS_REMOTE_READ} / {@link VerbsConstants#ACCESS_REMOTE_WRITE}. */
    public int bindAccess;

    void clear() {
        opcode = 0;
        wrId = 0;
        sendFlags = 0;
        sgeAddress = 0;
        sgeLength = 0;
        sgeLocalKey = 0;
        remoteAddress = 0;
        remoteKey = 0;
        invalidateKey = 0;
        bindWindow = null;
        bindKey = 0;
        bindRegion = null;
        bindAddress = 0;
        bindLength = 0;
        bindAccess = 0;
    }

    @Override
    public String toString() {
        return "SendRequest[opcode=" + opcode + ", wrId=0x" + Long.toHexString(wrId) + ", flags=" + sendFlags
                + ", sge=0x" + Long.toHexString(sgeAddress) + "+" + sgeLength + " lkey=0x" + Integer.toHexString(sgeLocalKey)
                + ", remote=0x" + Long.toHexString(remoteAddress) + " rkey=0x" + Integer.toHexString(remoteKey)
                + ", invalidate=0x" + Integer.toHexString(invalidateKey)
                + (bindWindow == null ? "" : ", bind window rkey 0x" + Integer.toHexString(bindKey) + " over 0x"
                        + Long.toHexString(bindAddress) + "+" + bindLength + " access 0x" + Integer.toHexString(bindAccess))
                + "]";
    }
}
