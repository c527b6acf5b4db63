package smbdirect.ops.monitor;

/** The quantities the monitor keeps a history of, per provider and per connection. */
public enum Metric {
    /** Upper-layer payload bytes sent per second. */
    BYTES_SENT("bytesSentPerSecond"),
    /** Upper-layer payload bytes received per second. */
    BYTES_RECEIVED("bytesReceivedPerSecond"),
    /** Upper-layer messages sent per second. */
    MESSAGES_SENT("messagesSentPerSecond"),
    /** Upper-layer messages received per second. */
    MESSAGES_RECEIVED("messagesReceivedPerSecond"),
    /** Send Credits held (Connection.SendCredits; summed per provider). */
    SEND_CREDITS("sendCredits"),
    /** Credits granted to the peer and not yet used (summed per provider). */
    PEER_CREDITS("peerCredits"),
    /** Times sending stopped for lack of Send Credits, per second. */
    CREDIT_STALLS("creditStallsPerSecond");

    private final String key;

    Metric(String key) {
        this.key = key;
    }

    /** The name in the JSON history. */
    public String key() {
        return key;
    }

    /** Whether this is a rate (per second) rather than a level. */
    public boolean isRate() {
        return this != SEND_CREDITS && this != PEER_CREDITS;
    }
}
