package smbdirect.example.fileserver.internal.smb2;

/**
 * A request that cannot be answered because its connection ended under it (an RDMA transfer
 * failed, and the transport closed the connection with the reason). No response is sent; the
 * client gets no success for it.
 */
final class ConnectionGoneException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ConnectionGoneException(String why, Throwable cause) {
        super(why, cause, false, false);
    }
}
