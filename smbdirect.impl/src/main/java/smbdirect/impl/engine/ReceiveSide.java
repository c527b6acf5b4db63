package smbdirect.impl.engine;

/**
 * What the send loop asks of the receive side of its connection ([MS-SMBD] 3.1.5.1, 3.1.5.9): the
 * receives to post before it grants them, a receive buffer for the extra receive of the last-credit
 * rule (R-3.1.5.9-04, A-16), and Connection.SendImmediate, which a received message with
 * SMB_DIRECT_RESPONSE_REQUESTED sets (R-3.1.5.8-11) and every message sent clears (R-3.1.5.1-16).
 *
 * <p>{@link ReceivePath} implements it and is made first; {@link SendPath} is given it when it is made.
 * This is the one way the two meet: the receive path never calls the send path; the connection runs
 * the send loop after a received message ({@link ReceivePath#onCompleted} says when). Serial context only.
 */
interface ReceiveSide {

    /** 3.1.5.9: posts receives up to the target (R-3.1.5.9-04..09). */
    void refill();

    /** Whether a receive buffer is free (for the extra receive of the last-credit rule). */
    boolean bufferAvailable();

    /**
     * Posts one receive of MaxReceiveSize.
     *
     * @param fatal whether a refused post ends the connection
     * @return whether it was posted
     */
    boolean postOne(boolean fatal);

    /** Connection.SendImmediate: a message (possibly empty) is to go out at once (R-3.1.5.8-11, -12). */
    boolean sendImmediate();

    /** A message went out: Connection.SendImmediate is cleared (R-3.1.5.1-16). */
    void clearSendImmediate();
}
