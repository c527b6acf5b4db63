package smbdirect.impl.engine;

import smbdirect.api.dto.ConnectionDTO;

/**
 * Credits of one connection: Managing Credits Prior to Sending ([MS-SMBD] 3.1.5.9), the credit gate
 * of Sending Upper Layer Messages (3.1.5.1), the credits of Receiving a Data Transfer Message
 * (3.1.5.8) and of negotiation (3.1.5.6, 3.1.5.7). Every credit rule of the engine is here; the send
 * and receive paths and negotiation ask and report through its methods. Receives posted but not yet
 * granted and receives granted to the peer are counted apart (A-13, peer-lessons 2): a grant never
 * exceeds the receives actually posted.
 *
 * <ul>
 * <li>{@code receiveCredits} (ADM ReceiveCredits) = receives posted = {@code ungranted} +
 * {@link #peerCredits()}.</li>
 * <li>Receives are posted up to {@link #postTarget()} = min(ReceiveCreditTarget, ReceiveCreditMax)
 * plus one more whenever the last Send Credit is spent (R-3.1.5.9-04, A-16): the message
 * spending it always grants, and the peer can answer and still grant back, so two peers at one
 * credit each settle instead of exchanging grants forever.</li>
 * <li>Empty grant messages are sent only when the peer's credits fall below
 * {@code creditRefillFraction} x its target, and never for a single missing credit unless the
 * target is 1 (peer-lessons 3, A-15: no ping-pong: an empty grant spends one of the peer's
 * receives, which alone never makes the peer grant back).</li>
 * </ul>
 *
 * <p>Not thread-safe: owned by the connection's serial context.
 */
final class CreditManager {

    /** Connection.SendCredits. */
    private int sendCredits;
    /** Connection.SendCreditTarget. */
    private final int sendCreditTarget;
    /** Connection.ReceiveCreditMax (lowered to the device's receive queue when smaller). */
    private int receiveCreditMax;
    /** Connection.ReceiveCreditTarget (the peer's latest CreditsRequested). */
    private int receiveCreditTarget;
    /** Connection.ReceiveCredits: receives posted. */
    private int receiveCredits;
    /** Receives posted and not yet granted. */
    private int ungranted;

    CreditManager(int sendCreditTarget, int receiveCreditMax) {
        this.sendCreditTarget = sendCreditTarget;
        this.receiveCreditMax = receiveCreditMax;
    }

    /** Connection.SendCredits. */
    int sendCredits() {
        return sendCredits;
    }

    /** Connection.SendCreditTarget: the CreditsRequested of every message sent (R-3.1.5.1-09). */
    int sendCreditTarget() {
        return sendCreditTarget;
    }

    /** Connection.ReceiveCreditMax. */
    int receiveCreditMax() {
        return receiveCreditMax;
    }

    /** Connection.ReceiveCreditTarget. */
    int receiveCreditTarget() {
        return receiveCreditTarget;
    }

    /** Connection.ReceiveCredits: receives posted. */
    int receiveCredits() {
        return receiveCredits;
    }

    /** Receives posted and not yet granted. */
    int ungranted() {
        return ungranted;
    }

    /** Lowers ReceiveCreditMax to what the receive queue holds (before negotiation only). */
    void limitReceiveCreditMax(int limit) {
        receiveCreditMax = Math.max(1, Math.min(receiveCreditMax, limit));
    }

    /** Credits the peer holds: receives granted and not yet consumed. */
    int peerCredits() {
        return receiveCredits - ungranted;
    }

    /** Receives to keep posted: min(ReceiveCreditTarget, ReceiveCreditMax), at least 1. */
    int postTarget() {
        return Math.max(1, Math.min(receiveCreditTarget, receiveCreditMax));
    }

    /** Most receives ever posted at once: the target plus one for the last-credit rule. */
    int receiveCapacity() {
        return receiveCreditMax + 1;
    }

    /** Receives to post now to reach the target (R-3.1.5.9-04, -07). */
    int receivesWanted() {
        return Math.max(0, postTarget() - receiveCredits);
    }

    /** A receive was posted (R-3.1.5.9-05, -08). */
    void onReceivePosted() {
        receiveCredits++;
        ungranted++;
    }

    /** Whether no receive is posted: negotiation fails (R-3.1.5.6-17, R-3.1.5.7-19). */
    boolean noReceivePosted() {
        return receiveCredits == 0;
    }

    /**
     * The peer's CreditsRequested of a negotiate or Data Transfer message is the new
     * ReceiveCreditTarget (R-3.1.5.6-13, R-3.1.5.7-11, R-3.1.5.8-10).
     */
    void onCreditsRequested(int creditsRequested) {
        receiveCreditTarget = creditsRequested;
    }

    /** A message that broke the rules arrived in one of our receives: the receive is consumed. */
    void onInvalidMessage() {
        receiveCredits--;
    }

    /**
     * A message arrived in one of our receives (R-3.1.5.8-07).
     *
     * @return false when the peer held no credit: it sent without a Send Credit (R-3.1.5.1-04)
     */
    boolean onMessageReceived() {
        if (peerCredits() <= 0) {
            return false;
        }
        receiveCredits--;
        return true;
    }

    /** A posted receive was given back without a message (flushed). */
    void onReceiveFlushed() {
        if (ungranted > 0) {
            ungranted--;
        }
        receiveCredits = Math.max(0, receiveCredits - 1);
    }

    /** The peer granted {@code granted} Send Credits (R-3.1.5.8-13, R-3.1.5.7-16). */
    void addSendCredits(int granted) {
        sendCredits = Math.min(0xFFFF, sendCredits + granted);
    }

    /** R-3.1.5.1-04: a message is sent only while a Send Credit is held. */
    boolean hasSendCredit() {
        return sendCredits > 0;
    }

    /**
     * R-3.1.5.9-04, R-3.1.5.1-06, A-16: the next message spends the last Send Credit, so it must go
     * with a grant that includes one more receive ({@link #mayPostExtra()}), so that the peer can
     * answer and still grant back (no grant ping-pong), or at least with a grant
     * ({@link #lastCreditWaits()}).
     */
    boolean spendsLastCredit() {
        return sendCredits == 1;
    }

    /** R-3.1.5.9-06: the last Send Credit waits when no receive could be granted with it. */
    boolean lastCreditWaits() {
        return ungranted == 0;
    }

    /**
     * A message is sent now: it spends a Send Credit (R-3.1.5.1-08) and grants every receive posted
     * and not yet granted (R-3.1.5.1-05).
     *
     * @return the credits it grants
     */
    int onSend() {
        sendCredits--;
        return takeGrant();
    }

    /** The credits to grant on the next message sent: every receive posted and not yet granted. */
    int takeGrant() {
        int g = Math.min(ungranted, 0xFFFF);
        ungranted -= g;
        return g;
    }

    /** Whether one more receive may be posted for the last-credit rule. */
    boolean mayPostExtra() {
        return receiveCredits < receiveCapacity();
    }

    /**
     * Whether an empty message should go out now to grant credits: receives are waiting to be
     * granted and the peer holds fewer than {@code fraction} x its target, at most target - 1 (one
     * missing credit is never enough, so an empty message answers no empty message) and at least 1
     * (a peer without credits always gets a grant).
     */
    boolean grantDue(double fraction) {
        if (ungranted == 0) {
            return false;
        }
        int target = postTarget();
        int threshold = Math.max(1, Math.min((int) Math.ceil(fraction * target), target - 1));
        return peerCredits() < threshold;
    }

    void describeTo(ConnectionDTO d) {
        d.sendCredits = sendCredits;
        d.sendCreditTarget = sendCreditTarget;
        d.receiveCredits = receiveCredits;
        d.receiveCreditsUngranted = ungranted;
        d.peerCredits = peerCredits();
        d.receiveCreditTarget = receiveCreditTarget;
        d.receiveCreditMax = receiveCreditMax;
    }

    @Override
    public String toString() {
        return "sendCredits=" + sendCredits + " sendCreditTarget=" + sendCreditTarget + " receiveCredits="
                + receiveCredits + " ungranted=" + ungranted + " peerCredits=" + peerCredits()
                + " receiveCreditTarget=" + receiveCreditTarget + " receiveCreditMax=" + receiveCreditMax;
    }
}
