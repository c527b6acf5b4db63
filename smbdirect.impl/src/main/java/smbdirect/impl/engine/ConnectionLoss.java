package smbdirect.impl.engine;

import smbdirect.api.CloseReason;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.RdmaException;

/**
 * What the concerns of a connection ask of its {@link Closing} (Connection Loss, [MS-SMBD] 3.1.7.1)
 * besides {@link Connection#close}: to close after the provider refused a post, the reason for a work
 * request that completed with an error, and whether a message received while closing still goes up.
 * {@link Closing} implements it; it is made last, with every concern it ends, so the concerns made
 * before it are given this narrow view of it, which the connection forwards. Serial context only.
 */
interface ConnectionLoss {

    /** A post was refused: closes with a provisional reason that gives way to the endpoint's own. */
    void closeAfterPostFailure(String what, RdmaException e);

    /** The reason for a work request ({@code what}) that completed with an error. */
    CloseReason providerError(String what, CompletionStatus status, int vendorError);

    /** Whether a message the peer sent completely before the connection broke still goes up. */
    boolean deliversWhileClosing();
}
