package smbdirect.impl.engine;

/** Connection.Role ([MS-SMBD] 3.1.1.1): which first message is expected (R-3.1.1.1-01). */
enum Role {
    /** We connected; the next message is a Negotiate Response. */
    ACTIVE,
    /** We accepted; the next message is a Negotiate Request. */
    PASSIVE,
    /** Negotiation succeeded; every message is a Data Transfer message. */
    ESTABLISHED
}
