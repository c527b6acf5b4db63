package smbdirect.api.rdma;

import java.io.IOException;

/** A provider refused an operation (bind, queue pair, registration, post). */
public class RdmaException extends IOException {

    private static final long serialVersionUID = 1L;

    public RdmaException(String message) {
        super(message);
    }

    public RdmaException(String message, Throwable cause) {
        super(message, cause);
    }
}
