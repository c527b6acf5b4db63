package smbdirect.example.fileserver.internal.smb2;

/**
 * A request that ends with an error response carrying {@link #status()} (an NTSTATUS from
 * {@link NtStatus}); the message says why, for the log. The connection goes on.
 */
public final class SmbStatusException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int status;

    public SmbStatusException(int status, String why) {
        super(why, null, false, false);
        this.status = status;
    }

    /** The NTSTATUS of the error response. */
    public int status() {
        return status;
    }

    @Override
    public String toString() {
        return NtStatus.name(status) + ": " + getMessage();
    }
}
