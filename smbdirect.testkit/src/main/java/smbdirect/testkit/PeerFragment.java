package smbdirect.testkit;

/**
 * One Data Transfer message ([MS-SMBD] 2.2.3) a {@link ScriptedPeer} received from the transport,
 * as it arrived.
 *
 * @param creditsRequested CreditsRequested: the transport's Send Credit target
 * @param creditsGranted CreditsGranted: Send Credits the transport granted the peer
 * @param flags Flags (0x0001: the transport asked for a prompt reply, a keepalive)
 * @param remainingDataLength RemainingDataLength: bytes of the upper-layer message still to come
 * @param dataLength DataLength: payload bytes in this fragment
 * @param transportSendCredits the Send Credits the transport held after this message consumed one (as
 *     {@link ScriptedPeer#transportSendCredits()} counts them)
 * @param invalidatedToken the token the transport invalidated with this message (a Send with
 *     Invalidate), or null
 */
public record PeerFragment(int creditsRequested, int creditsGranted, int flags, long remainingDataLength,
        long dataLength, int transportSendCredits, Integer invalidatedToken) {

    /** Whether the transport asked for a prompt reply (SMB_DIRECT_RESPONSE_REQUESTED). */
    public boolean responseRequested() {
        return (flags & 0x0001) != 0;
    }
}
