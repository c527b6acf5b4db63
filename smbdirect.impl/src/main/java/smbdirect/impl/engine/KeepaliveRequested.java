package smbdirect.impl.engine;

/** Connection.KeepaliveRequested ([MS-SMBD] 3.1.1.1, R-3.1.1.1-03). */
enum KeepaliveRequested {
    /** No keepalive outstanding. */
    NONE,
    /** The Idle Connection Timer fired; the next message sent carries RESPONSE_REQUESTED. */
    PENDING,
    /** A RESPONSE_REQUESTED message went out; any received message answers it. */
    SENT
}
